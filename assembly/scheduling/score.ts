// Weighted total per candidate: sum over scorers of w_s * score_s / (configured weight sum). The denominator is
// fixed, so a signal a candidate lacks (score 0) lowers its total instead of being averaged away. Terms are added
// in scorer-list order; a scorer with weight 0 is left out (adding 0 · score would make a NaN or infinite score count).
// Unhealthy candidates get 0 (pick.ts never chooses them anyway).
import { Candidates } from "./candidates";
import { Scorer } from "./scorer";
import { effectiveWeight } from "./scoring-settings";
import { isOverloaded } from "./load-guard";
import { currentLanes, flagLanes64 } from "./lane-masks";
import { TotalsSummary, rankPairsEnd, rankRest, scaledTotalsPair } from "./rank-totals";
import { fourTerms, fourTermsPair } from "./four-terms";

/**
 * Writes the totals and the load guard's marks and writes into summary the best healthy total (pick.ts's
 * pickAmongBest takes it) and whether any candidate was guarded. A candidate whose load exceeds guardLimit
 * (load-guard.ts overloadLimit) is marked in guarded and its total leaves out the terms of the scorers that
 * yield to the guard, as if their scores were 0; the scheduler zeroes those scores afterwards for the debug
 * header. termScores, termWeights and termYields are caller-owned scratch with room for one entry per scorer.
 *
 * The terms are added one scorer at a time over all candidates (a straight loop each, two candidates per SIMD
 * step; the first four in one loop while none is guarded, in the ranking loop when there are just four), not one
 * candidate at a time over the scorers: the same
 * additions in the same order, so the same totals to the bit, at a fraction of the cost for hundreds of endpoints.
 */
export function totalScores(
  c: Candidates, scorers: Array<Scorer>, weightSum: f64, total: StaticArray<f64>,
  guardLimit: f64, guarded: StaticArray<bool>,
  termScores: StaticArray<usize>, termWeights: StaticArray<f64>, termYields: StaticArray<bool>,
  summary: TotalsSummary,
): void {
  const n = c.boundedCount(min<i32>(total.length, guarded.length));
  let terms = 0;
  if (weightSum > 0) {
    const room = min<i32>(termScores.length, min<i32>(termWeights.length, termYields.length));
    for (let k = 0; k < scorers.length && terms < room; k++) {
      const scorer = unchecked(scorers[k]);
      const w = effectiveWeight(scorer.weight);
      if (w > 0 && scorer.score.length >= n) {
        unchecked((termScores[terms] = changetype<usize>(scorer.score)));
        unchecked((termWeights[terms] = w));
        unchecked((termYields[terms] = scorer.yieldsToLoadGuard));
        terms++;
      }
    }
  }
  const healthy = c.healthy;
  const anyGuarded = markGuarded(c, n, guardLimit, guarded);
  const sums = changetype<usize>(total);
  // Four terms and no guard (the default weights): the SIMD build sums them in the ranking pass below.
  const fourInRanking = ASC_FEATURE_SIMD && !anyGuarded && terms == 4;
  let k = 0;
  if (fourInRanking) {
    k = 4;
  } else if (!anyGuarded && terms >= 4) {
    setFourTerms(sums, n,
      unchecked(termScores[0]), unchecked(termWeights[0]), unchecked(termScores[1]), unchecked(termWeights[1]),
      unchecked(termScores[2]), unchecked(termWeights[2]), unchecked(termScores[3]), unchecked(termWeights[3]));
    k = 4;
  }
  for (; k < terms; k++) {
    const scores = unchecked(termScores[k]);
    const w = unchecked(termWeights[k]);
    if (anyGuarded && unchecked(termYields[k])) addGuardedTerm(sums, scores, w, guarded, n, k == 0);
    else if (k == 0) setTerm(sums, scores, w, n);
    else addTerm(sums, scores, w, n);
  }
  const inverseSum = 1 / weightSum; // read only when terms > 0, which needs weightSum > 0
  summary.best = NaN;
  summary.bestIndex = -1;
  summary.secondBest = -Infinity;
  let i = 0;
  if (ASC_FEATURE_SIMD && terms > 0) {
    // Two candidates per step: each lane keeps its two highest healthy totals, which together hold the best and the
    // highest besides it (the second best counts a total equal to the best); the best's first index is found after.
    const scale = f64x2.splat(inverseSum);
    const none = f64x2.splat(-Infinity);
    let top = none;
    let next = none;
    const healthyLanes = currentLanes(c, c.healthyLanes);
    if (fourInRanking) {
      const s0 = unchecked(termScores[0]);
      const s1 = unchecked(termScores[1]);
      const s2 = unchecked(termScores[2]);
      const s3 = unchecked(termScores[3]);
      const v0 = f64x2.splat(unchecked(termWeights[0]));
      const v1 = f64x2.splat(unchecked(termWeights[1]));
      const v2 = f64x2.splat(unchecked(termWeights[2]));
      const v3 = f64x2.splat(unchecked(termWeights[3]));
      for (; i + 2 <= n; i += 2) {
        const from = <usize>i << 3;
        const sum = fourTermsPair(v0, v128.load(s0 + from), v1, v128.load(s1 + from), v2, v128.load(s2 + from),
          v3, v128.load(s3 + from));
        const ok = flagLanes64(healthyLanes, changetype<usize>(healthy), i);
        const x = scaledTotalsPair(sum, scale, ok, sums + from);
        next = f64x2.pmax(next, f64x2.pmin(top, x));
        top = f64x2.pmax(top, x);
      }
      if (i < n) {
        // The odd last candidate's sum, for the scalar pass below.
        const from = <usize>i << 3;
        setFourTerms(sums + from, n - i, s0 + from, unchecked(termWeights[0]), s1 + from, unchecked(termWeights[1]),
          s2 + from, unchecked(termWeights[2]), s3 + from, unchecked(termWeights[3]));
      }
    } else {
      for (; i + 2 <= n; i += 2) {
        const at = sums + (<usize>i << 3);
        const ok = flagLanes64(healthyLanes, changetype<usize>(healthy), i);
        const x = scaledTotalsPair(v128.load(at), scale, ok, at);
        next = f64x2.pmax(next, f64x2.pmin(top, x));
        top = f64x2.pmax(top, x);
      }
    }
    rankPairsEnd(c, total, i, top, next, summary);
  }
  rankRest(c, total, i, n, terms > 0, inverseSum, summary);
  summary.anyGuarded = anyGuarded;
}

// guarded[i] = candidate i is healthy and loaded above limit (none when limit is Infinity); true when any is.
function markGuarded(c: Candidates, n: i32, limit: f64, guarded: StaticArray<bool>): bool {
  if (limit == Infinity) {
    memory.fill(changetype<usize>(guarded), 0, <usize>n);
    return false;
  }
  const healthy = c.healthy;
  let any = false;
  for (let i = 0; i < n; i++) {
    const g = unchecked(healthy[i]) && isOverloaded(c, i, limit);
    unchecked((guarded[i] = g));
    any = any || g;
  }
  return any;
}

// sums[i] = w * scores[i].
function setTerm(sums: usize, scores: usize, w: f64, n: i32): void {
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const wv = f64x2.splat(w);
    for (; i + 2 <= n; i += 2) {
      const at = <usize>i << 3;
      v128.store(sums + at, f64x2.mul(wv, v128.load(scores + at)));
    }
  }
  for (; i < n; i++) {
    const at = <usize>i << 3;
    store<f64>(sums + at, w * load<f64>(scores + at));
  }
}

// sums[i] += w * scores[i].
function addTerm(sums: usize, scores: usize, w: f64, n: i32): void {
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const wv = f64x2.splat(w);
    for (; i + 2 <= n; i += 2) {
      const at = <usize>i << 3;
      v128.store(sums + at, f64x2.add(v128.load(sums + at), f64x2.mul(wv, v128.load(scores + at))));
    }
  }
  for (; i < n; i++) {
    const at = <usize>i << 3;
    store<f64>(sums + at, load<f64>(sums + at) + w * load<f64>(scores + at));
  }
}

// The first four terms in one pass: sums[i] = w0 * s0[i] + w1 * s1[i] + w2 * s2[i] + w3 * s3[i], added left to right
// as setTerm and three addTerm passes would.
function setFourTerms(
  sums: usize, n: i32, s0: usize, w0: f64, s1: usize, w1: f64, s2: usize, w2: f64, s3: usize, w3: f64,
): void {
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const v0 = f64x2.splat(w0);
    const v1 = f64x2.splat(w1);
    const v2 = f64x2.splat(w2);
    const v3 = f64x2.splat(w3);
    for (; i + 2 <= n; i += 2) {
      const at = <usize>i << 3;
      v128.store(sums + at, fourTermsPair(v0, v128.load(s0 + at), v1, v128.load(s1 + at), v2, v128.load(s2 + at),
        v3, v128.load(s3 + at)));
    }
  }
  for (; i < n; i++) {
    const at = <usize>i << 3;
    store<f64>(sums + at, fourTerms(w0, load<f64>(s0 + at), w1, load<f64>(s1 + at), w2, load<f64>(s2 + at),
      w3, load<f64>(s3 + at)));
  }
}

// A term that yields to the load guard, with some candidate guarded: a guarded candidate's sum is left as it is
// (or starts at 0 for the first term), as if it had not been added.
function addGuardedTerm(sums: usize, scores: usize, w: f64, guarded: StaticArray<bool>, n: i32, first: bool): void {
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 3;
    const before: f64 = first ? 0 : load<f64>(sums + at);
    store<f64>(sums + at, unchecked(guarded[i]) ? before : (first ? w * load<f64>(scores + at) : before + w * load<f64>(scores + at)));
  }
}
