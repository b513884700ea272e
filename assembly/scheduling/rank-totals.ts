// The ranking's end, shared by totalScores (score.ts) and the fused load-and-prefix pass (normalize.ts): the best
// healthy total, its first candidate and the highest total besides it, as pick.ts reads the totals.
import { Candidates } from "./candidates";
import { highestLane } from "./lane-masks";

/** What a ranking found besides the totals. */
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

/** Two candidates' totals (SIMD build): their sums scaled, stored at `at` (0 where unhealthy), and returned as the
 *  ranking reads them (-Infinity where unhealthy or NaN: a NaN never counts). */
// @ts-ignore: decorator
@inline
export function scaledTotalsPair(sum: v128, scale: v128, ok: v128, at: usize): v128 {
  const t = v128.and(f64x2.mul(sum, scale), ok);
  v128.store(at, t);
  return v128.bitselect(t, f64x2.splat(-Infinity), v128.and(ok, f64x2.eq(t, t)));
}

/** Ends a ranking's two-candidates-per-step part (SIMD build), which ranked the candidates below `end` and kept in
 *  top and next each lane's two highest healthy totals (-Infinity for none): writes the best, its first index and the
 *  highest besides it into summary (NaN, -1 and -Infinity when no candidate was ranked). */
// @ts-ignore: decorator
@inline
export function rankPairsEnd(
  c: Candidates, total: StaticArray<f64>, end: i32, top: v128, next: v128, summary: TotalsSummary,
): void {
  const top0 = f64x2.extract_lane(top, 0);
  const top1 = f64x2.extract_lane(top, 1);
  const highest = max<f64>(top0, top1);
  if (highest > -Infinity) {
    summary.best = highest;
    summary.secondBest = max<f64>(min<f64>(top0, top1), highestLane(next));
    summary.bestIndex = firstHealthyAt(c.healthy, total, end, highest);
  } else {
    summary.best = NaN;
    summary.secondBest = -Infinity;
    summary.bestIndex = -1;
  }
}

/** Ranks candidates from..n one at a time after rankPairsEnd (or from 0 with summary's best NaN, index -1, second
 *  -Infinity): their totals, unscaled sums in total, are scaled by inverseSum (0 without terms; 0 when unhealthy). */
export function rankRest(
  c: Candidates, total: StaticArray<f64>, from: i32, n: i32, anyTerms: bool, inverseSum: f64, summary: TotalsSummary,
): void {
  const healthy = c.healthy;
  let best = summary.best;
  let bestIndex = summary.bestIndex;
  let second = summary.secondBest;
  let found = bestIndex >= 0;
  for (let i = from; i < n; i++) {
    if (!unchecked(healthy[i])) {
      unchecked((total[i] = 0));
      continue;
    }
    const t = anyTerms ? unchecked(total[i]) * inverseSum : 0;
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
}

// The first healthy candidate below `end` whose total is `value` (one is).
function firstHealthyAt(healthy: StaticArray<bool>, total: StaticArray<f64>, end: i32, value: f64): i32 {
  for (let i = 0; i < end; i++) if (unchecked(total[i]) == value && unchecked(healthy[i])) return i;
  return -1;
}
