// Time for the host: real wall-clock time for the gateway, virtual time for the simulator. Timers (the
// proxy-wasm tick) run on the same clock.

export interface Clock {
  /** Nanoseconds since the epoch. */
  nowNs(): bigint;
  /** Nanoseconds of a steady clock from an arbitrary origin, which a step of the wall clock does not move (Envoy's
   *  MonotonicTimeSource, what cpp-host's getMonotonicTimeNanoseconds reads). */
  monotonicNs(): bigint;
  nowMs(): number;
  /** Calls fn every periodMs until the returned cancel function is called. */
  every(periodMs: number, fn: () => void): () => void;
  /** Calls fn once after delayMs. */
  after(delayMs: number, fn: () => void): () => void;
}

/**
 * The same clock as another process reads it: its nanoseconds `skewNs` apart (processes that start together still
 * read different nanoseconds, which is what a plugin drawing a number from the clock relies on). Timers and
 * milliseconds are the shared clock's.
 */
export function processClock(clock: Clock, skewNs: bigint): Clock {
  return {
    nowNs: () => clock.nowNs() + skewNs,
    monotonicNs: () => clock.monotonicNs(),
    nowMs: () => clock.nowMs(),
    every: (periodMs, fn) => clock.every(periodMs, fn),
    after: (delayMs, fn) => clock.after(delayMs, fn),
  };
}

export class RealClock implements Clock {
  nowNs(): bigint {
    return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
  }
  monotonicNs(): bigint {
    return process.hrtime.bigint();
  }
  nowMs(): number {
    return Date.now();
  }
  every(periodMs: number, fn: () => void): () => void {
    const t = setInterval(fn, periodMs);
    t.unref();
    return () => clearInterval(t);
  }
  after(delayMs: number, fn: () => void): () => void {
    const t = setTimeout(fn, delayMs);
    t.unref();
    return () => clearTimeout(t);
  }
}

interface Timer {
  due: number;
  period: number;
  fn: () => void;
  cancelled: boolean;
  seq: number;
}

/** Virtual time in milliseconds; `advanceTo` fires due timers in time order. */
export class VirtualClock implements Clock {
  private now = 0;
  private readonly startMs: number;
  private timers: Timer[] = [];
  private seq = 0;
  // nowNs() for `now` as last computed: a plugin reads the clock several times per request while virtual time stands
  // still, and each new BigInt costs two allocations.
  private nsAt = NaN;
  private ns = 0n;

  constructor(startMs = 1_700_000_000_000) {
    this.now = startMs;
    this.startMs = startMs;
  }
  nowNs(): bigint {
    if (this.now !== this.nsAt) {
      this.ns = BigInt(Math.round(this.now * 1000)) * 1000n;
      this.nsAt = this.now;
    }
    return this.ns;
  }
  /** Virtual time never steps; its steady clock counts from the clock's start. */
  monotonicNs(): bigint {
    return BigInt(Math.round((this.now - this.startMs) * 1000)) * 1000n;
  }
  nowMs(): number {
    return this.now;
  }
  every(periodMs: number, fn: () => void): () => void {
    return this.add(periodMs, periodMs, fn);
  }
  after(delayMs: number, fn: () => void): () => void {
    return this.add(delayMs, 0, fn);
  }
  /** The time of the next timer, or Infinity. */
  nextDue(): number {
    let min = Infinity;
    for (const t of this.timers) if (!t.cancelled && t.due < min) min = t.due;
    return min;
  }
  advanceTo(ms: number): void {
    for (;;) {
      let next: Timer | null = null;
      for (const t of this.timers) {
        if (t.cancelled || t.due > ms) continue;
        if (next === null || t.due < next.due || (t.due === next.due && t.seq < next.seq)) next = t;
      }
      if (next === null) break;
      this.now = Math.max(this.now, next.due);
      if (next.period > 0) next.due += next.period;
      else next.cancelled = true;
      next.fn();
    }
    this.timers = this.timers.filter((t) => !t.cancelled);
    this.now = Math.max(this.now, ms);
  }
  private add(delay: number, period: number, fn: () => void): () => void {
    const t: Timer = { due: this.now + delay, period, fn, cancelled: false, seq: this.seq++ };
    this.timers.push(t);
    return () => {
      t.cancelled = true;
    };
  }
}
