// Free KV cache (normalizeKv): 1 - usage. It changes with the endpoint snapshot only, so it is kept between requests
// on the same snapshot.
import { Candidates } from "../candidates";
import { Scorer, ScoringRequest } from "../scorer";
import { normalizeKv } from "../normalize";

export class KvCacheScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "kvCache", "kv", 2, true, false, [], "weight of free KV cache, `1 - kv_cache_usage_perc`");
  }

  // The snapshot and count the scores were computed for: the score reads snapshot fields only (Candidates.snapshotId).
  private scoredSnapshot: u32 = 0;
  private scoredCount: i32 = -1;

  scoreAll(c: Candidates, request: ScoringRequest): void {
    const n = c.boundedCount(this.score.length);
    if (c.snapshotId != 0 && c.snapshotId == this.scoredSnapshot && n == this.scoredCount) return;
    normalizeKv(c, this.score);
    this.scoredSnapshot = c.snapshotId;
    this.scoredCount = n;
  }
}

export function newKvCacheScorer(capacity: i32): Scorer {
  return new KvCacheScorer(capacity);
}
