// The queue, KV, in-flight and prefix scores against their formulas computed one candidate at a time, bit for bit,
// on random candidates: any count (odd ones leave a candidate past the last pair), unhealthy ones, missing metrics,
// and metric values a page may carry (NaN, -0, Infinity, negatives, fractions). Run on the scalar path by
// `npm run test:as` and on the SIMD path, which takes two candidates per step, by `npm run test:as:simd`, there
// with the flags as lane masks too (Candidates.deriveLanes).
import { Candidates, LoraState } from "../../assembly/scheduling/candidates";
import { normalizeInflight, normalizeKv, normalizePrefix, normalizeQueue } from "../../assembly/scheduling/normalize";
import { Rng } from "../../assembly/scheduling/rng";
import { highestInlierBySorting } from "./support/outlier-reference";

const MAX = 41;
const c = new Candidates(MAX);
const out = new StaticArray<f64>(MAX);
const expected = new StaticArray<f64>(MAX);

function oddValue(r: Rng): f64 {
  switch (r.below(12)) {
    case 0: return NaN;
    case 1: return -0.0;
    case 2: return Infinity;
    case 3: return -Infinity;
    case 4: return -1;
    case 5: return 0.25 * <f64>r.below(9);
    case 6: return 1e6 * <f64>r.below(3);
    default: return <f64>r.below(7);
  }
}

function fill(r: Rng, n: i32): void {
  c.clear();
  for (let i = 0; i < n; i++) {
    c.add(i, r.below(5) != 0, r.below(4) != 0, oddValue(r), oddValue(r), oddValue(r), r.below(3) != 0,
      r.below(6) == 0 ? -<i32>r.below(3) : <i32>r.below(9), r.below(6) == 0 ? -1 : <i32>r.below(40), LoraState.Unknown, 0, false);
  }
}

function countOrZero(x: f64): f64 {
  return x >= 0 && x < Infinity ? x : 0;
}

function unitClamp(x: f64): f64 {
  return x >= 0 ? (x <= 1 ? x : 1) : 0;
}

// The range runs from the lowest value to the highest that is no outlier, at least the spans.
function inverseOfRange(values: Array<f64>, lo: f64, hi: f64, span: f64, relativeSpan: f64): f64 {
  if (!(hi > lo)) return 0;
  const atLeast = max<f64>(max<f64>(span, lo * relativeSpan), 1e-300);
  return 1 / max<f64>(atLeast, highestInlierBySorting(values, atLeast, 1) - lo);
}

function lowerIsBetter(x: f64, lo: f64, inverseRange: f64): f64 {
  return inverseRange > 0 ? max<f64>(1 - (x - lo) * inverseRange, 0) : 1;
}

function expectQueue(span: f64, relativeSpan: f64): void {
  const n = c.count;
  let lo = Infinity;
  let hi = -Infinity;
  const values = new Array<f64>();
  for (let i = 0; i < n; i++) {
    if (!(c.healthy[i] && c.hasMetrics[i])) continue;
    const key = countOrZero(c.waiting[i]);
    lo = min<f64>(lo, key);
    hi = max<f64>(hi, key);
    values.push(key);
  }
  const inverse = inverseOfRange(values, lo, hi, span, relativeSpan);
  for (let i = 0; i < n; i++) {
    const key = countOrZero(c.waiting[i]);
    expected[i] = c.healthy[i] && c.hasMetrics[i] ? lowerIsBetter(key, lo, inverse) : 0;
  }
}

function expectInflight(span: f64, relativeSpan: f64): void {
  const n = c.count;
  let lo = Infinity;
  let hi = -Infinity;
  const values = new Array<f64>();
  for (let i = 0; i < n; i++) {
    if (!c.healthy[i]) continue;
    const x = <f64>max<i32>(c.inflight[i], 0);
    lo = min<f64>(lo, x);
    hi = max<f64>(hi, x);
    values.push(x);
  }
  const inverse = inverseOfRange(values, lo, hi, span, relativeSpan);
  for (let i = 0; i < n; i++) expected[i] = c.healthy[i] ? lowerIsBetter(<f64>max<i32>(c.inflight[i], 0), lo, inverse) : 0;
}

function expectKv(): void {
  for (let i = 0; i < c.count; i++) expected[i] = c.healthy[i] && c.hasKv[i] ? 1 - unitClamp(c.kvUsage[i]) : 0;
}

function expectPrefix(chain: i32, chunkChars: i32, lambda: f64, creditChars: f64, creditOfBest: f64): void {
  const n = c.count;
  let lo: i32 = i32.MAX_VALUE;
  let hi: i32 = 0;
  for (let i = 0; i < n; i++) {
    if (!c.healthy[i]) continue;
    const m = min<i32>(max<i32>(c.prefixMatched[i], 0), chain);
    lo = min<i32>(lo, m);
    hi = max<i32>(hi, m);
  }
  const l = unitClamp(lambda);
  const ofBest = creditOfBest * <f64>hi * <f64>chunkChars;
  const credit = ofBest > 0 && ofBest < creditChars ? ofBest : creditChars;
  const deficitScale = credit > 0 ? <f64>chunkChars / credit : f64.MAX_VALUE;
  const marginalWeight = hi > lo ? 1 - l : 0;
  for (let i = 0; i < n; i++) {
    if (chain <= 0 || !c.healthy[i]) {
      expected[i] = 0;
      continue;
    }
    const m = min<i32>(max<i32>(c.prefixMatched[i], 0), chain);
    const behind = <f64>(hi - m) * deficitScale;
    expected[i] = (l / <f64>chain) * <f64>m + (behind < 1 ? marginalWeight * (1 - behind) : 0);
  }
}

function expectSame(what: string, round: i32): void {
  for (let i = 0; i < c.count; i++) {
    // The expectation only on a difference: one per candidate and score (~1.5 million) was most of the suite's time.
    if (reinterpret<u64>(out[i]) != reinterpret<u64>(expected[i])) {
      trace(what + " differs: round, candidate, got, expected", 4, <f64>round, <f64>i, out[i], expected[i]);
      expect<u64>(reinterpret<u64>(out[i])).toBe(reinterpret<u64>(expected[i]));
    }
  }
}

const SPANS: StaticArray<f64> = [0, 1, 4, 0.5];
const RELATIVE_SPANS: StaticArray<f64> = [0, 16, 2];

describe("scores over two candidates per step", () => {
  it("match their formulas bit for bit", () => {
    const r = new Rng(0x5eed);
    for (let round = 0; round < 3000; round++) {
      fill(r, <i32>r.below(MAX + 1));
      // Half the rounds read the flags from the candidates' lane masks (SIMD build), some with a candidate excluded
      // after the masks were derived.
      if (round % 2 == 1) c.deriveLanes(c.count);
      if (round % 4 == 3 && c.count > 0) c.exclude(<i32>r.below(c.count));
      const span = SPANS[r.below(SPANS.length)];
      const relativeSpan = RELATIVE_SPANS[r.below(RELATIVE_SPANS.length)];
      normalizeQueue(c, out, span, relativeSpan);
      expectQueue(span, relativeSpan);
      expectSame("queue", round);
      normalizeInflight(c, out, span, relativeSpan);
      expectInflight(span, relativeSpan);
      expectSame("inflight", round);
      normalizeKv(c, out);
      expectKv();
      expectSame("kv", round);
      const chain = <i32>r.below(4) == 0 ? 0 : <i32>r.below(48);
      const lambda = r.below(3) == 0 ? 1.0 : 0.5;
      const credit = r.below(4) == 0 ? 0.0 : 8192.0;
      const ofBest = r.below(3) == 0 ? 2.0 : 0.0;
      normalizePrefix(c, chain, 512, lambda, credit, out, null, ofBest);
      expectPrefix(chain, 512, lambda, credit, ofBest);
      expectSame("prefix", round);
    }
  });
});
