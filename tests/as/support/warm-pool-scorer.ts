// A hypothetical eighth signal for scheduling-new-signal.spec.ts: prefers endpoints whose slot is in a "warm
// pool" (slot below scoring.warmPoolSize). It is one file like the shipped scorers; the spec adds it to the list.
import { Candidates } from "../../../assembly/scheduling/candidates";
import { Scorer, ScorerParam, ScoringRequest } from "../../../assembly/scheduling/scorer";

export class WarmPoolScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "warmPool", "w", 0, false, false,
      [new ScorerParam("scoring.warmPoolSize", 1, 0, 4096, "endpoints whose slot is below this are warm")],
      "weight of \"the endpoint is in the warm pool\"");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    const n = c.boundedCount(this.score.length);
    const size = unchecked(this.values[0]);
    for (let i = 0; i < n; i++) {
      unchecked((this.score[i] = unchecked(c.healthy[i]) && <f64>unchecked(c.slot[i]) < size ? 1 : 0));
    }
  }
}

export function newWarmPoolScorer(capacity: i32): Scorer {
  return new WarmPoolScorer(capacity);
}
