import { Candidates } from "../../assembly/scheduling/candidates";
import { pickBest, TIE_EPSILON } from "../../assembly/scheduling/pick";
import { Rng } from "../../assembly/scheduling/rng";
import { FORGOTTEN_RATE, decayedEwma, updateEwma } from "../../assembly/scheduling/failure-ewma";

const c = new Candidates(8);
const total = new StaticArray<f64>(8);
const rng = new Rng(42);

function fill(scores: f64[]): void {
  c.clear();
  for (let i = 0; i < scores.length; i++) {
    c.addSlot(i);
    total[i] = scores[i];
  }
}

describe("pickBest", () => {
  it("returns the highest total", () => {
    fill([0.2, 0.9, 0.5]);
    expect<i32>(pickBest(c, total, rng)).toBe(1);
  });

  it("never returns an unhealthy candidate", () => {
    fill([0.2, 0.9, 0.5]);
    c.healthy[1] = false;
    for (let k = 0; k < 50; k++) expect<i32>(pickBest(c, total, rng)).toBe(2);
  });

  it("returns -1 when no candidate is healthy or there are none", () => {
    fill([0.2, 0.9]);
    c.healthy[0] = false;
    c.healthy[1] = false;
    expect<i32>(pickBest(c, total, rng)).toBe(-1);
    c.clear();
    expect<i32>(pickBest(c, total, rng)).toBe(-1);
  });

  it("breaks ties uniformly among the tied candidates only", () => {
    fill([0.7, 0.3, 0.7, 0.7 - TIE_EPSILON / 2, 0.7 - 1e-6, 0.7]);
    const counts = new StaticArray<i32>(8);
    const draws = 4000;
    for (let k = 0; k < draws; k++) counts[pickBest(c, total, rng)]++;
    // tied: 0, 2, 3, 5; not tied: 1 and 4 (1e-6 below the best)
    expect<i32>(counts[1]).toBe(0);
    expect<i32>(counts[4]).toBe(0);
    const expected = draws / 4;
    const tied: i32[] = [0, 2, 3, 5];
    for (let t = 0; t < tied.length; t++) {
      // A fair draw lands within 15% of draws/4 with overwhelming probability (about 6 standard deviations).
      expect<i32>(counts[tied[t]]).toBeGreaterThan(expected * 85 / 100);
      expect<i32>(counts[tied[t]]).toBeLessThan(expected * 115 / 100);
    }
  });

  it("is deterministic for a seed", () => {
    fill([1, 1, 1, 1, 1, 1, 1, 1]);
    const a = new Rng(7);
    const b = new Rng(7);
    const other = new Rng(8);
    let differs = false;
    for (let k = 0; k < 64; k++) {
      const x = pickBest(c, total, a);
      expect<i32>(pickBest(c, total, b)).toBe(x);
      if (pickBest(c, total, other) != x) differs = true;
    }
    expect<bool>(differs).toBe(true);
  });
});

describe("Rng", () => {
  it("reseeds to the same sequence and stays below n", () => {
    const r = new Rng(99);
    const first = r.next();
    r.next();
    r.seed(99);
    expect<u64>(r.next()).toBe(first);
    for (let n = 1; n < 70; n++) {
      for (let k = 0; k < 20; k++) {
        const v = r.below(n);
        expect<bool>(v >= 0 && v < n).toBe(true);
      }
    }
    expect<i32>(r.below(0)).toBe(0);
    expect<i32>(r.below(-5)).toBe(0);
  });
});

describe("updateEwma", () => {
  it("moves a fraction alpha towards the outcome", () => {
    const alpha = 0.2;
    expect<f64>(updateEwma(0.5, true, alpha)).toBe(0.5 + alpha * (1 - 0.5));
    expect<f64>(updateEwma(0.5, false, alpha)).toBe(0.5 - alpha * 0.5);
  });

  it("converges to the failure rate of a steady stream and stays in [0, 1]", () => {
    let e: f64 = 0;
    for (let k = 0; k < 400; k++) e = updateEwma(e, k % 4 == 0, 0.01); // 25% failures
    expect<f64>(e).toBeGreaterThan(0.2);
    expect<f64>(e).toBeLessThan(0.3);
    expect<f64>(updateEwma(NaN, true, 5)).toBe(1.0);
    expect<f64>(updateEwma(3, false, -1)).toBe(1.0);
    expect<f64>(updateEwma(-2, false, 0.5)).toBe(0.0);
  });
});

describe("decayedEwma", () => {
  it("halves the rate every half-life and forgets a residue", () => {
    expect<f64>(decayedEwma(0.8, 30000, 30000)).toBe(0.4);
    expect<f64>(decayedEwma(0.8, 60000, 30000)).toBe(0.2);
    expect<f64>(decayedEwma(0.8, 15000, 30000)).toBeCloseTo(0.8 / Math.SQRT2);
    // 0.8 / 2^10 is under FORGOTTEN_RATE: none, so the endpoint no longer loses ties.
    expect<f64>(0.8 / 1024).toBeLessThan(FORGOTTEN_RATE);
    expect<f64>(decayedEwma(0.8, 300000, 30000)).toBe(0.0);
  });

  it("keeps the rate when decay is off, no time passed, or the clock went back", () => {
    expect<f64>(decayedEwma(0.8, 60000, 0)).toBe(0.8);
    expect<f64>(decayedEwma(0.8, 0, 30000)).toBe(0.8);
    expect<f64>(decayedEwma(0.8, -5000, 30000)).toBe(0.8);
    expect<f64>(decayedEwma(0.8, NaN, 30000)).toBe(0.8);
    expect<f64>(decayedEwma(0, 60000, 30000)).toBe(0.0);
  });
});
