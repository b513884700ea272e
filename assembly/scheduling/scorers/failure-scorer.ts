// Recent success (normalizeFailure): 1 - the endpoint's failure EWMA.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeFailure } from "../normalize";

export class FailureScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "failure", "f", 0, false, false, [], "weight of `1 - EWMA(failed)`: a 5xx, an upstream reset or timeout that cut the response, or another host answering (a retry); a client leaving before the response is not counted");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizeFailure(c, this.score);
  }
}

export function newFailureScorer(capacity: i32): Scorer {
  return new FailureScorer(capacity);
}
