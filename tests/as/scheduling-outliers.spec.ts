// highestInlier (outliers.ts) against the rule written from its definition (sorting), on random values with clusters
// of high ones, and its bound on passes.
import { highestInlier, mayHaveOutliers } from "../../assembly/scheduling/outliers";
import { Rng } from "../../assembly/scheduling/rng";
import { highestInlierBySorting } from "./support/outlier-reference";

const MAX = 64;
const keys = new StaticArray<f64>(256);

// Loads of a few groups: idle or lightly loaded pods, busy ones and wedged ones, in any mix.
function value(r: Rng, group: i32): f64 {
  switch (group) {
    case 0: return <f64>r.below(4);
    case 1: return <f64>r.below(40);
    case 2: return 100 + <f64>r.below(30);
    case 3: return 800 + <f64>r.below(400);
    default: return 0.25 * <f64>r.below(9);
  }
}

const FLOORS: StaticArray<f64> = [0, 1e-300, 0.5, 2, 4, 64];

describe("highestInlier", () => {
  it("is the highest value under the lowest jump that leaves out a minority, as by sorting", () => {
    const r = new Rng(0x0071);
    let found = 0;
    for (let round = 0; round < 4000; round++) {
      const n = 1 + <i32>r.below(MAX);
      const groups = 1 + <i32>r.below(4);
      const present = new Array<f64>();
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = 0; i < n; i++) {
        if (r.below(6) == 0) {
          keys[i] = -1; // absent
          continue;
        }
        const v = value(r, <i32>r.below(groups) + (r.below(9) == 0 ? 4 : 0));
        keys[i] = v;
        present.push(v);
        lo = min<f64>(lo, v);
        hi = max<f64>(hi, v);
      }
      if (present.length == 0) continue;
      const floor = FLOORS[r.below(FLOORS.length)];
      const minOutliers = <i32>r.below(2);
      const got = mayHaveOutliers(lo, hi, floor) ? highestInlier(keys, n, lo, hi, floor, minOutliers) : hi;
      const expected = highestInlierBySorting(present, floor, minOutliers);
      if (got != expected) trace("differs: round, got, expected", 3, <f64>round, got, expected);
      expect<f64>(got).toBe(expected);
      if (got < hi) found++;
    }
    expect<i32>(found).toBeGreaterThan(400); // outliers were common
  });

  it("two wedged values of eight are outliers; the highest of the others is returned", () => {
    const values: StaticArray<f64> = [0, 5, 10, 20, 12, 8, 900, 1000];
    for (let i = 0; i < 8; i++) keys[i] = values[i];
    expect<f64>(highestInlier(keys, 8, 0, 1000, 4, 1)).toBe(20);
    keys[6] = 1000; // sharing the highest value
    expect<f64>(highestInlier(keys, 8, 0, 1000, 4, 1)).toBe(20);
    keys[5] = 1000; // three of eight
    expect<f64>(highestInlier(keys, 8, 0, 1000, 4, 1)).toBe(20);
    keys[4] = 1000; // four of eight is no minority
    expect<f64>(highestInlier(keys, 8, 0, 1000, 4, 1)).toBe(1000);
  });

  it("takes a bounded number of passes over values spread over many powers of 4", () => {
    // 1, 5, 25, ... over 0s: every value is over 4 times the next below, so each pass finds a jump and moves one
    // value down; the passes stop at 64 with the lowest jump found by then (the sorted rule would go down to 0).
    const n = 201;
    let v: f64 = 1;
    for (let i = 0; i < 100; i++) {
      keys[i] = v;
      v *= 5;
    }
    for (let i = 100; i < n; i++) keys[i] = 0;
    expect<f64>(highestInlier(keys, n, 0, keys[99], 0.1, 0)).toBe(keys[99 - 64]);
    // Within a factor of 4 of each other (3, 9, 27, ...): no jump among them, a pass moves down one value, and at
    // the bound none was found, so the highest is returned (the sorted rule finds the jump from 0 to 3).
    v = 3;
    for (let i = 0; i < 100; i++) {
      keys[i] = v;
      v *= 3;
    }
    expect<f64>(highestInlier(keys, n, 0, keys[99], 0.1, 0)).toBe(keys[99]);
  });
});
