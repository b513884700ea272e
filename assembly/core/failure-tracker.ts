// Per-endpoint EWMA of failed requests (what counts: picker/response-outcome.ts), fed when a lease is given back,
// and fading with time (feedback.failureHalfLifeMs) between outcomes.
import { decayedEwma, updateEwma } from "../scheduling/failure-ewma";

export class FailureTracker {
  /** Per slot, read by the candidate fill: an EWMA holds only while its generation is the slot's current one. */
  readonly ewmaBySlot: StaticArray<f64>;
  readonly generationBySlot: StaticArray<u32>;
  /** When each slot's EWMA last moved (ms); its value now is decayedEwma of the elapsed time. */
  readonly updatedMsBySlot: StaticArray<f64>;

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
  }
}
