// The requested LoRA adapter on the endpoint (normalizeLora): running 1, likely still loaded 0.9, a free slot to load
// it 0.8, a slot by evicting an adapter that ran last 0.5, queued 0.5; the base model, or no LoRA reported, 0. On by
// default (1): where its scores are the same on every endpoint (no adapters anywhere, or a base-model request) it
// cannot move a pick, and the scheduler's fused pass adds it as a constant.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeLora } from "../normalize";

export class LoraAffinityScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "loraAffinity", "l", 1, false, false, [],
      "weight of LoRA affinity: the requested adapter running 1, likely still loaded (among those the endpoint ran last) 0.9, a free adapter slot to load it 0.8 (also for an adapter no endpoint lists), a slot only by evicting an adapter the endpoint ran last 0.5, only queued 0.5, else 0; the model an endpoint serves (its `model_name`) takes no adapter slot and scores 0 there, as on an endpoint without LoRA");
  }

  // The snapshot and count the scores were computed for: the score reads snapshot fields only (Candidates.snapshotId),
  // so without adapters on any endpoint a request costs one compare here and the fused four-term pass goes on.
  private scoredSnapshot: u32 = 0;
  private scoredCount: i32 = -1;

  scoreAll(c: Candidates, request: ScoringRequest): void {
    const n = c.boundedCount(this.score.length);
    if (c.snapshotId != 0 && c.snapshotId == this.scoredSnapshot && n == this.scoredCount) return;
    this.uniformScore = normalizeLora(c, this.score);
    this.scoredSnapshot = c.snapshotId;
    this.scoredCount = n;
  }
}

export function newLoraAffinityScorer(capacity: i32): Scorer {
  return new LoraAffinityScorer(capacity);
}
