// The requested LoRA adapter on the endpoint (normalizeLora): running 1, likely still loaded 0.9, a free slot to load
// it 0.8, a slot by evicting an adapter that ran last 0.5, queued 0.5.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeLora } from "../normalize";

export class LoraAffinityScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "loraAffinity", "l", 0, false, false, [],
      "weight of LoRA affinity: the requested adapter running 1, likely still loaded (among those the endpoint ran last) 0.9, a free adapter slot to load it 0.8 (also for a model no endpoint lists), a slot only by evicting an adapter the endpoint ran last 0.5, only queued 0.5, else 0");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizeLora(c, this.score);
  }
}

export function newLoraAffinityScorer(capacity: i32): Scorer {
  return new LoraAffinityScorer(capacity);
}
