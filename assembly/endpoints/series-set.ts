// The series already read on one /metrics page, as 64-bit keys (metric and label set), so a series written twice
// counts once: Prometheus keeps the first sample of a duplicate series and rejects the rest (scrape.go reports them
// as "duplicate sample for timestamp"), where a sum over series would count it twice. Fixed capacity, cleared in
// O(1) per page by a stamp; a full set takes every further series as new (as if there were no check).

const CAPACITY: i32 = 1024;
const MASK: i32 = CAPACITY - 1;

export class SeriesSet {
  private readonly keys: StaticArray<u64> = new StaticArray<u64>(CAPACITY);
  private readonly stamps: StaticArray<u32> = new StaticArray<u32>(CAPACITY);
  private stamp: u32 = 1;
  private count: i32 = 0;

  clear(): void {
    this.count = 0;
    this.stamp++;
    if (this.stamp == 0) {
      for (let i = 0; i < CAPACITY; i++) unchecked((this.stamps[i] = 0));
      this.stamp = 1;
    }
  }

  /** Adds key; false when the page already had it. */
  addNew(key: u64): bool {
    // Below capacity a probe always ends at a free slot.
    if (this.count >= CAPACITY - 1) return true;
    let i = <i32>(key ^ (key >> 32)) & MASK;
    while (unchecked(this.stamps[i]) == this.stamp) {
      if (unchecked(this.keys[i]) == key) return false;
      i = (i + 1) & MASK;
    }
    unchecked((this.stamps[i] = this.stamp));
    unchecked((this.keys[i] = key));
    this.count++;
    return true;
  }
}
