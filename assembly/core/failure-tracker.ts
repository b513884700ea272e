// Per-endpoint EWMA of failed requests (what counts: picker/response-outcome.ts), fed when a lease is given back.
import { updateEwma } from "../scheduling/failure-ewma";

export class FailureTracker {
  /** Per slot, read by the candidate fill: an EWMA holds only while its generation is the slot's current one. */
  readonly ewmaBySlot: StaticArray<f64>;
  readonly generationBySlot: StaticArray<u32>;

  constructor(readonly maxEndpoints: i32) {
    this.ewmaBySlot = new StaticArray<f64>(maxEndpoints);
    this.generationBySlot = new StaticArray<u32>(maxEndpoints);
  }

  record(slot: i32, generation: u32, failed: bool, alpha: f64): void {
    if (slot < 0 || slot >= this.maxEndpoints) return;
    if (unchecked(this.generationBySlot[slot]) != generation) {
      unchecked((this.generationBySlot[slot] = generation));
      unchecked((this.ewmaBySlot[slot] = 0));
    }
    unchecked((this.ewmaBySlot[slot] = updateEwma(unchecked(this.ewmaBySlot[slot]), failed, alpha)));
  }
}
