// How long an endpoint's KV cache keeps a block that nobody touches again. A request's blocks join the evictable
// part of the cache (what running requests do not hold) when it ends, and the cache evicts least recently used
// blocks first, so a block released at time T is still there while fewer tokens than that part holds have entered
// since. The engine's cumulative counters (vLLM's prefix-cache queries and hits, SGLang's prompt and cached tokens)
// say how many: queried minus hit tokens are the prompt tokens it had to compute and store. Each endpoint keeps a
// short history of those readings, and the horizon reaches back to the time the counters stood one evictable part
// (capacity times one minus the KV usage) below their latest reading. Bursts and idle spells count as they
// happened, not averaged. A cross-worker hint older than the horizon describes a cache the endpoint has since
// overwritten.
import { EndpointMetrics } from "../endpoints/endpoint-metrics";

/** Readings kept per endpoint. */
const POINTS: i32 = 32;
/** A reading closer than this share of the capacity to the one kept before it replaces the newest (downsampling):
 *  on steady traffic the history then covers at least POINTS / 2 of it, twice the capacity. */
const STEP_SHARE: f64 = 1.0 / 8;
/** ... and closer than this share of the evictable part, so that a cutoff one evictable part back never falls in a
 *  merged stretch wider than a quarter of it, however full the cache. */
const EVICTABLE_STEP_SHARE: f64 = 1.0 / 4;
/** Per point: the first and the last time the counters read its value, and the value. */
const FIELDS: i32 = 3;
/** A routedSince further back than this before the latest reading judges nothing (-Infinity): the index's stamps
 *  compare times less than about a year apart, and a cache that keeps blocks this long keeps what the index holds. */
const MAX_JUDGED_SPAN_MS: f64 = 180 * 86400000;
/** Weight of one request in the moving average of request durations. */
const DURATION_ALPHA: f64 = 0.1;

export class CacheHorizon {
  private readonly points: StaticArray<f64>;
  /** Per slot: where its oldest point is in its ring, and how many points it has (0: none). */
  private readonly first: StaticArray<i32>;
  private readonly count: StaticArray<i32>;
  /** Per slot: when the counters stood one evictable part below the latest reading; NaN when not known. */
  private readonly cutoffMs: StaticArray<f64>;
  /** Moving average of how long the slot's requests ran, routed to ended (ms). */
  private readonly durationMs: StaticArray<f64>;
  /** Per slot: the earliest routing time whose blocks the cache still keeps (cutoff minus the usual duration: they
   *  were released that much later); NaN when not known. What the prefix index credits (PrefixIndex.match). */
  readonly routedSinceMs: StaticArray<f64>;
  /** Per slot: when the last reading was taken if it read below the history (NaN otherwise). It is believed (a
   *  restarted engine) only if a later reading does too; a page missing some series (one engine's, or cut short)
   *  reads low once, and a stock Envoy worker may read that same page again. */
  private readonly droppedAtMs: StaticArray<f64>;

  constructor(readonly maxEndpoints: i32) {
    const n = maxEndpoints > 0 ? maxEndpoints : 0;
    this.points = new StaticArray<f64>(n * POINTS * FIELDS);
    this.first = new StaticArray<i32>(n);
    this.count = new StaticArray<i32>(n);
    this.cutoffMs = new StaticArray<f64>(n);
    this.durationMs = new StaticArray<f64>(n);
    this.routedSinceMs = new StaticArray<f64>(n);
    this.droppedAtMs = new StaticArray<f64>(n);
    for (let i = 0; i < n; i++) {
      unchecked((this.cutoffMs[i] = NaN));
      unchecked((this.routedSinceMs[i] = NaN));
      unchecked((this.droppedAtMs[i] = NaN));
    }
  }

  /** A request routed to the slot ended after `ms`. */
  requestEnded(slot: i32, ms: f64): void {
    if (<u32>slot >= <u32>this.maxEndpoints || !(ms >= 0 && ms < Infinity)) return;
    const previous = unchecked(this.durationMs[slot]);
    unchecked((this.durationMs[slot] = previous == 0 ? ms : previous + DURATION_ALPHA * (ms - previous)));
    this.updateRoutedSince(slot);
  }

  /** How long the slot's requests usually run, routed to ended (0 when none ended yet): until then they hold their
   *  blocks. */
  expectedDurationMs(slot: i32): f64 {
    return <u32>slot < <u32>this.maxEndpoints ? unchecked(this.durationMs[slot]) : 0;
  }

  /** When a request routed to the slot at routedAtMs is expected to release its blocks (what its hints carry). */
  expectedEndMs(slot: i32, routedAtMs: f64): f64 {
    return routedAtMs + this.expectedDurationMs(slot);
  }

  /**
   * The slot's metrics as read at atMs. The same reading again (a stock Envoy worker re-reads the shared record) is
   * ignored; unchanged counters at a later time mark that nothing entered meanwhile.
   */
  observe(slot: i32, m: EndpointMetrics, atMs: f64): void {
    if (<u32>slot >= <u32>this.maxEndpoints) return;
    if (!m.hasPrefixCounters || !m.hasCacheConfig || !(atMs > -Infinity && atMs < Infinity)) {
      this.clear(slot);
      return;
    }
    // Data parallel: the inflow is every engine's, and each engine keeps its own cache of that size.
    const capacity = <f64>m.numGpuBlocks * <f64>m.blockSize * <f64>max(1, m.cacheEngines);
    const stored = m.prefixQueries - m.prefixHits;
    const n = unchecked(this.count[slot]);
    if (n == 0) {
      this.append(slot, atMs, stored);
      return;
    }
    const tail = this.at(slot, n - 1);
    const tailStored = load<f64>(tail, 16);
    if (atMs <= load<f64>(tail, 8)) {
      // The same reading again; different counters at no later time mean a new engine's clock: start over.
      if (stored != tailStored) this.restart(slot, atMs, stored);
      return;
    }
    if (stored < tailStored) {
      // Counters that went backwards in two readings in a row: a restarted engine.
      const droppedAt = unchecked(this.droppedAtMs[slot]);
      if (droppedAt == droppedAt && atMs > droppedAt) this.restart(slot, atMs, stored);
      else if (droppedAt != droppedAt) unchecked((this.droppedAtMs[slot] = atMs));
      return;
    }
    unchecked((this.droppedAtMs[slot] = NaN));
    // Blocks of running requests are not evictable: a finished request's blocks wait in the rest.
    const usage = m.kvUsage;
    const evictable = m.hasKv && usage >= 0 && usage <= 1 ? capacity * (1 - usage) : capacity;
    if (stored == tailStored) {
      store<f64>(tail, atMs, 8); // flat until now
    } else {
      // Merging a reading into the newest point spreads its change over that point's span: never over an idle
      // spell (the newest point read the same more than once), and only in steps a few times finer than the
      // evictable part, which the cutoff is measured against.
      const step = min<f64>(capacity * STEP_SHARE, evictable * EVICTABLE_STEP_SHARE);
      const tailIdle = load<f64>(tail, 8) > load<f64>(tail, 0);
      if (n >= 2 && !tailIdle && stored - load<f64>(this.at(slot, n - 2), 16) < step) {
        this.put(tail, atMs, stored); // still within a step of the point before: the newest moves on
      } else {
        this.append(slot, atMs, stored);
      }
    }
    unchecked((this.cutoffMs[slot] = this.timeWhenStored(slot, stored - evictable)));
    this.updateRoutedSince(slot);
  }

  /** Whether the slot's engine reports what its horizon is measured from (prefix-cache counters and cache size). */
  knows(slot: i32): bool {
    return <u32>slot < <u32>this.maxEndpoints && unchecked(this.count[slot]) > 0;
  }

  /**
   * How long before nowMs a block may have been released and still be in the slot's engine: nowMs back to when the
   * counters stood one evictable part below their latest reading. Infinity when not known.
   */
  horizonMs(slot: i32, nowMs: f64): f64 {
    if (<u32>slot >= <u32>this.maxEndpoints) return Infinity;
    const cutoff = unchecked(this.cutoffMs[slot]);
    if (cutoff != cutoff) return Infinity;
    return max<f64>(0, nowMs - cutoff);
  }

  forget(slot: i32): void {
    if (<u32>slot >= <u32>this.maxEndpoints) return;
    this.clear(slot);
    unchecked((this.durationMs[slot] = 0));
  }

  private updateRoutedSince(slot: i32): void {
    const since = unchecked(this.cutoffMs[slot]) - unchecked(this.durationMs[slot]);
    const n = unchecked(this.count[slot]);
    const latestMs = n > 0 ? load<f64>(this.at(slot, n - 1), 8) : NaN;
    unchecked((this.routedSinceMs[slot] = latestMs - since > MAX_JUDGED_SPAN_MS ? -Infinity : since));
  }

  // When the counters read `target` (interpolated between the readings around it, each change spread evenly
  // between the last reading before it and the first after); before the oldest reading, extrapolated at the
  // history's average rate; NaN when the history has no rate.
  private timeWhenStored(slot: i32, target: f64): f64 {
    const n = unchecked(this.count[slot]);
    for (let i = n - 1; i > 0; i--) {
      const a = this.at(slot, i - 1);
      const aStored = load<f64>(a, 16);
      if (aStored > target) continue;
      const b = this.at(slot, i);
      const bStored = load<f64>(b, 16);
      const aLast = load<f64>(a, 8);
      return aLast + (target - aStored) / (bStored - aStored) * (load<f64>(b, 0) - aLast);
    }
    const oldest = this.at(slot, 0);
    const newest = this.at(slot, n - 1);
    const span = load<f64>(newest, 0) - load<f64>(oldest, 0);
    const inflow = load<f64>(newest, 16) - load<f64>(oldest, 16);
    if (!(span > 0 && inflow > 0)) return NaN;
    return load<f64>(oldest, 0) - (load<f64>(oldest, 16) - target) * (span / inflow);
  }

  // Address of the slot's i-th point, oldest first.
  @inline private at(slot: i32, i: i32): usize {
    let k = unchecked(this.first[slot]) + i;
    if (k >= POINTS) k -= POINTS;
    return changetype<usize>(this.points) + ((<usize>(slot * POINTS + k) * <usize>FIELDS) << 3);
  }

  @inline private put(p: usize, atMs: f64, stored: f64): void {
    store<f64>(p, atMs, 0);
    store<f64>(p, atMs, 8);
    store<f64>(p, stored, 16);
  }

  private append(slot: i32, atMs: f64, stored: f64): void {
    const n = unchecked(this.count[slot]);
    if (n < POINTS) {
      unchecked((this.count[slot] = n + 1));
      this.put(this.at(slot, n), atMs, stored);
      return;
    }
    // Full: the oldest point goes.
    const oldest = this.at(slot, 0);
    const next = unchecked(this.first[slot]) + 1;
    unchecked((this.first[slot] = next == POINTS ? 0 : next));
    this.put(oldest, atMs, stored);
  }

  private restart(slot: i32, atMs: f64, stored: f64): void {
    this.clear(slot);
    this.append(slot, atMs, stored);
  }

  private clear(slot: i32): void {
    unchecked((this.droppedAtMs[slot] = NaN));
    unchecked((this.first[slot] = 0));
    unchecked((this.count[slot] = 0));
    unchecked((this.cutoffMs[slot] = NaN));
    unchecked((this.routedSinceMs[slot] = NaN));
  }
}
