// Weighted total per candidate: sum over scorers of w_s * score_s / (configured weight sum). The denominator is
// fixed, so a signal a candidate lacks (score 0) lowers its total instead of being averaged away. Terms are added
// in scorer-list order; an unweighted scorer would add +0, so skipping it leaves every total bit-identical.
// Unhealthy candidates get 0 (pick.ts never chooses them anyway).
import { Candidates } from "./candidates";
import { Scorer } from "./scorer";
import { effectiveWeight } from "./scoring-settings";

export function totalScores(c: Candidates, scorers: Array<Scorer>, weightSum: f64, total: StaticArray<f64>): void {
  const n = c.boundedCount(total.length);
  for (let i = 0; i < n; i++) unchecked((total[i] = 0));
  if (!(weightSum > 0)) return;
  for (let k = 0; k < scorers.length; k++) {
    const scorer = unchecked(scorers[k]);
    const w = effectiveWeight(scorer.weight);
    if (w == 0) continue;
    const score = scorer.score;
    const m = min<i32>(n, score.length);
    for (let i = 0; i < m; i++) unchecked((total[i] += w * unchecked(score[i])));
  }
  const inverseSum = 1 / weightSum;
  for (let i = 0; i < n; i++) unchecked((total[i] = unchecked(c.healthy[i]) ? unchecked(total[i]) * inverseSum : 0));
}
