// Index in [0, n) drawn uniformly (skew 0) or with Zipf popularity 1 / (i + 1)^skew, so index 0 is the hottest.
import type { SeededRandom } from "../../util/seeded-random.ts";

export class ZipfPick {
  private readonly cumulative: Float64Array | null;

  constructor(
    private readonly n: number,
    skew: number,
  ) {
    if (skew > 0) {
      this.cumulative = new Float64Array(n);
      let sum = 0;
      for (let i = 0; i < n; i++) this.cumulative[i] = sum += 1 / Math.pow(i + 1, skew);
    } else {
      this.cumulative = null;
    }
  }

  next(rng: SeededRandom): number {
    const c = this.cumulative;
    if (c === null) return rng.int(this.n);
    const x = rng.next() * c[c.length - 1];
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (c[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
