// Envoy's degraded load for one priority (load_balancer_impl.cc recalculatePerPriorityState): H = min(100, 140h/t),
// D = min(100, 140d/t), N = min(100, H + D); degraded gets min(100 - H*100/N, D*100/N), panic below 50% available.
import { envoyDegradedLoad } from "../../assembly/platform/degraded-load";

describe("envoyDegradedLoad", () => {
  it("is 0 while the healthy hosts suffice (140 x healthy / total reaches 100)", () => {
    expect(envoyDegradedLoad(5, 2, 7)).toBe(0);
    expect(envoyDegradedLoad(8, 3, 11)).toBe(0);
    expect(envoyDegradedLoad(4, 0, 6)).toBe(0, "nothing degraded");
  });

  it("gives the degraded hosts the healthy ones' shortfall", () => {
    expect(envoyDegradedLoad(3, 3, 6)).toBe(30); // H 70, D 70
    expect(envoyDegradedLoad(6, 4, 10)).toBe(16); // H 84, D 56
    expect(envoyDegradedLoad(1, 1, 4)).toBe(50); // H 35, D 35, N 70: scaled to 50 / 50
    expect(envoyDegradedLoad(2, 1, 5)).toBe(33); // H 56, D 28, N 84: 66 / 33, the remainder (1) to healthy
    expect(envoyDegradedLoad(0, 3, 3)).toBe(100);
  });

  it("is 0 in panic (under half the hosts healthy or degraded) and for impossible counts", () => {
    expect(envoyDegradedLoad(1, 1, 5)).toBe(0);
    expect(envoyDegradedLoad(0, 0, 4)).toBe(0);
    expect(envoyDegradedLoad(3, 3, 5)).toBe(0);
    expect(envoyDegradedLoad(1, 1, 0)).toBe(0);
  });
});
