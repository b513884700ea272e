// This worker's (or gateway's) requests in flight to the endpoint (normalizeInflight); lower is better.
import { Candidates } from "../candidates";
import { Scorer, ScorerParam, ScoringRequest } from "../scorer";
import { normalizeInflight } from "../normalize";

export class InflightScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "inflight", "i", 1, true, false,
      [new ScorerParam("scoring.inflightSpan", 4, 0, 1e6, "the same for the in-flight score"),
       new ScorerParam("scoring.inflightRelativeSpan", 16, 0, 1e6, "the same for the in-flight score, relative to the fewest requests in flight")],
      "weight of this worker's requests in flight to the endpoint (lower is better, min-max)");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizeInflight(c, this.score, unchecked(this.values[0]), unchecked(this.values[1]), request.ranges);
  }
}

export function newInflightScorer(capacity: i32): Scorer {
  return new InflightScorer(capacity);
}
