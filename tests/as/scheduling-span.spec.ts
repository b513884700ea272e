import { withInflight, withWaiting } from "./support/load-candidates";
import { normalizeInflight, normalizeQueue } from "../../assembly/scheduling/normalize";

describe("queue and in-flight spans", () => {
  it("a spread smaller than the span costs only its share: 1 - (x - min) / span", () => {
    const out = new StaticArray<f64>(8);
    normalizeQueue(withWaiting([0, 1, 3]), out, 4);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(1.0 - 1.0 / 4.0);
    expect(out[2]).toBe(1.0 - 3.0 / 4.0);
  });

  it("a subnormal spread with both spans 0 still scores within 0..1 (1 / range stays finite)", () => {
    const out = new StaticArray<f64>(8);
    normalizeQueue(withWaiting([0, 5e-324, 2]), out, 0, 0);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(1.0 - 5e-324 / 2.0);
    expect(out[2]).toBe(0.0);
    normalizeQueue(withWaiting([0, 5e-324]), out, 0, 0);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBeGreaterThanOrEqual(0.0);
    expect(out[1]).toBeLessThanOrEqual(1.0);
    normalizeQueue(withWaiting([0, 5e-324]), out, NaN, NaN);
    expect(out[0]).toBe(1.0);
  });

  it("a spread larger than the span is plain min-max", () => {
    const out = new StaticArray<f64>(8);
    normalizeQueue(withWaiting([2, 7, 12]), out, 4);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(1.0 - 5.0 / 10.0);
    expect(out[2]).toBe(0.0);
  });

  it("span 0 is plain min-max, and equal values all score 1", () => {
    const out = new StaticArray<f64>(8);
    normalizeInflight(withInflight([1, 2]), out, 0);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(0.0);
    normalizeInflight(withInflight([3, 3, 3]), out, 4);
    expect(out[0]).toBe(1.0);
    expect(out[2]).toBe(1.0);
    normalizeInflight(withInflight([0, 1]), out, 4);
    expect(out[1]).toBe(0.75);
  });

  it("when every candidate queues, a spread counts relative to the shortest queue", () => {
    const out = new StaticArray<f64>(8);
    normalizeQueue(withWaiting([20, 25, 30]), out, 4, 1);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(1.0 - 5.0 / 20.0);
    expect(out[2]).toBe(1.0 - 10.0 / 20.0);
    // Without the relative span the same spread is plain min-max.
    normalizeQueue(withWaiting([20, 25, 30]), out, 4, 0);
    expect(out[2]).toBe(0.0);
  });

  it("with an idle candidate only the span counts, and a spread past both is plain min-max", () => {
    const out = new StaticArray<f64>(8);
    normalizeQueue(withWaiting([0, 3]), out, 4, 16);
    expect(out[1]).toBe(1.0 - 3.0 / 4.0);
    normalizeQueue(withWaiting([2, 12]), out, 4, 2);
    expect(out[1]).toBe(0.0);
  });

  it("the in-flight score takes the same relative span over the fewest in flight", () => {
    const out = new StaticArray<f64>(8);
    normalizeInflight(withInflight([8, 12]), out, 4, 1);
    expect(out[0]).toBe(1.0);
    expect(out[1]).toBe(0.5);
    normalizeInflight(withInflight([8, 12]), out, 4, 0);
    expect(out[1]).toBe(0.0);
  });
});
