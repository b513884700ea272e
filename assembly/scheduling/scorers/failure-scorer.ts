// Recent success (normalizeFailure): 1 - the endpoint's failure EWMA. Where no candidate has failed lately its scores
// are the same on every endpoint: it cannot move a pick, and the scheduler's fused pass adds it as a constant.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeFailure } from "../normalize";

export class FailureScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "failure", "f", 0, false, false, [], "weight of `1 - EWMA(failed)`: a 5xx, an upstream reset or timeout that cut the response, or another host answering (a retry); a client leaving before the response is not counted");
  }

  // The snapshot and count the scores were last computed for with every rate 0: then they read the snapshot's health
  // alone (Candidates.snapshotId), and hold while it does and the rates stay 0.
  private clearSnapshot: u32 = 0;
  private clearCount: i32 = -1;

  scoreAll(c: Candidates, request: ScoringRequest): void {
    const n = c.boundedCount(this.score.length);
    const none = c.noFailureRates && c.snapshotId != 0;
    if (none && c.snapshotId == this.clearSnapshot && n == this.clearCount) return;
    this.uniformScore = normalizeFailure(c, this.score);
    this.clearSnapshot = none ? c.snapshotId : 0;
    this.clearCount = none ? n : -1;
  }
}

export function newFailureScorer(capacity: i32): Scorer {
  return new FailureScorer(capacity);
}
