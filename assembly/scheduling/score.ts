// Weighted total per candidate: sum over scorers of w_s * score_s / (configured weight sum). The denominator is
// fixed, so a signal a candidate lacks (score 0) lowers its total instead of being averaged away. Terms are added
// in scorer-list order; an unweighted scorer would add +0, so skipping it leaves every total bit-identical.
// Unhealthy candidates get 0 (pick.ts never chooses them anyway).
import { Candidates } from "./candidates";
import { Scorer } from "./scorer";
import { effectiveWeight } from "./scoring-settings";
import { isOverloaded } from "./load-guard";

/** What totalScores found besides the totals. */
export class TotalsSummary {
  /** The best healthy total; NaN when no candidate is healthy. */
  best: f64 = NaN;
  /** The first candidate with the best total (-1 when none is healthy). */
  bestIndex: i32 = -1;
  /** The highest healthy total besides that candidate's (-Infinity when there is none): when it is below
   *  best - TIE_EPSILON, bestIndex has no tie and is the pick. */
  secondBest: f64 = -Infinity;
  /** Whether the load guard marked any candidate. */
  anyGuarded: bool = false;
}

/**
 * Writes the totals and the load guard's marks in one pass over the candidates and writes into summary the
 * best healthy total (pick.ts's pickAmongBest takes it) and whether any candidate was guarded. A candidate whose load exceeds guardLimit
 * (load-guard.ts overloadLimit) is marked in guarded and its total leaves out the terms of the scorers that
 * yield to the guard, as if their scores were 0 (the same sum: w * 0 adds +0); the scheduler zeroes those scores
 * afterwards for the debug header. termScores, termWeights and termYields are caller-owned scratch with room for
 * one entry per scorer.
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
  const guardOn = guardLimit != Infinity;
  const inverseSum = 1 / weightSum; // read only when terms > 0, which needs weightSum > 0
  let best: f64 = NaN;
  let bestIndex = -1;
  let second: f64 = -Infinity;
  let found = false;
  let anyGuarded = false;
  for (let i = 0; i < n; i++) {
    const ok = unchecked(healthy[i]);
    const g = guardOn && ok && isOverloaded(c, i, guardLimit);
    unchecked((guarded[i] = g));
    anyGuarded = anyGuarded || g;
    if (!ok) {
      unchecked((total[i] = 0));
      continue;
    }
    const t = terms > 0 ? weightedSum(i, g, terms, termScores, termWeights, termYields) * inverseSum : 0;
    unchecked((total[i] = t));
    // As pick.ts reads the totals: the first non-NaN healthy total, then any greater one.
    if (t != t) continue;
    if (t > best || !found) {
      if (found) second = best;
      best = t;
      bestIndex = i;
      found = true;
    } else if (t > second) {
      second = t;
    }
  }
  summary.best = best;
  summary.bestIndex = bestIndex;
  summary.secondBest = second;
  summary.anyGuarded = anyGuarded;
}

// Candidate i's terms summed in list order (terms >= 1); a guarded candidate's yielding terms count as 0.
// @ts-ignore: decorator
@inline
function weightedSum(
  i: i32, guarded: bool, terms: i32,
  termScores: StaticArray<usize>, termWeights: StaticArray<f64>, termYields: StaticArray<bool>,
): f64 {
  const offset = <usize>i << alignof<f64>();
  let t: f64 = guarded && unchecked(termYields[0]) ? 0 : unchecked(termWeights[0]) * load<f64>(unchecked(termScores[0]) + offset);
  for (let k = 1; k < terms; k++) {
    if (guarded && unchecked(termYields[k])) continue;
    t += unchecked(termWeights[k]) * load<f64>(unchecked(termScores[k]) + offset);
  }
  return t;
}
