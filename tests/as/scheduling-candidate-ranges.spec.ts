// Scheduler.pick measures the load and prefix ranges and the guard's load sum in one pass (candidate-ranges.ts) and
// writes the queue, in-flight and prefix scores in a second (normalize.ts normalizeLoadAndPrefix), which, with the
// default four weighted terms and no candidate guarded, also sums and ranks the totals (SIMD build). This checks them
// against the steps on their own: every score as normalizeQueue, normalizeInflight and normalizePrefix give it
// without the ranges, the guard's limit as overloadLimit finds it alone, each total as the weighted sum in list order
// (bit for bit) and the pick as pickBest makes it, on random candidates with odd metric values (NaN, -0, Infinity,
// negatives, fractions, outliers), odd counts and unhealthy ones, the flags read as they are and as lane masks.
import { Candidates, LoraState } from "../../assembly/scheduling/candidates";
import { CandidateRanges, measureRanges } from "../../assembly/scheduling/candidate-ranges";
import { overloadLimit } from "../../assembly/scheduling/load-guard";
import { normalizeInflight, normalizePrefix, normalizeQueue } from "../../assembly/scheduling/normalize";
import { Rng } from "../../assembly/scheduling/rng";
import { Scheduler } from "../../assembly/scheduling/scheduler";
import { pickBest } from "../../assembly/scheduling/pick";
import { referenceTotal } from "./support/total-reference";

const MAX = 41;
const c = new Candidates(MAX);
const out = new StaticArray<f64>(MAX);
const loads = new StaticArray<f64>(MAX);
const expectedTotals = new StaticArray<f64>(MAX);

function oddValue(r: Rng): f64 {
  switch (r.below(12)) {
    case 0: return NaN;
    case 1: return -0.0;
    case 2: return Infinity;
    case 3: return -1;
    case 4: return 0.25 * <f64>r.below(9);
    case 5: return 1e6 * <f64>r.below(3);
    case 6: return 0.1 * <f64>r.below(30); // sums that round
    default: return <f64>r.below(7);
  }
}

function fill(r: Rng, n: i32): void {
  c.clear();
  for (let i = 0; i < n; i++) {
    c.add(i, r.below(5) != 0, r.below(4) != 0, oddValue(r), 0, <f64>r.below(5) / 4.0, r.below(3) != 0,
      r.below(6) == 0 ? -<i32>r.below(3) : (r.below(9) == 0 ? 200 + <i32>r.below(9) : <i32>r.below(9)),
      r.below(6) == 0 ? -1 : <i32>r.below(40), LoraState.Unknown, 0, false);
  }
}

function expectBits(what: string, round: i32, i: i32, got: f64, want: f64): void {
  if (reinterpret<u64>(got) != reinterpret<u64>(want)) {
    trace(what + " differs: round, candidate, got, expected", 4, <f64>round, <f64>i, got, want);
    expect<u64>(reinterpret<u64>(got)).toBe(reinterpret<u64>(want));
  }
}

describe("the candidates' ranges in one pass", () => {
  it("give every score and the guard's limit as the scorers' own passes do", () => {
    const r = new Rng(0xace);
    const s = new Scheduler(MAX);
    s.seed(5);
    const draws = new Rng(5); // the scheduler's draws, in step
    const ranges = new CandidateRanges();
    for (let round = 0; round < 2000; round++) {
      fill(r, <i32>r.below(MAX + 1));
      if (round % 2 == 1) c.deriveLanes(c.count);
      if (round % 4 == 3 && c.count > 0) c.exclude(<i32>r.below(c.count));
      const n = c.count;
      const chain = round % 5 == 0 ? 0 : 1 + <i32>r.below(40);
      const factor = round % 7 == 0 ? 0 : 1 + <f64>r.below(3) / 2.0;
      const slack = <f64>r.below(3);
      measureRanges(c, n, chain, ranges);
      // The matched chunks' range (its own loop, four candidates per step) as one candidate at a time finds it.
      let prefixLo: i32 = i32.MAX_VALUE;
      let prefixHi: i32 = 0;
      for (let i = 0; i < n && chain > 0; i++) {
        if (!c.healthy[i]) continue;
        const m = min<i32>(max<i32>(c.prefixMatched[i], 0), chain);
        prefixLo = min<i32>(prefixLo, m);
        prefixHi = max<i32>(prefixHi, m);
      }
      expect<i32>(ranges.prefixLo).toBe(prefixLo);
      expect<i32>(ranges.prefixHi).toBe(prefixHi);
      const alone = overloadLimit(c, n, factor, slack, loads);
      expectBits("guard limit", round, -1, overloadLimit(c, n, factor, slack, loads, ranges), alone);

      s.guardFactor = factor;
      s.guardSlack = slack;
      // Some rounds charge a deficit against the best's own match (prefix.creditOfBestMatch).
      s.scorer("prefixCache")!.setParam("prefix.creditOfBestMatch", round % 3 == 0 ? 2.0 : round % 3 == 1 ? 0.5 : 0.0);
      const picked = s.pick(c, chain);
      const queue = s.scorer("queue")!;
      normalizeQueue(c, out, queue.values[0], queue.values[1]);
      for (let i = 0; i < n; i++) expectBits("queue", round, i, queue.score[i], out[i]);
      const inflight = s.scorer("inflight")!;
      normalizeInflight(c, out, inflight.values[0], inflight.values[1]);
      for (let i = 0; i < n; i++) expectBits("inflight", round, i, inflight.score[i], out[i]);
      const prefix = s.scorer("prefixCache")!;
      normalizePrefix(c, chain, s.request.chunkChars, prefix.values[0], prefix.values[1], out, null, prefix.values[2]);
      for (let i = 0; i < n; i++) {
        // The guard zeroes a guarded candidate's prefix score after the totals.
        expectBits("prefix", round, i, prefix.score[i], s.guarded[i] ? 0 : out[i]);
      }
      const inverseSum = 1 / s.weightSum();
      for (let i = 0; i < n; i++) {
        expectedTotals[i] = referenceTotal(s, c, i, inverseSum);
        expectBits("total", round, i, s.total[i], expectedTotals[i]);
      }
      const expectedPick = pickBest(c, expectedTotals, draws);
      if (picked != expectedPick) {
        trace("pick differs: round, got, expected", 3, <f64>round, <f64>picked, <f64>expectedPick);
        expect<i32>(picked).toBe(expectedPick);
      }
    }
  });

  it("are used only for the candidates they were measured for", () => {
    const r = new Rng(3);
    const ranges = new CandidateRanges();
    fill(r, 20);
    measureRanges(c, 10, 8, ranges);
    normalizeQueue(c, out, 4, 16);
    const alone = out[15];
    normalizeQueue(c, out, 4, 16, ranges); // measured for 10 of 20: a pass of its own
    expect<u64>(reinterpret<u64>(out[15])).toBe(reinterpret<u64>(alone));
    normalizePrefix(c, 9, 512, 0.5, 8192, out);
    const prefixAlone = out[3];
    normalizePrefix(c, 9, 512, 0.5, 8192, out, ranges); // measured for a chain of 8
    expect<u64>(reinterpret<u64>(out[3])).toBe(reinterpret<u64>(prefixAlone));
  });
});
