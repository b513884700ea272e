// Notices that an endpoint's engine restarted, from its cumulative prefix-cache counters (vLLM's
// prefix_cache_queries_total / prefix_cache_hits_total, SGLang's prompt_tokens_total / cached_tokens_total): a
// counter that goes backwards belongs to a new process with an empty KV cache, so nothing the index remembers for
// the endpoint is there any more. The address, and so the registry slot, is the same across the restart; only the
// counters tell. One low reading is not believed alone: a page missing some series (one data-parallel engine's, or
// cut short) reads low once, and a stock Envoy worker may read that same page again; a later reading that is low
// too confirms the restart, dated from the first (as cache-horizon.ts judges a drop).
import { EndpointMetrics } from "../endpoints/endpoint-metrics";

export class RestartDetector {
  private readonly lastQueries: StaticArray<f64>;
  private readonly lastHits: StaticArray<f64>;
  private readonly seen: StaticArray<bool>;
  /** When each slot's engine was last seen restarting (0: never). */
  private readonly restartedAtMs: StaticArray<f64>;
  /** When each slot's counters first read below the last believed reading, not yet confirmed (NaN: they did not). */
  private readonly lowAtMs: StaticArray<f64>;

  constructor(readonly maxEndpoints: i32) {
    this.lastQueries = new StaticArray<f64>(maxEndpoints);
    this.lastHits = new StaticArray<f64>(maxEndpoints);
    this.seen = new StaticArray<bool>(maxEndpoints);
    this.restartedAtMs = new StaticArray<f64>(maxEndpoints);
    this.lowAtMs = new StaticArray<f64>(maxEndpoints);
    for (let i = 0; i < maxEndpoints; i++) unchecked((this.lowAtMs[i] = NaN));
  }

  /**
   * The slot's metrics were refreshed, as read at atMs; true when this reading confirms that its counters went
   * backwards: an earlier reading was already below the last believed one, and this one is too.
   */
  restarted(slot: i32, m: EndpointMetrics, atMs: f64): bool {
    if (<u32>slot >= <u32>this.maxEndpoints || !m.hasPrefixCounters) return false;
    const back = unchecked(this.seen[slot]) && (m.prefixQueries < unchecked(this.lastQueries[slot]) || m.prefixHits < unchecked(this.lastHits[slot]));
    if (back) {
      const firstLow = unchecked(this.lowAtMs[slot]);
      if (!(firstLow < atMs)) {
        // The first low reading, or the same page read again: the counters believed so far stay.
        if (firstLow != firstLow) unchecked((this.lowAtMs[slot] = atMs));
        return false;
      }
      unchecked((this.restartedAtMs[slot] = firstLow));
    }
    unchecked((this.lowAtMs[slot] = NaN));
    unchecked((this.lastQueries[slot] = m.prefixQueries));
    unchecked((this.lastHits[slot] = m.prefixHits));
    unchecked((this.seen[slot] = true));
    return back;
  }

  /** Whether the slot's engine restarted after `ms` (what was known of its cache at `ms` is gone). */
  restartedAfter(slot: i32, ms: f64): bool {
    return <u32>slot < <u32>this.maxEndpoints && unchecked(this.restartedAtMs[slot]) > ms;
  }

  /** The slot's endpoint holds nothing cached before `ms` (it comes back after being taken for gone): what was known
   *  of its cache until then is gone, as after a restart. */
  emptiedBefore(slot: i32, ms: f64): void {
    if (<u32>slot < <u32>this.maxEndpoints) unchecked((this.restartedAtMs[slot] = ms));
  }

  /** The slot's endpoint left; its successor starts unseen. */
  forget(slot: i32): void {
    if (<u32>slot >= <u32>this.maxEndpoints) return;
    unchecked((this.seen[slot] = false));
    unchecked((this.restartedAtMs[slot] = 0));
    unchecked((this.lowAtMs[slot] = NaN));
  }
}
