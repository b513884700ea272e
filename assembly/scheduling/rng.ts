// SplitMix64: a tiny seeded generator for tie-breaking. Deterministic for a seed, which keeps tests reproducible.

/** SplitMix64's finalizer: nearby inputs give unrelated outputs. */
// @ts-ignore: decorator
@inline
export function mix64(z: u64): u64 {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

export class Rng {
  private state: u64;

  constructor(seed: u64 = 0) {
    this.state = seed;
  }

  seed(s: u64): void {
    this.state = s;
  }

  next(): u64 {
    this.state += 0x9e3779b97f4a7c15;
    return mix64(this.state);
  }

  // Uniform in [0, n) for n >= 1 (multiply-high; the bias n / 2^32 is negligible for endpoint counts); 0 if n < 1.
  below(n: i32): i32 {
    if (n <= 1) return 0;
    return <i32>(((this.next() >> 32) * <u64>n) >> 32);
  }
}
