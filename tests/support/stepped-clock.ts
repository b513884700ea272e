// Virtual time for the timers, and a wall clock (what the plugin reads) that can be stepped apart from it, as an
// NTP step moves Envoy's system time.
import { VirtualClock, type Clock } from "../../src-host/host/clock.ts";

export class SteppedWallClock implements Clock {
  /** How far the wall clock is from the timers' time. */
  offsetMs = 0;
  constructor(readonly timers: VirtualClock = new VirtualClock()) {}
  nowNs(): bigint {
    return this.timers.nowNs() + BigInt(this.offsetMs) * 1_000_000n;
  }
  /** A step of the wall clock does not move the steady clock. */
  monotonicNs(): bigint {
    return this.timers.monotonicNs();
  }
  nowMs(): number {
    return this.timers.nowMs() + this.offsetMs;
  }
  every(periodMs: number, fn: () => void): () => void {
    return this.timers.every(periodMs, fn);
  }
  after(delayMs: number, fn: () => void): () => void {
    return this.timers.after(delayMs, fn);
  }
  /** Lets `ms` of real time pass (timers fire). */
  pass(ms: number): void {
    this.timers.advanceTo(this.timers.nowMs() + ms);
  }
}
