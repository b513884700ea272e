import { Candidates } from "../../assembly/scheduling/candidates";
import { applyLoadGuard, overloadLimit } from "../../assembly/scheduling/load-guard";
import { highestInlierBySorting } from "./support/outlier-reference";

const c = new Candidates(8);
const prefix = new StaticArray<f64>(8);
const session = new StaticArray<f64>(8);
const guarded = new StaticArray<bool>(8);
const loads = new StaticArray<f64>(8);

function endpoint(waiting: f64, running: f64, inflight: i32): i32 {
  const i = c.addSlot(c.count);
  c.hasMetrics[i] = true;
  c.waiting[i] = waiting;
  c.running[i] = running;
  c.inflight[i] = inflight;
  prefix[i] = 1;
  session[i] = 1;
  return i;
}

describe("applyLoadGuard", () => {
  it("zeroes cache scores of endpoints above factor * mean + slack", () => {
    c.clear();
    endpoint(16, 6, 4); // load 20 (running requests do not count)
    endpoint(1, 9, 0); // load 1
    endpoint(2, 1, 1); // load 3
    const factor = 1.5;
    const slack = 2.0;
    const limit = factor * ((20.0 + 1.0 + 3.0) / 3.0) + slack; // 14
    applyLoadGuard(c, factor, slack, prefix, session, guarded, loads);
    expect<bool>(guarded[0]).toBe(20.0 > limit);
    expect<bool>(guarded[0]).toBe(true);
    expect<f64>(prefix[0]).toBe(0.0);
    expect<f64>(session[0]).toBe(0.0);
    expect<bool>(guarded[1] || guarded[2]).toBe(false);
    expect<f64>(prefix[1]).toBe(1.0);
    expect<f64>(session[2]).toBe(1.0);
  });

  it("flags exactly the endpoints whose load exceeds the limit", () => {
    // Property over generated loads, checked against the rule computed here.
    let seed: u32 = 12345;
    for (let round = 0; round < 200; round++) {
      c.clear();
      const n = 2 + <i32>(round % 7);
      for (let k = 0; k < n; k++) {
        seed = seed * 1103515245 + 12345;
        const w = <f64>((seed >> 16) % 20);
        seed = seed * 1103515245 + 12345;
        const r = <f64>((seed >> 16) % 10);
        seed = seed * 1103515245 + 12345;
        const i = endpoint(w, r, <i32>((seed >> 16) % 5));
        if ((seed >> 8) % 4 == 0) c.hasMetrics[i] = false;
      }
      const all = new Array<f64>();
      for (let k = 0; k < n; k++) all.push((c.hasMetrics[k] ? c.waiting[k] : 0) + <f64>c.inflight[k]);
      const top = highestInlierBySorting(all, 1.0, 0); // the mean leaves out the outliers
      let sum: f64 = 0;
      let counted = 0;
      for (let k = 0; k < n; k++) {
        if (all[k] > top) continue;
        sum += all[k];
        counted++;
      }
      const limit = 1.25 * (sum / <f64>counted) + 1.0;
      applyLoadGuard(c, 1.25, 1.0, prefix, session, guarded, loads);
      for (let k = 0; k < n; k++) {
        const load = (c.hasMetrics[k] ? c.waiting[k] : 0) + <f64>c.inflight[k];
        expect<bool>(guarded[k]).toBe(load > limit);
        expect<f64>(prefix[k]).toBe(load > limit ? 0.0 : 1.0);
      }
    }
  });

  it("stays quiet at low load thanks to the slack", () => {
    c.clear();
    endpoint(2, 0, 0);
    endpoint(0, 0, 0);
    endpoint(0, 0, 0);
    // mean 2/3: without slack the first endpoint (2 > 1.5 * 2/3) would be guarded
    applyLoadGuard(c, 1.5, 2.0, prefix, session, guarded, loads);
    expect<bool>(guarded[0]).toBe(false);
    applyLoadGuard(c, 1.5, 0.0, prefix, session, guarded, loads);
    expect<bool>(guarded[0]).toBe(true);
  });

  it("does not count running requests: a pod decoding many conversations keeps its cache credit", () => {
    c.clear();
    endpoint(0, 40, 0);
    endpoint(0, 1, 0);
    endpoint(0, 1, 0);
    applyLoadGuard(c, 1.5, 0.0, prefix, session, guarded, loads);
    expect<bool>(guarded[0]).toBe(false);
    expect<f64>(prefix[0]).toBe(1.0);
  });

  it("is disabled by factor 0 and ignores unhealthy endpoints", () => {
    c.clear();
    endpoint(100, 0, 0);
    endpoint(0, 0, 0);
    applyLoadGuard(c, 0.0, 0.0, prefix, session, guarded, loads);
    expect<bool>(guarded[0]).toBe(false);
    expect<f64>(prefix[0]).toBe(1.0);

    c.clear();
    const sick = endpoint(1000, 0, 0);
    c.healthy[sick] = false;
    endpoint(4, 0, 0);
    endpoint(4, 0, 0);
    // the unhealthy endpoint's load does not inflate the mean, nor is it flagged
    applyLoadGuard(c, 1.0, 0.0, prefix, session, guarded, loads);
    expect<bool>(guarded[0] || guarded[1] || guarded[2]).toBe(false);
  });
});

describe("the load guard's mean", () => {
  it("leaves out wedged endpoints, so a hot healthy one is still guarded", () => {
    c.clear();
    endpoint(1, 0, 1); // load 2
    endpoint(2, 0, 1); // 3
    endpoint(0, 0, 1); // 1
    endpoint(1, 0, 1); // 2
    const hot = endpoint(10, 0, 4); // 14: every cached prefix sent here
    const wedged = endpoint(390, 0, 10); // 400
    endpoint(400, 0, 20); // 420
    // With the wedged two the mean is 120.6 and the limit 243; without them (and 14, over 4 times the others'
    // spread) it is 2 * 2 + 2.
    applyLoadGuard(c, 2, 2, prefix, session, guarded, loads);
    expect<bool>(guarded[hot]).toBe(true);
    expect<f64>(prefix[hot]).toBe(0.0);
    expect<bool>(guarded[wedged]).toBe(true);
    expect<bool>(guarded[0] || guarded[1] || guarded[2] || guarded[3]).toBe(false);
    expect<f64>(overloadLimit(c, 7, 2, 2, loads)).toBe(2.0 * (8.0 / 4.0) + 2.0);
  });

  it("keeps every endpoint when the high ones are not a minority (one of two, two of four)", () => {
    c.clear();
    endpoint(0, 0, 0);
    endpoint(300, 0, 0);
    expect<f64>(overloadLimit(c, 2, 1.2, 2, loads)).toBe(1.2 * 150.0 + 2.0);
    endpoint(0, 0, 0);
    endpoint(300, 0, 0);
    expect<f64>(overloadLimit(c, 4, 1.2, 2, loads)).toBe(1.2 * 150.0 + 2.0);
  });
});

describe("overloadLimit", () => {
  it("is factor * mean + slack when some healthy endpoint is above it, and Infinity when none is", () => {
    c.clear();
    endpoint(13, 6, 4); // load 17 (no outlier: 17 - 1 is not over 4 times 6 - 1)
    endpoint(1, 9, 0); // load 1
    endpoint(5, 1, 1); // load 6
    expect<f64>(overloadLimit(c, 3, 1.5, 2, loads)).toBe(1.5 * (24.0 / 3.0) + 2); // 14: the first is above it
    expect<f64>(overloadLimit(c, 3, 2, 5, loads)).toBe(Infinity); // 21: nobody is above it
    expect<f64>(overloadLimit(c, 3, 2, 0, loads)).toBe(16); // 17 is above it (exactly at it would not be)
    c.healthy[0] = false; // an unhealthy endpoint neither counts nor is marked
    expect<f64>(overloadLimit(c, 3, 1.5, 2, loads)).toBe(Infinity); // 1.5 * 3.5 + 2 = 7.25 > 6
    expect<f64>(overloadLimit(c, 3, 0, 2, loads)).toBe(Infinity); // factor 0: the guard is off
  });
});
