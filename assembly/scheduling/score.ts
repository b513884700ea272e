// Weighted total per candidate: sum over scorers of w_s * score_s / (configured weight sum). The denominator is
// fixed, so a signal a candidate lacks (score 0) lowers its total instead of being averaged away. Terms are added
// in scorer-list order; an unweighted scorer would add +0, so skipping it leaves every total bit-identical.
// Unhealthy candidates get 0 (pick.ts never chooses them anyway).
import { Candidates } from "./candidates";
import { Scorer } from "./scorer";
import { effectiveWeight } from "./scoring-settings";

/**
 * termScores and termWeights are caller-owned scratch with room for one entry per scorer: the weighted scorers'
 * score arrays and weights, so each total is summed in one pass over the candidates (the same operations in the
 * same order as summing scorer by scorer).
 */
export function totalScores(
  c: Candidates, scorers: Array<Scorer>, weightSum: f64, total: StaticArray<f64>,
  termScores: StaticArray<usize>, termWeights: StaticArray<f64>,
): void {
  const n = c.boundedCount(total.length);
  let terms = 0;
  if (weightSum > 0) {
    const room = min<i32>(termScores.length, termWeights.length);
    for (let k = 0; k < scorers.length && terms < room; k++) {
      const scorer = unchecked(scorers[k]);
      const w = effectiveWeight(scorer.weight);
      if (w > 0 && scorer.score.length >= n) {
        unchecked((termScores[terms] = changetype<usize>(scorer.score)));
        unchecked((termWeights[terms] = w));
        terms++;
      }
    }
  }
  if (terms == 0) {
    for (let i = 0; i < n; i++) unchecked((total[i] = 0));
    return;
  }
  const healthy = c.healthy;
  const firstScore = unchecked(termScores[0]);
  const firstWeight = unchecked(termWeights[0]);
  const inverseSum = 1 / weightSum;
  for (let i = 0; i < n; i++) {
    const offset = <usize>i << alignof<f64>();
    let t = firstWeight * load<f64>(firstScore + offset);
    for (let k = 1; k < terms; k++) t += unchecked(termWeights[k]) * load<f64>(unchecked(termScores[k]) + offset);
    unchecked((total[i] = unchecked(healthy[i]) ? t * inverseSum : 0));
  }
}
