// Outliers (wedged engines whose metrics still answer with a thousand waiting) do not squash the others' queue and
// in-flight scores towards 1.
import { withInflight, withWaiting } from "./support/load-candidates";
import { normalizeInflight, normalizeQueue } from "../../assembly/scheduling/normalize";

const out = new StaticArray<f64>(8);

describe("an outlier in the queue and in-flight scores", () => {
  it("scores 0 and leaves the others scored among themselves", () => {
    normalizeQueue(withWaiting([0, 10, 20, 1000]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(0.5);
    expect(out[2]).toBe(0.0);
    expect(out[3]).toBe(0.0);
    normalizeInflight(withInflight([2, 12, 22, 900]), out, 4, 0);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(0.5);
    expect(out[2]).toBe(0.0);
    expect(out[3]).toBe(0.0);
  });

  it("is only a value over 4 times the others' range: below that the range is min-max as before", () => {
    normalizeQueue(withWaiting([0, 10, 40]), out, 4, 16);
    expect(out[1]).toBe(0.75);
    normalizeQueue(withWaiting([0, 10, 41]), out, 4, 16);
    expect(out[1]).toBe(0.0);
    expect(out[2]).toBe(0.0);
    // Against the span when the others are closer than it: 0 and 1 span 4, so 17 is an outlier and 16 is not.
    normalizeInflight(withInflight([0, 1, 16]), out, 4, 0);
    expect(out[1]).toBe(1.0 - 1.0 / 16.0);
    normalizeInflight(withInflight([0, 1, 17]), out, 4, 0);
    expect(out[1]).toBe(0.75);
  });

  it("leaves out several outliers, close to each other or sharing a value, while they are a minority", () => {
    // Two wedged pods of eight: the six others are scored over their own range, 0 to 20.
    normalizeQueue(withWaiting([0, 5, 10, 20, 12, 8, 900, 1000]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    expect(out[2]).toBe(0.5);
    expect(out[3]).toBe(0.0);
    expect(out[6]).toBe(0.0);
    expect(out[7]).toBe(0.0);
    normalizeQueue(withWaiting([0, 10, 20, 1000, 1000]), out, 4, 16);
    expect(out[1]).toBe(0.5);
    expect(out[3]).toBe(0.0);
    expect(out[4]).toBe(0.0);
    normalizeInflight(withInflight([2, 12, 22, 900, 950]), out, 4, 0);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(0.5);
    expect(out[2]).toBe(0.0);
    expect(out[3]).toBe(0.0);
  });

  it("takes the lowest jump: an outlier under a higher one is left out too", () => {
    // 1000 is over 4 times 100's range and 100 over 4 times 20's: the range is 0 to 20.
    normalizeQueue(withWaiting([0, 10, 20, 100, 1000, 0, 0]), out, 4, 16);
    expect(out[1]).toBe(0.5);
    expect(out[3]).toBe(0.0);
  });

  it("never leaves out half or more: two sharing the highest value of four are no outliers", () => {
    normalizeQueue(withWaiting([0, 1000, 1000, 500]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    expect(out[3]).toBe(0.5);
    expect(out[1]).toBe(0.0);
    // Left out, the three at 1000 would leave 10 at the top of the range (score 0).
    normalizeQueue(withWaiting([0, 0, 10, 1000, 1000, 1000]), out, 4, 16);
    expect(out[2]).toBe(1.0 - 10.0 / 1000.0);
    normalizeQueue(withWaiting([0, 10, 1000, 1000]), out, 4, 16);
    expect(out[1]).toBe(1.0 - 10.0 / 1000.0);
  });

  it("leaves one and two candidates, and equal values, as they were", () => {
    normalizeQueue(withWaiting([1000]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    normalizeQueue(withWaiting([0, 1000]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(0.0);
    normalizeQueue(withWaiting([0, 3]), out, 4, 16);
    expect(out[1]).toBe(0.25);
    normalizeInflight(withInflight([7, 7, 7, 7, 7]), out, 4, 16);
    for (let i = 0; i < 5; i++) expect(out[i]).toBe(1.0);
  });

  it("reads NaN, Infinity and negative counts as 0, and NaN spans as none, with every score in 0..1", () => {
    normalizeQueue(withWaiting([NaN, Infinity, -5, 10, 1000]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(1.0);
    expect(out[2]).toBe(1.0);
    expect(out[3]).toBe(0.0);
    expect(out[4]).toBe(0.0);
    normalizeQueue(withWaiting([0, 10, 20, 1000]), out, NaN, NaN);
    expect(out[1]).toBe(0.5);
    expect(out[3]).toBe(0.0);
    normalizeQueue(withWaiting([0, 1, f64.MAX_VALUE]), out, 0, 0);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(0.0);
    expect(out[2]).toBe(0.0);
    normalizeInflight(withInflight([-3, 2, 10, i32.MAX_VALUE]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(1.0 - 2.0 / 10.0);
    expect(out[2]).toBe(0.0);
    expect(out[3]).toBe(0.0);
  });
});
