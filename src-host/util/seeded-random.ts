// The one seeded generator of the Node side (a SplitMix32 stream): the simulator, the soak and the fuzzer draw
// from it, so every run of a workload, soak or fuzz seed replays the same choices on every machine.

/** 32-bit mix of a string and a seed (FNV-1a then a finalizer); stable across runs and platforms. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c_9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x0100_0193);
  }
  return mix32(h);
}

export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb_352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846c_a68b);
  h ^= h >>> 16;
  return h >>> 0;
}

export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = mix32((seed | 0) ^ 0x9e37_79b9) || 1;
  }

  /** A generator for a named sub-stream, independent of how much this one was used. */
  static derive(seed: number, label: string): SeededRandom {
    return new SeededRandom(hashString(label, seed));
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    this.state = (this.state + 0x9e37_79b9) | 0;
    return mix32(this.state);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4_294_967_296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** Uniform real in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Exponential with the given rate (mean 1 / rate). */
  exponential(rate: number): number {
    return -Math.log(1 - this.next()) / rate;
  }

  /** Index drawn with probability proportional to weights[i]. */
  weighted(weights: readonly number[], total?: number): number {
    let sum = total ?? weights.reduce((a, b) => a + b, 0);
    let x = this.next() * sum;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  /** A size skewed towards small values but reaching max: often 0..16, sometimes up to max. */
  size(max: number): number {
    const r = this.next();
    if (r < 0.5) return this.int(Math.min(17, max + 1));
    if (r < 0.85) return this.int(Math.min(1025, max + 1));
    return this.int(max + 1);
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  /** A new generator derived from this one's stream (for independent sub-streams). */
  fork(): SeededRandom {
    return new SeededRandom(this.u32());
  }
}
