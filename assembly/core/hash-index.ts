// A preallocated open-addressing table from 64-bit hashes to small indices (clear, put, get): what the shared load
// uses to find each endpoint's record (built for a join) or unwritten change (kept with the list) in one step. Buckets come from a
// hash's top bits after a Fibonacci multiply (hashBucket), which the other tables keyed by address hash share.
// Several entries may share a hash (two keys whose hashes collide): get gives the first; a caller that compares
// its keys past the hash walks them with start, seek, indexAt and next (member-slots.ts).

// @ts-ignore: decorator
@inline
export function hashBucket(hash: u64, bits: u64): i32 {
  return <i32>((hash * 0x9e3779b97f4a7c15) >> (64 - bits));
}

export class HashIndex {
  private readonly keys: StaticArray<u64>;
  /** Per bucket: the index + 1, 0 when empty. */
  private readonly values: StaticArray<i32>;
  private readonly mask: i32;

  /** 2^bits buckets: at least twice the indices put between two clears, so a probe always meets an empty one. */
  constructor(private readonly bits: u64) {
    const n = 1 << <i32>bits;
    this.keys = new StaticArray<u64>(n);
    this.values = new StaticArray<i32>(n);
    this.mask = n - 1;
  }

  clear(): void {
    memory.fill(changetype<usize>(this.values), 0, <usize>this.values.length << 2);
  }

  /** Puts an index under a hash (after any entries put under it since the last clear). */
  put(hash: u64, index: i32): void {
    let b = hashBucket(hash, this.bits);
    while (unchecked(this.values[b]) != 0) b = (b + 1) & this.mask;
    unchecked((this.keys[b] = hash));
    unchecked((this.values[b] = index + 1));
  }

  /** The index put with this hash since the last clear, or -1. */
  get(hash: u64): i32 {
    let b = hashBucket(hash, this.bits);
    while (true) {
      const v = unchecked(this.values[b]);
      if (v == 0) return -1;
      if (unchecked(this.keys[b]) == hash) return v - 1;
      b = (b + 1) & this.mask;
    }
    return -1; // unreachable: the table always has empty buckets
  }

  /** The bucket a search for this hash starts at (for seek). */
  start(hash: u64): i32 {
    return hashBucket(hash, this.bits);
  }

  /** From bucket `at` of the hash's probe sequence on, the bucket of the next entry put under this hash, or -1 when
   *  an empty bucket comes first. Its index is indexAt(bucket); seek(hash, next(bucket)) goes on past it. */
  seek(hash: u64, at: i32): i32 {
    let b = at & this.mask;
    while (true) {
      const v = unchecked(this.values[b]);
      if (v == 0) return -1;
      if (unchecked(this.keys[b]) == hash) return b;
      b = (b + 1) & this.mask;
    }
    return -1; // unreachable: the table always has empty buckets
  }

  indexAt(bucket: i32): i32 {
    return unchecked(this.values[bucket & this.mask]) - 1;
  }

  next(bucket: i32): i32 {
    return (bucket + 1) & this.mask;
  }
}
