// One outlier (a wedged engine whose metrics still answer with a thousand waiting) does not squash the others' queue
// and in-flight scores towards 1.
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

  it("two sharing the highest value are no outlier", () => {
    normalizeQueue(withWaiting([0, 1000, 1000, 500]), out, 4, 16);
    expect(out[0]).toBe(1.0);
    expect(out[3]).toBe(0.5);
    expect(out[1]).toBe(0.0);
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
