// Per-endpoint EWMA of failed responses (5xx, resets, local replies), fed when a lease is given back.
import { updateEwma } from "../scheduling/failure-ewma";

export class FailureTracker {
  private readonly ewma: StaticArray<f64>;
  private readonly generations: StaticArray<u32>;

  constructor(readonly maxEndpoints: i32) {
    this.ewma = new StaticArray<f64>(maxEndpoints);
    this.generations = new StaticArray<u32>(maxEndpoints);
  }

  record(slot: i32, generation: u32, failed: bool, alpha: f64): void {
    if (slot < 0 || slot >= this.maxEndpoints) return;
    if (unchecked(this.generations[slot]) != generation) {
      unchecked((this.generations[slot] = generation));
      unchecked((this.ewma[slot] = 0));
    }
    unchecked((this.ewma[slot] = updateEwma(unchecked(this.ewma[slot]), failed, alpha)));
  }

  // @ts-ignore: decorator
  @inline
  value(slot: i32, generation: u32): f64 {
    if (slot < 0 || slot >= this.maxEndpoints) return 0;
    return unchecked(this.generations[slot]) == generation ? unchecked(this.ewma[slot]) : 0;
  }
}
