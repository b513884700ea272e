// Higress ai-load-balancer's rate_limit: the share of this worker's last `window_size` picks that went to
// each endpoint. An endpoint above the configured share is skipped while another candidate remains.
export class RateLimitWindow {
  private readonly ring: StaticArray<i32>;
  private readonly counts: StaticArray<i32>;
  private head: i32 = 0;
  size: i32 = 0;

  constructor(readonly capacity: i32, readonly maxEndpoints: i32) {
    this.ring = new StaticArray<i32>(max(1, capacity));
    this.counts = new StaticArray<i32>(maxEndpoints);
  }

  push(slot: i32): void {
    if (slot < 0 || slot >= this.maxEndpoints) return;
    if (this.size == this.capacity) {
      const old = unchecked(this.ring[this.head]);
      if (old >= 0 && old < this.maxEndpoints) unchecked((this.counts[old] -= 1));
    } else this.size++;
    unchecked((this.ring[this.head] = slot));
    unchecked((this.counts[slot] += 1));
    this.head = (this.head + 1) % this.capacity;
  }

  share(slot: i32): f64 {
    if (this.size == 0 || slot < 0 || slot >= this.maxEndpoints) return 0;
    return <f64>unchecked(this.counts[slot]) / <f64>this.size;
  }

  /** Forgets a departed endpoint's picks. */
  forget(slot: i32): void {
    if (slot < 0 || slot >= this.maxEndpoints) return;
    for (let i = 0; i < this.size; i++) {
      if (unchecked(this.ring[i]) == slot) unchecked((this.ring[i] = -1));
    }
    unchecked((this.counts[slot] = 0));
  }
}
