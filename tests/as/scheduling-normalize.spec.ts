import { Candidates, LoraState } from "../../assembly/scheduling/candidates";
import {
  normalizeQueue,
  normalizeInflight,
  normalizeKv,
  normalizePrefix,
  normalizeLora,
  normalizeFailure,
  normalizeSession,
} from "../../assembly/scheduling/normalize";

const c = new Candidates(8);
const out = new StaticArray<f64>(8);

function withLoad(waiting: f64, running: f64): i32 {
  const i = c.addSlot(c.count + 100);
  c.hasMetrics[i] = true;
  c.waiting[i] = waiting;
  c.running[i] = running;
  return i;
}

describe("normalizeQueue", () => {
  it("min-max scales waiting, lower is better", () => {
    c.clear();
    withLoad(0, 0);
    withLoad(5, 0);
    withLoad(10, 0);
    normalizeQueue(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe((10.0 - 5.0) / (10.0 - 0.0));
    expect<f64>(out[2]).toBe(0.0);
  });

  it("gives 1 to everyone when all loads are equal", () => {
    c.clear();
    withLoad(3, 2);
    withLoad(3, 2);
    normalizeQueue(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(1.0);
  });

  it("scores waiting requests only: running ones are counted by the in-flight and KV scores", () => {
    c.clear();
    withLoad(0, 0);
    withLoad(0, 40);
    withLoad(1, 0);
    normalizeQueue(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(1.0);
    expect<f64>(out[2]).toBe(0.0);
    // nobody waits: everyone scores 1, however many each is decoding
    c.clear();
    withLoad(0, 1000);
    withLoad(0, 0);
    normalizeQueue(c, out, 4);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(1.0);
  });

  it("gives 0 to candidates without metrics and leaves them out of the range", () => {
    c.clear();
    withLoad(2, 0);
    c.addSlot(7); // no metrics
    withLoad(6, 0);
    normalizeQueue(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(0.0);
    expect<f64>(out[2]).toBe(0.0);
  });

  it("leaves unhealthy candidates out of the range", () => {
    c.clear();
    withLoad(4, 0);
    const sick = withLoad(0, 0);
    c.healthy[sick] = false;
    withLoad(8, 0);
    normalizeQueue(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(0.0);
    expect<f64>(out[2]).toBe(0.0);
  });

  it("treats NaN or negative counts as 0", () => {
    c.clear();
    withLoad(NaN, -3);
    withLoad(2, 0);
    normalizeQueue(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(0.0);
  });
});

describe("normalizeInflight", () => {
  it("min-max scales leases over healthy candidates", () => {
    c.clear();
    c.inflight[c.addSlot(0)] = 2;
    c.inflight[c.addSlot(1)] = 6;
    c.inflight[c.addSlot(2)] = 3;
    const sick = c.addSlot(3);
    c.healthy[sick] = false;
    normalizeInflight(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(0.0);
    expect<f64>(out[2]).toBe((6.0 - 3.0) / (6.0 - 2.0));
    expect<f64>(out[3]).toBe(0.0);
  });

  it("gives 1 to everyone when equal", () => {
    c.clear();
    c.addSlot(0);
    c.addSlot(1);
    normalizeInflight(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(1.0);
  });
});

describe("normalizeKv", () => {
  it("scores free cache and 0 when missing", () => {
    c.clear();
    const a = c.addSlot(0);
    c.hasKv[a] = true;
    c.kvUsage[a] = 0.3;
    c.addSlot(1);
    const b = c.addSlot(2);
    c.hasKv[b] = true;
    c.kvUsage[b] = 1.7; // clamped to 1
    normalizeKv(c, out);
    expect<f64>(out[0]).toBe(1.0 - 0.3);
    expect<f64>(out[1]).toBe(0.0);
    expect<f64>(out[2]).toBe(0.0);
  });
});

describe("normalizePrefix", () => {
  it("mixes the matched fraction and the prefill a candidate saves against the best one", () => {
    c.clear();
    c.prefixMatched[c.addSlot(0)] = 0;
    c.prefixMatched[c.addSlot(1)] = 4;
    c.prefixMatched[c.addSlot(2)] = 10;
    c.prefixMatched[c.addSlot(3)] = 99; // more than the chain: clamped to n
    const n = 10;
    const chunk = 512;
    const lambda = 0.25;
    const credit: f64 = 4096; // 8 chunks behind the best earn nothing of the second term
    normalizePrefix(c, n, chunk, lambda, credit, out);
    expect<f64>(out[0]).toBe(0.0);
    expect<f64>(out[1]).toBeCloseTo(lambda * (4.0 / 10.0) + (1 - lambda) * (1 - (6.0 * 512.0) / credit));
    expect<f64>(out[2]).toBeCloseTo(lambda * 1.0 + (1 - lambda) * 1.0);
    expect<f64>(out[3]).toBe(out[2]);
  });

  it("gives a shared beginning no edge: what every candidate holds earns only its fraction", () => {
    c.clear();
    // Every endpoint holds the 40-chunk system prompt; one also holds the conversation (100 of 104 chunks).
    for (let i = 0; i < 4; i++) c.prefixMatched[c.addSlot(i)] = 40;
    c.prefixMatched[2] = 100;
    normalizePrefix(c, 104, 512, 0.5, 8192, out);
    expect<f64>(out[2]).toBeCloseTo(0.5 * (100.0 / 104.0) + 0.5);
    expect<f64>(out[0]).toBeCloseTo(0.5 * (40.0 / 104.0), 12);
    expect<f64>(out[2] - out[0]).toBeGreaterThan(0.75);
    // All equal: nobody saves anything over another; only the fraction remains.
    c.prefixMatched[2] = 40;
    normalizePrefix(c, 104, 512, 0.5, 8192, out);
    for (let i = 0; i < 4; i++) expect<f64>(out[i]).toBeCloseTo(0.5 * (40.0 / 104.0), 12);
  });

  it("with creditOfBestMatch, charges a deficit against the best's own match when that is shorter", () => {
    c.clear();
    // A group's 3-chunk system prompt on one endpoint, nothing on the others.
    c.prefixMatched[c.addSlot(0)] = 3;
    c.prefixMatched[c.addSlot(1)] = 0;
    normalizePrefix(c, 4, 512, 0.5, 8192, out);
    const plain = out[1];
    expect<f64>(plain).toBeCloseTo(0.5 * (1 - (3.0 * 512.0) / 8192.0));
    // Against 2 x 3 chunks (3072 characters) instead of 8192: half the term lost.
    normalizePrefix(c, 4, 512, 0.5, 8192, out, null, 2);
    expect<f64>(out[1]).toBeCloseTo(0.5 * (1 - 3.0 / 6.0));
    expect<f64>(out[0]).toBeCloseTo(0.5 * (3.0 / 4.0) + 0.5);
    // At 1 a candidate lacking all of the best's match loses the whole term.
    normalizePrefix(c, 4, 512, 0.5, 8192, out, null, 1);
    expect<f64>(out[1]).toBe(0.0);
    // A deficit within a long match is still charged against lengthCreditChars (k x best is longer).
    c.clear();
    c.prefixMatched[c.addSlot(0)] = 100;
    c.prefixMatched[c.addSlot(1)] = 96;
    normalizePrefix(c, 104, 512, 0.5, 8192, out);
    const long = out[1];
    normalizePrefix(c, 104, 512, 0.5, 8192, out, null, 2);
    expect<f64>(out[1]).toBe(long);
    // No candidate matches anything: no term, whatever k.
    c.prefixMatched[0] = 0;
    c.prefixMatched[1] = 0;
    normalizePrefix(c, 104, 512, 0.5, 8192, out, null, 2);
    expect<f64>(out[0]).toBe(0.0);
    expect<f64>(out[1]).toBe(0.0);
  });

  it("ignores unhealthy candidates for the best match", () => {
    c.clear();
    c.prefixMatched[c.addSlot(0)] = 50;
    c.prefixMatched[c.addSlot(1)] = 10;
    c.healthy[0] = false;
    c.prefixMatched[c.addSlot(2)] = 10;
    normalizePrefix(c, 60, 512, 0.5, 8192, out);
    expect<f64>(out[0]).toBe(0.0);
    expect<f64>(out[1]).toBe(out[2]);
    expect<f64>(out[1]).toBeCloseTo(0.5 * (10.0 / 60.0), 12);
  });

  it("scores 0 for everyone when the chain is empty", () => {
    c.clear();
    c.prefixMatched[c.addSlot(0)] = 3;
    normalizePrefix(c, 0, 256, 0.5, 8192, out);
    expect<f64>(out[0]).toBe(0.0);
  });

  it("is monotone in matched chunks", () => {
    c.clear();
    for (let m = 0; m < 8; m++) c.prefixMatched[c.addSlot(m)] = m;
    normalizePrefix(c, 7, 300, 0.5, 1000, out);
    for (let i = 1; i < 8; i++) expect<f64>(out[i]).toBeGreaterThanOrEqual(out[i - 1]);
    for (let i = 0; i < 8; i++) expect<bool>(out[i] >= 0 && out[i] <= 1).toBe(true);
  });
});

describe("normalizeLora, normalizeFailure, normalizeSession", () => {
  it("scores adapter residency", () => {
    c.clear();
    c.loraState[c.addSlot(0)] = LoraState.Running;
    c.loraState[c.addSlot(1)] = LoraState.Waiting;
    c.loraState[c.addSlot(2)] = LoraState.NotLoaded;
    c.addSlot(3); // unknown
    c.loraState[c.addSlot(4)] = LoraState.CanLoad;
    c.loraState[c.addSlot(5)] = LoraState.Resident;
    normalizeLora(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(0.5);
    expect<f64>(out[2]).toBe(0.0);
    expect<f64>(out[3]).toBe(0.0);
    expect<f64>(out[4]).toBe(0.8);
    // Likely still loaded: no load to wait for, but only an estimate.
    expect<f64>(out[5]).toBe(0.9);
  });

  it("scores 1 - failure rate", () => {
    c.clear();
    c.failureEwma[c.addSlot(0)] = 0.2;
    c.failureEwma[c.addSlot(1)] = NaN;
    normalizeFailure(c, out);
    expect<f64>(out[0]).toBe(1.0 - 0.2);
    expect<f64>(out[1]).toBe(1.0);
  });

  it("scores a session match and gives unhealthy candidates nothing", () => {
    c.clear();
    c.sessionMatch[c.addSlot(0)] = true;
    c.addSlot(1);
    const sick = c.addSlot(2);
    c.sessionMatch[sick] = true;
    c.healthy[sick] = false;
    normalizeSession(c, out);
    expect<f64>(out[0]).toBe(1.0);
    expect<f64>(out[1]).toBe(0.0);
    expect<f64>(out[2]).toBe(0.0);
  });
});

describe("Candidates", () => {
  it("refuses to grow past its capacity", () => {
    const small = new Candidates(2);
    expect<i32>(small.addSlot(1)).toBe(0);
    expect<i32>(small.add(2, true, true, 1, 1, 0.5, true, 0, 0, -1, 0, false)).toBe(1);
    expect<i32>(small.addSlot(3)).toBe(-1);
    expect<i32>(small.count).toBe(2);
    small.count = 50; // a bad write is bounded
    expect<i32>(small.boundedCount(64)).toBe(2);
    expect<i32>(small.boundedCount(1)).toBe(1);
  });
});
