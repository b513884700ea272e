// Requests this worker has in flight per endpoint. A lease is taken when the override succeeds and given
// back exactly once (on_log or on_done, whichever comes first). Slots are reused when endpoints leave, so
// a lease carries the slot's generation: a lease of a departed endpoint no longer counts for its successor.
export class InflightLeases {
  /** Per slot, read by the candidate fill: a count holds only while its generation is the slot's current one. */
  readonly countBySlot: StaticArray<i32>;
  readonly generationBySlot: StaticArray<u32>;
  /** Leases taken and not yet given back, whatever their endpoint's fate. */
  outstanding: i32 = 0;

  constructor(readonly maxEndpoints: i32) {
    this.countBySlot = new StaticArray<i32>(maxEndpoints);
    this.generationBySlot = new StaticArray<u32>(maxEndpoints);
  }

  acquire(slot: i32, generation: u32): void {
    if (slot < 0 || slot >= this.maxEndpoints) return;
    if (unchecked(this.generationBySlot[slot]) != generation) {
      unchecked((this.generationBySlot[slot] = generation));
      unchecked((this.countBySlot[slot] = 0));
    }
    unchecked((this.countBySlot[slot] += 1));
    this.outstanding++;
  }

  release(slot: i32, generation: u32): void {
    if (this.outstanding > 0) this.outstanding--;
    if (slot < 0 || slot >= this.maxEndpoints) return;
    if (unchecked(this.generationBySlot[slot]) == generation && unchecked(this.countBySlot[slot]) > 0) unchecked((this.countBySlot[slot] -= 1));
  }
}
