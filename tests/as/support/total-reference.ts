// The totals' formula written out for the scheduling specs: the weighted terms summed in the scorers' order, scaled
// by the inverse of the weights' sum, zero for an unhealthy candidate. The scheduler's fused passes must match it
// bit for bit.
import { Candidates } from "../../../assembly/scheduling/candidates";
import { Scheduler } from "../../../assembly/scheduling/scheduler";
import { effectiveWeight } from "../../../assembly/scheduling/scoring-settings";

export function referenceTotal(s: Scheduler, c: Candidates, i: i32, inverseSum: f64): f64 {
  let t: f64 = 0;
  let first = true;
  for (let k = 0; k < s.scorers.length; k++) {
    const w = effectiveWeight(s.scorers[k].weight);
    if (w <= 0) continue;
    const term = w * s.scorers[k].score[i];
    t = first ? term : t + term;
    first = false;
  }
  return c.healthy[i] ? t * inverseSum : 0;
}
