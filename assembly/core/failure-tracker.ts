// Per-endpoint EWMA of failed requests (what counts: picker/response-outcome.ts), fed when a lease is given back,
// and fading with time (feedback.failureHalfLifeMs) between outcomes.
import { decayedEwma, FADE_HALF_LIVES, updateEwma } from "../scheduling/failure-ewma";

export class FailureTracker {
  /** Per slot, read by the candidate fill: an EWMA holds only while its generation is the slot's current one. */
  readonly ewmaBySlot: StaticArray<f64>;
  readonly generationBySlot: StaticArray<u32>;
  /** When each slot's EWMA last moved (ms); its value now is decayedEwma of the elapsed time. */
  readonly updatedMsBySlot: StaticArray<f64>;
  /** The latest time any slot recorded a failure at (ms); -Infinity before the first. */
  private lastFailureMs: f64 = -Infinity;

  constructor(readonly maxEndpoints: i32) {
    this.ewmaBySlot = new StaticArray<f64>(maxEndpoints);
    this.generationBySlot = new StaticArray<u32>(maxEndpoints);
    this.updatedMsBySlot = new StaticArray<f64>(maxEndpoints);
  }

  record(slot: i32, generation: u32, failed: bool, alpha: f64, nowMs: f64, halfLifeMs: f64): void {
    if (slot < 0 || slot >= this.maxEndpoints) return;
    let prev: f64 = 0;
    if (unchecked(this.generationBySlot[slot]) == generation) {
      prev = decayedEwma(unchecked(this.ewmaBySlot[slot]), nowMs - unchecked(this.updatedMsBySlot[slot]), halfLifeMs);
    } else {
      unchecked((this.generationBySlot[slot] = generation));
    }
    unchecked((this.ewmaBySlot[slot] = updateEwma(prev, failed, alpha)));
    unchecked((this.updatedMsBySlot[slot] = nowMs));
    // The latest failure, also when the clock went back: an earlier one would let anyRate end before a later rate fades.
    if (failed && nowMs > this.lastFailureMs) this.lastFailureMs = nowMs;
  }

  /**
   * Whether some slot's rate may be above 0 at nowMs. A rate only rises at a failure and is at most 1, so once every
   * rate has had FADE_HALF_LIVES half-lives since the last failure, each has faded to none (decayedEwma): then every
   * endpoint's rate is 0 and the candidate fill need not read them.
   */
  anyRate(nowMs: f64, halfLifeMs: f64): bool {
    const last = this.lastFailureMs;
    if (last == -Infinity) return false;
    return !(halfLifeMs > 0) || nowMs - last < halfLifeMs * FADE_HALF_LIVES;
  }
}
