// Scheduler.pick computes the load guard's marks, the totals and the best total together; this checks it against the
// steps one at a time (markOverloaded, dropGuardedScores, the weighted sum in list order, pickBest): the same
// guard marks, bit-identical totals and the same pick, random draws included.
import { Candidates, LoraState } from "../../assembly/scheduling/candidates";
import { Scheduler } from "../../assembly/scheduling/scheduler";
import { dropGuardedScores, markOverloaded } from "../../assembly/scheduling/load-guard";
import { pickBest } from "../../assembly/scheduling/pick";
import { Rng } from "../../assembly/scheduling/rng";
import { referenceTotal } from "./support/total-reference";

const MAX = 24;
const c = new Candidates(MAX);
const guarded = new StaticArray<bool>(MAX);
const total = new StaticArray<f64>(MAX);
const loads = new StaticArray<f64>(MAX);

// Small integers make equal totals and overloaded candidates common; failure rates 1e-11 apart make totals that
// differ by less than TIE_EPSILON (ties too).
// loraStates: the LoRA state of every candidate, or -2 for a random one each.
function fill(r: Rng, n: i32, loraStates: i32 = LoraState.Unknown): void {
  c.clear();
  for (let i = 0; i < n; i++) {
    const lora = loraStates == -2 ? <i32>r.below(7) - 1 : loraStates;
    c.add(i, r.below(6) != 0, r.below(4) != 0, <f64>r.below(3), <f64>r.below(4), <f64>r.below(5) / 4.0, r.below(3) != 0,
      r.below(4) == 0 ? 6 + r.below(6) : r.below(2), r.below(3) * 4, lora,
      <f64>r.below(3) * (r.below(2) == 0 ? 0.25 : 1e-11), r.below(5) == 0);
  }
}

function checkAgainstSteps(s: Scheduler, chainLength: i32, draws: Rng): void {
  const picked = s.pick(c, chainLength);
  const n = c.count;
  const any = markOverloaded(c, s.guardFactor, s.guardSlack, guarded, loads);
  let anySeen = false;
  for (let i = 0; i < n; i++) {
    expect<bool>(s.guarded[i]).toBe(guarded[i]);
    if (guarded[i]) anySeen = true;
  }
  expect<bool>(anySeen).toBe(any);
  // The scheduler's score arrays are the scorers' scores after the guard's drop; dropping again changes nothing.
  for (let k = 0; k < s.scorers.length; k++) {
    const scorer = s.scorers[k];
    if (!scorer.yieldsToLoadGuard) continue;
    const before = new StaticArray<f64>(n);
    for (let i = 0; i < n; i++) before[i] = scorer.score[i];
    dropGuardedScores(n, guarded, scorer.score);
    for (let i = 0; i < n; i++) expect<f64>(scorer.score[i]).toBe(before[i]);
  }
  const inverseSum = 1 / s.weightSum();
  for (let i = 0; i < n; i++) {
    total[i] = referenceTotal(s, c, i, inverseSum);
    expect<u64>(reinterpret<u64>(s.total[i])).toBe(reinterpret<u64>(total[i]));
  }
  expect<i32>(picked).toBe(pickBest(c, total, draws));
}

describe("Scheduler.pick in one pass", () => {
  it("matches the separate guard, total and pick steps on random candidates", () => {
    const r = new Rng(7);
    const s = new Scheduler(MAX);
    s.seed(99);
    const draws = new Rng(99);
    for (let round = 0; round < 300; round++) {
      fill(r, 1 + r.below(MAX));
      s.guardFactor = round % 5 == 0 ? 0 : 1 + <f64>r.below(3) / 2.0;
      s.guardSlack = <f64>r.below(3);
      s.scorer("session")!.weight = round % 3 == 0 ? 1 : 0;
      s.scorer("failure")!.weight = round % 4 == 0 ? 0 : 0.5;
      // Without the load scorers the prefix score, which yields to the guard, is the first term of the sums.
      s.scorer("queue")!.weight = round % 6 == 1 ? 0 : 2;
      s.scorer("kvCache")!.weight = round % 6 == 1 ? 0 : 2;
      if (round % 2 == 1) c.deriveLanes(c.count); // the flags as lane masks (SIMD build), as the candidate fill gives them
      checkAgainstSteps(s, round % 7 == 0 ? 0 : 8, draws);
    }
  });

  it("matches them with LoRA affinity weighted, its scores the same on every candidate or not", () => {
    const r = new Rng(11);
    const s = new Scheduler(MAX);
    s.seed(5);
    const draws = new Rng(5);
    s.scorer("failure")!.weight = 0;
    s.scorer("session")!.weight = 0;
    for (let round = 0; round < 300; round++) {
      // No adapters anywhere, one state on every endpoint (a free slot everywhere), or mixed states.
      const kind = round % 3;
      fill(r, 1 + r.below(MAX), kind == 0 ? LoraState.Unknown : kind == 1 ? LoraState.CanLoad : -2);
      s.guardFactor = round % 5 == 0 ? 0 : 1 + <f64>r.below(3) / 2.0;
      s.guardSlack = <f64>r.below(3);
      s.scorer("loraAffinity")!.weight = round % 4 == 3 ? 0 : 1 + <f64>r.below(3);
      s.scorer("session")!.weight = round % 7 == 6 ? 1 : 0;
      if (round % 2 == 1) c.deriveLanes(c.count);
      checkAgainstSteps(s, round % 11 == 0 ? 0 : 8, draws);
    }
  });

  it("keeps the one-pass totals with LoRA affinity weighted while its scores cannot change the ranking", () => {
    const s = new Scheduler(MAX);
    s.scorer("failure")!.weight = 0;
    s.scorer("loraAffinity")!.weight = 1;
    const r = new Rng(3);
    s.seed(9);
    const draws = new Rng(9);
    // Without adapters (every LoRA score 0), and with a free adapter slot everywhere (every LoRA score 0.8).
    fill(r, 8, LoraState.Unknown);
    s.guardFactor = 0;
    c.deriveLanes(c.count);
    checkAgainstSteps(s, 8, draws);
    expect<bool>(s.summedInPass).toBe(ASC_FEATURE_SIMD);
    fill(r, 8, LoraState.CanLoad);
    c.deriveLanes(c.count);
    checkAgainstSteps(s, 8, draws);
    expect<bool>(s.summedInPass).toBe(ASC_FEATURE_SIMD);
    // The adapter running on one healthy endpoint: the LoRA term now ranks, so the totals take the general path.
    for (let i = 0; i < 8; i++) c.healthy[i] = true;
    c.loraState[3] = LoraState.Running;
    c.deriveLanes(c.count);
    checkAgainstSteps(s, 8, draws);
    expect<bool>(s.summedInPass).toBe(false);
  });

  it("keeps the one-pass totals with the failure score weighted while no candidate has failed", () => {
    const s = new Scheduler(MAX);
    s.scorer("session")!.weight = 0;
    s.scorer("failure")!.weight = 2;
    const r = new Rng(13);
    s.seed(21);
    const draws = new Rng(21);
    fill(r, 8, LoraState.Unknown);
    for (let i = 0; i < 8; i++) c.failureEwma[i] = 0;
    s.guardFactor = 0;
    c.deriveLanes(c.count);
    checkAgainstSteps(s, 8, draws);
    expect<bool>(s.summedInPass).toBe(ASC_FEATURE_SIMD);
    // One healthy endpoint failed lately: the failure term now ranks, so the totals take the general path.
    for (let i = 0; i < 8; i++) c.healthy[i] = true;
    c.failureEwma[5] = 0.2;
    c.deriveLanes(c.count);
    checkAgainstSteps(s, 8, draws);
    expect<bool>(s.summedInPass).toBe(false);
  });
});
