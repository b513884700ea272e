// Scheduler.deferScores: a pick whose one pass sums the totals may leave the queue, in-flight and prefix scores
// unwritten (scoresPending) and fillScores() writes them afterwards. This checks a deferring scheduler against an eager
// one on the same random candidates: the same pick, guard marks and totals, and after fillScores every score the same
// to the bit (the queue, in-flight and prefix scores as normalizeQueue, normalizeInflight and normalizePrefix give
// them on their own), with no, one or two constant terms (LoRA affinity and failure weighted, their scores the same on every
// candidate or not), the load guard on and off, and the flags as lane masks or not.
import { Candidates, LoraState } from "../../assembly/scheduling/candidates";
import { normalizeInflight, normalizePrefix, normalizeQueue } from "../../assembly/scheduling/normalize";
import { Rng } from "../../assembly/scheduling/rng";
import { Scheduler } from "../../assembly/scheduling/scheduler";
import { effectiveWeight } from "../../assembly/scheduling/scoring-settings";
import { candidateScores } from "../../assembly/picker/debug-header";

const MAX = 37;
const c = new Candidates(MAX);
const out = new StaticArray<f64>(MAX);

function oddValue(r: Rng): f64 {
  switch (r.below(10)) {
    case 0: return NaN;
    case 1: return -1;
    case 2: return Infinity;
    case 3: return 0.25 * <f64>r.below(9);
    default: return <f64>r.below(5);
  }
}

// lora: the LoRA state of every candidate, or -2 for a random one each; failures: whether failure rates vary.
function fill(r: Rng, n: i32, lora: i32, failures: bool): void {
  c.clear();
  for (let i = 0; i < n; i++) {
    c.add(i, r.below(5) != 0, r.below(4) != 0, oddValue(r), 0, <f64>r.below(5) / 4.0, r.below(3) != 0,
      r.below(6) == 0 ? -1 : <i32>r.below(6), r.below(6) == 0 ? -1 : <i32>r.below(12),
      lora == -2 ? <i32>r.below(7) - 1 : lora, failures ? <f64>r.below(3) * 0.25 : 0, false);
  }
}

function expectSameBits(what: string, round: i32, i: i32, got: f64, want: f64): void {
  if (reinterpret<u64>(got) != reinterpret<u64>(want)) {
    trace(what + " differs: round, candidate, got, expected", 4, <f64>round, <f64>i, got, want);
    expect<u64>(reinterpret<u64>(got)).toBe(reinterpret<u64>(want));
  }
}

function setWeight(eager: Scheduler, deferring: Scheduler, name: string, w: f64): void {
  eager.scorer(name)!.weight = w;
  deferring.scorer(name)!.weight = w;
}

describe("deferred scores", () => {
  it("are the eager ones after fillScores, with the same picks and totals", () => {
    const r = new Rng(0xdef);
    const eager = new Scheduler(MAX);
    const deferring = new Scheduler(MAX);
    deferring.deferScores = true;
    eager.seed(17);
    deferring.seed(17);
    let pendingRounds = 0;
    for (let round = 0; round < 1500; round++) {
      const constants = round % 3; // LoRA weighted from 1, failure too at 2
      setWeight(eager, deferring, "loraAffinity", constants >= 1 ? 1 + <f64>r.below(3) : 0);
      setWeight(eager, deferring, "failure", constants == 2 ? 0.5 : 0);
      const kind = r.below(4);
      fill(r, <i32>r.below(MAX + 1), kind == 0 ? -2 : kind == 1 ? LoraState.CanLoad : LoraState.Unknown, r.below(5) == 0);
      const factor = r.below(3) == 0 ? 1 + <f64>r.below(3) / 2.0 : 0;
      eager.guardFactor = factor;
      deferring.guardFactor = factor;
      const chain = r.below(6) == 0 ? 0 : 1 + <i32>r.below(14);
      const lanes = r.below(4) != 0;
      const n = c.count;

      if (lanes) c.deriveLanes(n);
      const expected = eager.pick(c, chain);
      expect<bool>(eager.scoresPending).toBe(false);
      if (lanes) c.deriveLanes(n); // a pick leaves the lane masks stale
      const picked = deferring.pick(c, chain);
      expect<i32>(picked).toBe(expected);
      expect<bool>(deferring.scoresPending).toBe(deferring.summedInPass);
      if (deferring.scoresPending) pendingRounds++;
      for (let i = 0; i < n; i++) {
        expect<bool>(deferring.guarded[i]).toBe(eager.guarded[i]);
        expectSameBits("total", round, i, deferring.total[i], eager.total[i]);
      }

      deferring.fillScores(c);
      expect<bool>(deferring.scoresPending).toBe(false);
      const queue = deferring.scorer("queue")!;
      normalizeQueue(c, out, queue.values[0], queue.values[1]);
      for (let i = 0; i < n; i++) expectSameBits("queue", round, i, queue.score[i], out[i]);
      const inflight = deferring.scorer("inflight")!;
      normalizeInflight(c, out, inflight.values[0], inflight.values[1]);
      for (let i = 0; i < n; i++) expectSameBits("inflight", round, i, inflight.score[i], out[i]);
      const prefix = deferring.scorer("prefixCache")!;
      normalizePrefix(c, chain, deferring.request.chunkChars, prefix.values[0], prefix.values[1], out, null, prefix.values[2]);
      // The guard zeroes a guarded candidate's prefix score.
      for (let i = 0; i < n; i++) expectSameBits("prefix", round, i, prefix.score[i], deferring.guarded[i] ? 0 : out[i]);
      for (let k = 0; k < eager.scorers.length; k++) {
        const scorer = eager.scorers[k];
        if (!(effectiveWeight(scorer.weight) > 0) && !scorer.alwaysShown) continue;
        for (let i = 0; i < n; i++) expectSameBits(scorer.name, round, i, deferring.scorers[k].score[i], scorer.score[i]);
      }
    }
    // The SIMD build's one pass sums the totals whenever no candidate is guarded and the constant terms are uniform.
    if (ASC_FEATURE_SIMD) expect<bool>(pendingRounds > 300).toBe(true);
    else expect<i32>(pendingRounds).toBe(0);
  });

  it("leave nothing for fillScores to write when the pick wrote them", () => {
    const r = new Rng(5);
    const s = new Scheduler(MAX);
    s.deferScores = true;
    fill(r, 9, LoraState.Unknown, false);
    s.guardFactor = 0;
    c.deriveLanes(c.count);
    s.pick(c, 6);
    expect<bool>(s.scoresPending).toBe(ASC_FEATURE_SIMD);
    // Guarded candidates take the general path, which writes every score.
    s.guardFactor = 1;
    s.guardSlack = 0;
    c.waiting[0] = 1000;
    c.hasMetrics[0] = true;
    c.healthy[0] = true;
    c.deriveLanes(c.count);
    s.pick(c, 6);
    expect<bool>(s.guarded[0]).toBe(true);
    expect<bool>(s.scoresPending).toBe(false);
  });
});

describe("the debug header's scores", () => {
  it("are the eager ones after a deferring pick (the header writes the pending scores first)", () => {
    const r = new Rng(0xd3b);
    const eager = new Scheduler(MAX);
    const deferring = new Scheduler(MAX);
    deferring.deferScores = true;
    let pendingRounds = 0;
    for (let round = 0; round < 200; round++) {
      fill(r, 2 + <i32>r.below(MAX - 1), LoraState.Unknown, false);
      const n = c.count;
      const chain = 1 + <i32>r.below(14);
      c.deriveLanes(n);
      eager.pick(c, chain);
      c.deriveLanes(n);
      deferring.pick(c, chain);
      if (deferring.scoresPending) pendingRounds++;
      for (let i = 0; i < n; i++) {
        if (!c.healthy[i]) continue;
        const want = candidateScores(eager, c, i);
        expect<string>(candidateScores(deferring, c, i)).toBe(want, "round " + round.toString());
      }
    }
    if (ASC_FEATURE_SIMD) expect<bool>(pendingRounds > 50).toBe(true);
  });
});
