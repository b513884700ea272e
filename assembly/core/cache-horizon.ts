// How long an endpoint's KV cache keeps a block that nobody touches again: its capacity over the rate at which
// new tokens enter it. The cache evicts least recently used blocks first, so a block touched `age` ago is still
// there while fewer than capacity tokens have entered since. The rate comes from the engine's cumulative counters
// (vLLM's prefix-cache queries and hits, SGLang's prompt and cached tokens): queried minus hit tokens are the prompt
// tokens the engine had to compute and store. A cross-worker hint older than the horizon describes a cache the
// endpoint has since overwritten.
import { EndpointMetrics } from "../endpoints/endpoint-metrics";

/** Time constant of the inflow rate's moving average. */
const RATE_TAU_MS: f64 = 10000;
/** Weight of one request in the moving average of request durations. */
const DURATION_ALPHA: f64 = 0.1;

export class CacheHorizon {
  /** Last counter reading (queried − hit tokens) and when it last changed. */
  private readonly lastStored: StaticArray<f64>;
  private readonly changedAtMs: StaticArray<f64>;
  /** Tokens per ms entering the cache (moving average); 0 until two different readings were seen. */
  private readonly rate: StaticArray<f64>;
  private readonly capacityTokens: StaticArray<f64>;
  private readonly seen: StaticArray<bool>;
  /** Moving average of how long the slot's requests ran, routed to ended (ms). */
  private readonly durationMs: StaticArray<f64>;

  constructor(readonly maxEndpoints: i32) {
    this.lastStored = new StaticArray<f64>(maxEndpoints);
    this.changedAtMs = new StaticArray<f64>(maxEndpoints);
    this.rate = new StaticArray<f64>(maxEndpoints);
    this.capacityTokens = new StaticArray<f64>(maxEndpoints);
    this.seen = new StaticArray<bool>(maxEndpoints);
    this.durationMs = new StaticArray<f64>(maxEndpoints);
  }

  /** A request routed to the slot ended after `ms`. */
  requestEnded(slot: i32, ms: f64): void {
    if (<u32>slot >= <u32>this.maxEndpoints || !(ms >= 0 && ms < Infinity)) return;
    const previous = unchecked(this.durationMs[slot]);
    unchecked((this.durationMs[slot] = previous == 0 ? ms : previous + DURATION_ALPHA * (ms - previous)));
  }

  /**
   * How old, at nowMs, a note of a request routed to the slot may be while the engine still holds its blocks: the
   * request runs (its blocks held) for about the slot's usual duration, then they survive horizonMs.
   */
  retentionMs(slot: i32, nowMs: f64): f64 {
    const h = this.horizonMs(slot, nowMs);
    return h == Infinity ? h : h + unchecked(this.durationMs[slot]);
  }

  /** The slot's metrics were read at nowMs. */
  observe(slot: i32, m: EndpointMetrics, nowMs: f64): void {
    if (<u32>slot >= <u32>this.maxEndpoints) return;
    if (!m.hasPrefixCounters || !m.hasCacheConfig) {
      unchecked((this.seen[slot] = false));
      unchecked((this.rate[slot] = 0));
      return;
    }
    // Data parallel: the inflow is every engine's, and each engine keeps its own cache of that size.
    unchecked((this.capacityTokens[slot] = <f64>m.numGpuBlocks * <f64>m.blockSize * <f64>max(1, m.cacheEngines)));
    const stored = m.prefixQueries - m.prefixHits;
    if (!unchecked(this.seen[slot])) {
      this.restart(slot, stored, nowMs);
      return;
    }
    const last = unchecked(this.lastStored[slot]);
    // The same reading again: no scrape since, or an idle engine. Only a change dates the rate.
    if (stored == last) return;
    const dt = nowMs - unchecked(this.changedAtMs[slot]);
    if (stored < last || !(dt > 0)) {
      // Counters went backwards (a restart) or time did: start over.
      this.restart(slot, stored, nowMs);
      return;
    }
    const instant = (stored - last) / dt;
    const previous = unchecked(this.rate[slot]);
    unchecked((this.rate[slot] = previous == 0 ? instant : previous + (1 - Math.exp(-dt / RATE_TAU_MS)) * (instant - previous)));
    unchecked((this.lastStored[slot] = stored));
    unchecked((this.changedAtMs[slot] = nowMs));
  }

  /**
   * How long, at nowMs, a block untouched since then survives on the slot's engine: capacity over inflow, plus
   * the time since the counters last moved (nothing entered meanwhile). Infinity when not known.
   */
  horizonMs(slot: i32, nowMs: f64): f64 {
    if (<u32>slot >= <u32>this.maxEndpoints) return Infinity;
    const rate = unchecked(this.rate[slot]);
    if (!(rate > 0)) return Infinity;
    return unchecked(this.capacityTokens[slot]) / rate + max<f64>(0, nowMs - unchecked(this.changedAtMs[slot]));
  }

  forget(slot: i32): void {
    if (<u32>slot >= <u32>this.maxEndpoints) return;
    unchecked((this.seen[slot] = false));
    unchecked((this.rate[slot] = 0));
    unchecked((this.durationMs[slot] = 0));
  }

  private restart(slot: i32, stored: f64, nowMs: f64): void {
    unchecked((this.seen[slot] = true));
    unchecked((this.rate[slot] = 0));
    unchecked((this.lastStored[slot] = stored));
    unchecked((this.changedAtMs[slot] = nowMs));
  }
}
