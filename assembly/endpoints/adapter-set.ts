// A small fixed-capacity set of adapter name hashes (see name-hash.ts). Names beyond the capacity are dropped:
// a server rarely has more adapters active at once, and the set must stay bounded.

export const ADAPTER_CAPACITY: i32 = 32;

export class AdapterSet {
  readonly hashes: StaticArray<u64> = new StaticArray<u64>(ADAPTER_CAPACITY);
  count: i32 = 0;

  clear(): void {
    this.count = 0;
  }

  has(nameHash: u64): bool {
    const n = this.count;
    for (let i = 0; i < n; i++) {
      if (unchecked(this.hashes[i]) == nameHash) return true;
    }
    return false;
  }

  // Returns false when the hash was already present or the set is full.
  add(nameHash: u64): bool {
    if (this.count >= ADAPTER_CAPACITY || this.has(nameHash)) return false;
    unchecked((this.hashes[this.count] = nameHash));
    this.count++;
    return true;
  }

  copyFrom(other: AdapterSet): void {
    const n = other.count;
    for (let i = 0; i < n; i++) unchecked((this.hashes[i] = other.hashes[i]));
    this.count = n;
  }
}
