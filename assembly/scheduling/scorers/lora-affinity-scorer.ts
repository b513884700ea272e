// The requested model is a LoRA adapter the endpoint has loaded (normalizeLora): running 1, waiting 0.5.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeLora } from "../normalize";

export class LoraAffinityScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "loraAffinity", "l", 0, false, false, [],
      "weight of \"the requested model is a loaded LoRA adapter\" (1 running, 0.5 waiting)");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizeLora(c, this.score);
  }
}

export function newLoraAffinityScorer(capacity: i32): Scorer {
  return new LoraAffinityScorer(capacity);
}
