// Free KV cache (normalizeKv): 1 - usage.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeKv } from "../normalize";

export class KvCacheScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "kvCache", "kv", 2, true, false, [], "weight of free KV cache, `1 - kv_cache_usage_perc`");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizeKv(c, this.score);
  }
}

export function newKvCacheScorer(capacity: i32): Scorer {
  return new KvCacheScorer(capacity);
}
