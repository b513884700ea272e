// Session affinity (normalizeSession): 1 for the endpoint the session last used.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeSession } from "../normalize";

export class SessionScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "session", "s", 0, false, true, [],
      "weight of \"this endpoint last served the value of `session.header`\"; a positive weight without `session.header` is rejected");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizeSession(c, this.score);
  }
}

export function newSessionScorer(capacity: i32): Scorer {
  return new SessionScorer(capacity);
}
