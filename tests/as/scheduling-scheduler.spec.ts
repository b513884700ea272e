import { Candidates, LoraState } from "../../assembly/scheduling/candidates";
import { Scheduler } from "../../assembly/scheduling/scheduler";

const MAX = 16;
const c = new Candidates(MAX);

function endpoint(waiting: f64, running: f64, kv: f64, inflight: i32, matched: i32): i32 {
  return c.add(c.count + 10, true, true, waiting, running, kv, true, inflight, matched, LoraState.Unknown, 0, false);
}

function freshScheduler(): Scheduler {
  const s = new Scheduler(MAX);
  s.seed(2024);
  return s;
}

describe("Scheduler.pick scenarios", () => {
  it("sends a request without prefix to the least-loaded endpoint", () => {
    const s = freshScheduler();
    c.clear();
    endpoint(3, 8, 0.6, 2, 0);
    endpoint(0, 2, 0.2, 0, 0);
    endpoint(1, 5, 0.4, 1, 0);
    for (let k = 0; k < 20; k++) expect<i32>(s.pick(c, 0)).toBe(1);
  });

  it("prefers the prefix match among equally loaded endpoints", () => {
    const s = freshScheduler();
    c.clear();
    endpoint(1, 3, 0.5, 1, 0);
    endpoint(1, 3, 0.5, 1, 12);
    endpoint(1, 3, 0.5, 1, 0);
    for (let k = 0; k < 20; k++) expect<i32>(s.pick(c, 16)).toBe(1);
  });

  it("keeps a cached prefix on its endpoint when every endpoint queues (relative spans)", () => {
    const s = freshScheduler();
    c.clear();
    // A saturated cluster: the group's endpoint holds 47 of 56 chunks with 8 more waiting and 10 more in flight.
    endpoint(30, 40, 0.9, 40, 47);
    endpoint(22, 40, 0.9, 30, 0);
    for (let k = 0; k < 20; k++) expect<i32>(s.pick(c, 56)).toBe(0);
    // Spreads counted against fixed spans alone outvote the prefix and move the request off its cache.
    const absolute = freshScheduler();
    absolute.scorer("queue")!.setParam("scoring.queueRelativeSpan", 0);
    absolute.scorer("inflight")!.setParam("scoring.inflightRelativeSpan", 0);
    for (let k = 0; k < 20; k++) expect<i32>(absolute.pick(c, 56)).toBe(1);
  });

  it("sends an overloaded endpoint's cached prefix to an idle one (load guard)", () => {
    const s = freshScheduler();
    c.clear();
    // A 64-chunk prompt fully cached on a busy endpoint (load: 0 waiting + 14 in flight), against loads 1 and 0.
    const hot = endpoint(0, 10, 0.5, 14, 64);
    endpoint(1, 1, 0.5, 0, 0);
    const idle = endpoint(0, 1, 0.5, 0, 0);
    const limit = s.guardFactor * ((14.0 + 1.0 + 0.0) / 3.0) + s.guardSlack;
    expect<bool>(14.0 > limit).toBe(true);
    // Without the guard the cache alone carries the busy endpoint.
    s.guardFactor = 0;
    expect<i32>(s.pick(c, 64)).toBe(hot);
    expect<bool>(s.guarded[hot]).toBe(false);
    s.guardFactor = 1.5;
    expect<i32>(s.pick(c, 64)).toBe(idle);
    expect<bool>(s.guarded[hot]).toBe(true);
    expect<f64>(s.scorer("prefixCache")!.score[hot]).toBe(0.0);
  });

  it("lets a moderately busier endpoint with the cache win when under the bound", () => {
    const s = freshScheduler();
    c.clear();
    const cached = endpoint(0, 3, 0.3, 0, 16);
    endpoint(0, 1, 0.3, 0, 0);
    endpoint(0, 2, 0.3, 0, 0);
    expect<i32>(s.pick(c, 16)).toBe(cached);
    expect<bool>(s.guarded[cached]).toBe(false);
  });

  it("never chooses an unhealthy endpoint and returns -1 when all are", () => {
    const s = freshScheduler();
    c.clear();
    const best = endpoint(0, 0, 0, 0, 16);
    c.healthy[best] = false;
    endpoint(5, 5, 0.9, 3, 0);
    for (let k = 0; k < 20; k++) expect<i32>(s.pick(c, 16)).toBe(1);
    c.healthy[1] = false;
    expect<i32>(s.pick(c, 16)).toBe(-1);
    expect<f64>(s.total[best]).toBe(0.0);
  });

  it("gives 0 for a signal an endpoint lacks", () => {
    const s = freshScheduler();
    c.clear();
    endpoint(2, 2, 0.5, 0, 0);
    const blind = c.add(99, true, false, 0, 0, 0, false, 0, 0, LoraState.Unknown, 0, false);
    s.pick(c, 0);
    expect<f64>(s.scorer("queue")!.score[blind]).toBe(0.0);
    expect<f64>(s.scorer("kvCache")!.score[blind]).toBe(0.0);
    // its total holds only the inflight term, over the full configured weight sum
    expect<f64>(s.total[blind]).toBe((s.scorer("inflight")!.weight * 1.0) / s.weightSum());
  });

  it("breaks ties at random, reproducibly for a seed, reaching every tied endpoint", () => {
    c.clear();
    for (let i = 0; i < 5; i++) endpoint(1, 1, 0.5, 0, 0);
    const a = freshScheduler();
    const b = freshScheduler();
    const seen = new StaticArray<bool>(5);
    for (let k = 0; k < 200; k++) {
      const x = a.pick(c, 0);
      expect<i32>(b.pick(c, 0)).toBe(x);
      seen[x] = true;
    }
    for (let i = 0; i < 5; i++) expect<bool>(seen[i]).toBe(true);
  });
});

describe("Scheduler scores", () => {
  it("computes the total as the weighted sum over the configured weight sum", () => {
    const s = freshScheduler();
    s.guardFactor = 0;
    s.scorer("prefixCache")!.setParam("prefix.lambda", 0.5);
    s.scorer("prefixCache")!.setParam("prefix.lengthCreditChars", 8192);
    s.scorer("prefixCache")!.setParam("prefix.creditOfBestMatch", 2);
    s.request.chunkChars = 256;
    s.scorer("queue")!.setParam("scoring.queueSpan", 0); // plain min-max
    s.scorer("inflight")!.setParam("scoring.inflightSpan", 0);
    s.scorer("queue")!.setParam("scoring.queueRelativeSpan", 0);
    s.scorer("inflight")!.setParam("scoring.inflightRelativeSpan", 0);
    c.clear();
    endpoint(0, 0, 0.25, 1, 8);
    endpoint(4, 2, 0.75, 3, 0);
    const n = 16;
    s.pick(c, n);
    // endpoint 0: lowest queue and inflight -> 1 each; kv 1 - 0.25; prefix from its formula
    const prefix0 = 0.5 * (8.0 / 16.0) + 0.5; // the best match: the whole second term
    const sum = s.weightSum(); // the LoRA term, weighted by default, adds 0 here (no endpoint reports adapters)
    expect<f64>(s.scorer("prefixCache")!.score[0]).toBeCloseTo(prefix0);
    expect<f64>(s.total[0]).toBeCloseTo((s.scorer("queue")!.weight * 1 + s.scorer("kvCache")!.weight * 0.75 + s.scorer("prefixCache")!.weight * prefix0 + s.scorer("inflight")!.weight * 1) / sum);
    // endpoint 1 matches nothing: 8 chunks behind the best, which holds 8 chunks, it keeps 1 - 8 * 256 / min(8192, 2 * 8 * 256)
    // of the second term
    const prefix1 = 0.5 * (1 - (8.0 * 256.0) / (2.0 * 8.0 * 256.0));
    expect<f64>(s.scorer("prefixCache")!.score[1]).toBeCloseTo(prefix1);
    expect<f64>(s.total[1]).toBeCloseTo((s.scorer("queue")!.weight * 0 + s.scorer("kvCache")!.weight * 0.25 + s.scorer("prefixCache")!.weight * prefix1 + s.scorer("inflight")!.weight * 0) / sum);
    expect<i32>(s.lastPick).toBe(0);
    expect<i32>(s.scoredCount).toBe(2);
  });

  it("keeps the ranking when a zero-weight signal is added, and when weights are scaled", () => {
    let seed: u32 = 777;
    const base = freshScheduler();
    const withZero = freshScheduler();
    const scaled = freshScheduler();
    // The four load and cache terms alone (LoRA affinity, weighted by default, off).
    base.scorer("loraAffinity")!.weight = 0;
    scaled.scorer("loraAffinity")!.weight = 0;
    withZero.scorer("loraAffinity")!.weight = 0;
    withZero.scorer("failure")!.weight = 0;
    withZero.scorer("session")!.weight = 0;
    scaled.scorer("queue")!.weight *= 3;
    scaled.scorer("kvCache")!.weight *= 3;
    scaled.scorer("prefixCache")!.weight *= 3;
    scaled.scorer("inflight")!.weight *= 3;
    for (let round = 0; round < 100; round++) {
      c.clear();
      const n = 2 + <i32>(round % 10);
      for (let k = 0; k < n; k++) {
        seed = seed * 1664525 + 1013904223;
        const i = endpoint(<f64>((seed >> 8) % 6), <f64>((seed >> 12) % 9), <f64>((seed >> 16) % 100) / 100, <i32>((seed >> 20) % 4), <i32>((seed >> 24) % 9));
        c.loraState[i] = <i32>((seed >> 4) % 4) - 1;
        c.sessionMatch[i] = (seed & 1) == 1;
        c.failureEwma[i] = <f64>((seed >> 2) % 10) / 10;
      }
      base.pick(c, 8);
      // withZero sees the extra signals (lora, failure, session) but weighs them 0
      withZero.pick(c, 8);
      scaled.pick(c, 8);
      for (let i = 0; i < n; i++) {
        expect<f64>(withZero.total[i]).toBe(base.total[i]);
        expect<f64>(scaled.total[i]).toBeCloseTo(base.total[i]);
      }
      expect<i32>(withZero.lastPick).toBe(base.lastPick);
    }
  });

  it("adding a weighted signal lowers totals of candidates lacking it (fixed denominator)", () => {
    const s = freshScheduler();
    s.scorer("loraAffinity")!.weight = 0;
    c.clear();
    endpoint(1, 1, 0.5, 0, 0);
    endpoint(1, 1, 0.5, 0, 0);
    s.pick(c, 0);
    const before = s.total[0];
    s.scorer("loraAffinity")!.weight = 2;
    c.loraState[1] = LoraState.Running;
    s.pick(c, 0);
    expect<f64>(s.total[0]).toBeCloseTo((before * (s.weightSum() - 2)) / s.weightSum());
    expect<i32>(s.lastPick).toBe(1);
  });

  it("scores an unweighted signal from the first pick after scoreUnweighted is set, and no longer once it is cleared", () => {
    const s = freshScheduler();
    const lora = s.scorer("loraAffinity")!;
    lora.weight = 0;
    c.clear();
    endpoint(1, 1, 0.5, 0, 0);
    endpoint(1, 1, 0.5, 0, 0);
    c.loraState[1] = LoraState.Running;
    s.pick(c, 0);
    expect<f64>(lora.score[1]).toBe(0, "weight 0: not scored");
    s.scoreUnweighted = true;
    s.pick(c, 0);
    const running = lora.score[1];
    expect<bool>(running > 0).toBe(true, "scored once scoreUnweighted is set");
    s.scoreUnweighted = false;
    c.loraState[1] = LoraState.Unknown;
    s.pick(c, 0);
    expect<f64>(lora.score[1]).toBe(running, "not scored again once it is cleared");
  });

  it("ignores candidates past maxEndpoints", () => {
    const big = new Candidates(8);
    const s = new Scheduler(2);
    for (let i = 0; i < 3; i++) big.add(i, true, true, <f64>(2 - i), 0, 0.5, true, 0, 0, -1, 0, false);
    expect<i32>(s.pick(big, 0)).toBe(1);
    expect<i32>(s.scoredCount).toBe(2);
  });
});

describe("Scheduler KV score of a marked snapshot", () => {
  it("keeps the KV scores while the snapshot is unchanged, and scores again after exclude() or a new mark", () => {
    const s = freshScheduler();
    const kv = s.scorer("kvCache")!;
    c.clear();
    endpoint(1, 1, 0.25, 0, 0);
    endpoint(1, 1, 0.75, 0, 0);
    c.markSnapshot();
    s.pick(c, 0);
    expect<f64>(kv.score[0]).toBe(0.75);
    expect<f64>(kv.score[1]).toBe(0.25);
    // A snapshot field written behind the mark's back is not seen while the mark stands (the contract of snapshotId).
    c.kvUsage[1] = 0.5;
    s.pick(c, 0);
    expect<f64>(kv.score[1]).toBe(0.25);
    // A filter's exclude() drops the mark: the excluded candidate scores 0, the others as they read now.
    c.exclude(0);
    s.pick(c, 0);
    expect<f64>(kv.score[0]).toBe(0);
    expect<f64>(kv.score[1]).toBe(0.5);
    c.healthy[0] = true;
    c.markSnapshot();
    s.pick(c, 0);
    expect<f64>(kv.score[0]).toBe(0.75);
  });

  it("does not take another Candidates' scores for its own: snapshot ids are unique in the VM", () => {
    const s = freshScheduler();
    const kv = s.scorer("kvCache")!;
    const other = new Candidates(MAX);
    c.clear();
    endpoint(1, 1, 0.25, 0, 0);
    other.add(1, true, true, 1, 1, 0.9, true, 0, 0, LoraState.Unknown, 0, false);
    c.markSnapshot();
    other.markSnapshot();
    s.pick(c, 0);
    expect<f64>(kv.score[0]).toBe(0.75);
    s.pick(other, 0);
    expect<f64>(kv.score[0]).toBeCloseTo(0.1);
  });
});
