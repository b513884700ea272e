// A small seeded generator (xorshift128+ over 32-bit halves kept as JS numbers) for reproducible fuzzing:
// the same seed gives the same inputs on every machine.
export class FuzzRng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // SplitMix32 expands the seed into four non-zero words.
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0 || 1;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  /** Uniform 32-bit unsigned integer (xoshiro128**). */
  u32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.b << 9) >>> 0;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c = (this.c ^ t) >>> 0;
    this.d = rotl(this.d, 11);
    this.a >>>= 0;
    this.b >>>= 0;
    return r;
  }

  /** Uniform in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : Math.floor((this.u32() / 4294967296) * n);
  }

  /** Uniform in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  float(): number {
    return this.u32() / 4294967296;
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** A size skewed towards small values but reaching max: often 0..16, sometimes up to max. */
  size(max: number): number {
    const r = this.float();
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
  fork(): FuzzRng {
    return new FuzzRng(this.u32());
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
