import { Candidates } from "../../assembly/scheduling/candidates";
import { CandidateRanges, measureRanges } from "../../assembly/scheduling/candidate-ranges";
import { LoadChanges, SnapshotLoad } from "../../assembly/scheduling/load-ranges";

// Deterministic xorshift for the random fleets.
let state: u64 = 0x2545f4914f6cdd1d;
function next(): u64 {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

// A queue as a metrics page may give it: mostly small whole counts, sometimes a fraction, a huge count, NaN,
// a negative or Infinity.
function someQueue(): f64 {
  const k = next() % 40;
  if (k == 0) return 2.5;
  if (k == 1) return NaN;
  if (k == 2) return -3;
  if (k == 3) return Infinity;
  if (k == 4) return 1e13;
  return <f64>(next() % 4);
}

function same(a: f64, b: f64): bool {
  return a == b || (a != a && b != b);
}

describe("LoadChanges", () => {
  it("gives measureRanges' load ranges whenever it says they are known, over random fleets and changes", () => {
    const n = 13; // odd: the SIMD loops' last candidate comes alone
    const listed = new Candidates(n);
    const c = new Candidates(n);
    const waitingOrZero = new StaticArray<f64>(n);
    const base = new SnapshotLoad();
    const changes = new LoadChanges();
    const expected = new CandidateRanges();
    const got = new CandidateRanges();
    const changed = new StaticArray<bool>(n);
    let known = 0;
    let unknown = 0;
    for (let round = 0; round < 2000; round++) {
      const count = 1 + <i32>(next() % <u64>n);
      listed.clear();
      for (let i = 0; i < count; i++) {
        const q = round % 3 == 0 ? someQueue() : <f64>(next() % 3);
        listed.add(i, next() % 6 != 0, next() % 5 != 0, q, 0, 0, false, 0, 0, -1, 0, false);
        waitingOrZero[i] = q >= 0 ? q : 0;
      }
      listed.deriveLanes(count);
      base.measure(listed, waitingOrZero, count);
      // The candidates as the fill leaves them: the snapshot's queues and none in flight, a few changed.
      c.clear();
      for (let i = 0; i < count; i++) {
        c.add(i, listed.healthy[i], listed.hasMetrics[i], waitingOrZero[i], 0, 0, false, 0, <i32>(next() % 3), -1, 0, false);
      }
      c.deriveLanes(count);
      changes.begin(base);
      for (let i = 0; i < count; i++) changed[i] = false;
      const changes_ = <i32>(next() % <u64>(count + 2));
      for (let k = 0; k < changes_; k++) {
        const i = <i32>(next() % <u64>count);
        if (changed[i]) continue;
        changed[i] = true;
        // A pending count raises the queue, or the raw page value replaces it (as the fill does).
        let waiting = listed.waiting[i];
        const kind = next() % 20;
        const pending = kind == 0 ? 0.1 : kind == 1 ? 1e17 + 2 : <f64>(next() % 4);
        if (!(waiting >= pending)) waiting = pending;
        const inflight = <i32>(next() % 5) - (next() % 7 == 0 ? 3 : 0);
        c.waiting[i] = waiting;
        c.inflight[i] = inflight;
        if (c.healthy[i]) {
          const q = waiting >= 0 && waiting < Infinity ? waiting : 0;
          const b = waitingOrZero[i] >= 0 && waitingOrZero[i] < Infinity ? waitingOrZero[i] : 0;
          changes.change(c.hasMetrics[i], b, q, <f64>max<i32>(inflight, 0));
        }
      }
      const chain = <i32>(next() % 3);
      const ok = changes.finish(count, c.markLoad());
      measureRanges(c, count, chain, expected);
      measureRanges(c, count, chain, got, changes);
      if (!ok) {
        unknown++;
        continue;
      }
      known++;
      expect<bool>(same(got.queueLo, expected.queueLo)).toBe(true, "queueLo");
      expect<bool>(same(got.queueHi, expected.queueHi)).toBe(true, "queueHi");
      expect<bool>(same(got.inflightLo, expected.inflightLo)).toBe(true, "inflightLo");
      expect<bool>(same(got.inflightHi, expected.inflightHi)).toBe(true, "inflightHi");
      expect<f64>(got.loadSum).toBe(expected.loadSum, "loadSum");
      expect<bool>(same(got.loadMost, expected.loadMost)).toBe(true, "loadMost");
      expect<bool>(same(got.loadLeast, expected.loadLeast)).toBe(true, "loadLeast");
      expect<i32>(got.healthy).toBe(expected.healthy, "healthy");
      expect<i32>(got.prefixLo).toBe(expected.prefixLo, "prefixLo");
      expect<i32>(got.prefixHi).toBe(expected.prefixHi, "prefixHi");
    }
    expect<i32>(known).toBeGreaterThan(500);
    expect<i32>(unknown).toBeGreaterThan(50);
  });

  it("holds only for the candidates as the fill marked them", () => {
    const c = new Candidates(4);
    const listed = new Candidates(4);
    const waitingOrZero = new StaticArray<f64>(4);
    for (let i = 0; i < 4; i++) {
      listed.add(i, true, true, <f64>i, 0, 0, false, 0, 0, -1, 0, false);
      c.add(i, true, true, <f64>i, 0, 0, false, 0, 0, -1, 0, false);
      waitingOrZero[i] = <f64>i;
    }
    const base = new SnapshotLoad();
    base.measure(listed, waitingOrZero, 4);
    const changes = new LoadChanges();
    changes.begin(base);
    expect<bool>(changes.finish(4, c.markLoad())).toBe(true);
    expect<bool>(changes.holdsFor(c, 4)).toBe(true);
    expect<bool>(changes.holdsFor(c, 3)).toBe(false, "another count");
    c.exclude(2);
    expect<bool>(changes.holdsFor(c, 4)).toBe(false, "a candidate excluded");
    const other = new Candidates(4);
    other.markLoad();
    expect<bool>(changes.holdsFor(other, 4)).toBe(false, "other candidates");
  });
});
