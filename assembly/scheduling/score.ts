// Weighted total per candidate: sum over scorers of w_s * score_s / (configured weight sum). The denominator is
// fixed, so a signal a candidate lacks (score 0) lowers its total instead of being averaged away. Terms are added
// in scorer-list order; an unweighted scorer would add +0, so skipping it leaves every total bit-identical.
// Unhealthy candidates get 0 (pick.ts never chooses them anyway).
import { Candidates } from "./candidates";
import { Scorer } from "./scorer";
import { effectiveWeight } from "./scoring-settings";

export function totalScores(c: Candidates, scorers: Array<Scorer>, weightSum: f64, total: StaticArray<f64>): void {
  const n = c.boundedCount(total.length);
  let last = -1;
  if (weightSum > 0) {
    for (let k = 0; k < scorers.length; k++) {
      const scorer = unchecked(scorers[k]);
      if (effectiveWeight(scorer.weight) > 0 && scorer.score.length >= n) last = k;
    }
  }
  if (last < 0) {
    for (let i = 0; i < n; i++) unchecked((total[i] = 0));
    return;
  }
  // The first term is stored, later ones added, and the last pass also divides by the weight sum.
  let first = true;
  for (let k = 0; k < last; k++) {
    const scorer = unchecked(scorers[k]);
    const w = effectiveWeight(scorer.weight);
    const score = scorer.score;
    if (w == 0 || score.length < n) continue;
    if (first) {
      for (let i = 0; i < n; i++) unchecked((total[i] = w * unchecked(score[i])));
      first = false;
    } else {
      for (let i = 0; i < n; i++) unchecked((total[i] += w * unchecked(score[i])));
    }
  }
  const lastScorer = unchecked(scorers[last]);
  const w = effectiveWeight(lastScorer.weight);
  const score = lastScorer.score;
  const inverseSum = 1 / weightSum;
  for (let i = 0; i < n; i++) {
    const t = first ? w * unchecked(score[i]) : unchecked(total[i]) + w * unchecked(score[i]);
    unchecked((total[i] = unchecked(c.healthy[i]) ? t * inverseSum : 0));
  }
}
