// Per-signal scores in [0, 1], higher is better, one per candidate, written into caller-owned arrays.
// Unhealthy candidates get 0 and are left out of every min/max. A candidate lacking a signal gets 0 for it.
// The candidate arrays are read through locals: a store into out could alias a field as far as the compiler knows,
// so c.<field> would be reloaded every iteration. The SIMD build takes two candidates per step in the loops that
// run on every request (queue, KV, in flight, prefix), with the same operations in the same order per candidate,
// so every score is the same to the bit; a min or max may differ from the scalar one only in the sign of a zero,
// which no score depends on (1 - (x - lo) * r is the same for lo = +0 and -0).
import { Candidates, LoraState } from "./candidates";
import { CandidateRanges } from "./candidate-ranges";
import { TotalsSummary, rankPairsEnd, rankRest, scaledTotalsPair } from "./rank-totals";
import { fourTerms, fourTermsPair } from "./four-terms";
import {
  countOrZero, countPairAsF64, countsOrZero, currentLanes, flagLanes32, flagLanes64, highestI32Lane, highestLane,
  lowestI32Lane, lowestLane,
} from "./lane-masks";
import { highestInlier, mayHaveOutliers } from "./outliers";

// @ts-ignore: decorator
@inline
function unitClamp(x: f64): f64 {
  return x >= 0 ? (x <= 1 ? x : 1) : 0; // NaN -> 0
}

// Lower is better: 1 - (x - lo) / max(hi - lo, span) over the values present, so the best gets 1 and the worst
// 1 - (hi - lo) / span when the spread is below `span`, 0 otherwise; all equal -> 1 for everyone; never below 0
// (an outlier, below). Plain min-max (span 0) would charge the full weight for a spread of one request, which lets
// one queued request outweigh a whole conversation's cached history; the span says how large a spread must be to
// count in full. Takes 1 / max(hi - lo, span), computed once per signal (0 when nothing differs): divisions
// dominate a pick.
// @ts-ignore: decorator
@inline
function lowerIsBetter(x: f64, lo: f64, inverseRange: f64): f64 {
  if (!(inverseRange > 0)) return 1;
  const s = 1 - (x - lo) * inverseRange;
  return s < 0 ? 0 : s; // as f64x2.pmax(s, 0)
}

// The span also grows to `relativeSpan` times the lowest value: when every candidate already queues (or has
// requests in flight), none is idle, and a spread matters relative to the wait every request faces anyway; a move
// that costs a cached prefix adds a prefill to the queue it joins. With an idle candidate (lo 0) only `span` counts.
// A spread below MIN_RANGE counts as MIN_RANGE: 1 / range must stay finite, or (x - lo) * Infinity makes the best
// candidate's score NaN (0 * Infinity). Only a metrics page reporting subnormal counts (5e-324 waiting) with both
// spans 0 gets there; any real spread is far above it.
const MIN_RANGE: f64 = 1e-300;

// Outliers (outliers.ts: values far above the others', such as wedged engines whose metrics still answer with
// hundreds waiting) do not set the range: it ends at the highest other value, and they score 0 (scores are clamped at
// 0). Otherwise every healthy candidate would score near 1, leaving only the cache terms to choose among them. With
// two candidates the scores are those of plain min-max with spans either way: the higher one scores 0 once the
// spread passes the span.

// The smallest spread that counts in full: span, or relativeSpan times the lowest value, at least MIN_RANGE.
// @ts-ignore: decorator
@inline
function spreadFloor(lo: f64, span: f64, relativeSpan: f64): f64 {
  const relative = lo * relativeSpan;
  const spanOrRelative = span > relative ? span : relative;
  return spanOrRelative > MIN_RANGE ? spanOrRelative : MIN_RANGE; // NaN spans: MIN_RANGE
}

// 1 / the range scores are spread over, from lo to top (the highest value that is no outlier), at least floor;
// 0 when every value present is the same (hi not above lo).
// @ts-ignore: decorator
@inline
function inverseOfRange(lo: f64, hi: f64, top: f64, floor: f64): f64 {
  if (!(hi > lo)) return 0;
  const range = top - lo;
  return 1 / (floor > range ? floor : range);
}

// lowerIsBetter of two lanes, lo and inverseRange splatted. No test of inverseRange: it is 0 (every value the same)
// or above 0 (inverseOfRange), and at 0 this gives 1 - (x - lo) * 0 = 1, as lowerIsBetter does, in every lane the
// caller keeps (x and lo finite there, x >= lo); the lanes it masks out may read anything.
// @ts-ignore: decorator
@inline
function lowerIsBetterPair(x: v128, lo: v128, inverseRange: v128): v128 {
  const s = f64x2.sub(f64x2.splat(1), f64x2.mul(f64x2.sub(x, lo), inverseRange));
  return f64x2.pmax(s, f64x2.splat(0));
}

// Queue pressure: waiting requests only. Running requests are left out: the metrics report them once per refresh,
// so between refreshes a term for them sends every request to the same pod (the one that last read lowest), and what
// a pod is already decoding is counted live by the in-flight score and in memory by the KV score. Min-max over
// candidates with metrics, with a spread of at least `span` and of `relativeSpan` times the shortest queue, outliers
// left out.
export function normalizeQueue(
  c: Candidates, out: StaticArray<f64>, span: f64 = 0, relativeSpan: f64 = 0, ranges: CandidateRanges | null = null,
): void {
  const n = c.boundedCount(out.length);
  const healthy = c.healthy;
  const hasMetrics = c.hasMetrics;
  const waiting = c.waiting;
  let lo = Infinity;
  let hi = -Infinity;
  let i = 0;
  if (ranges !== null && ranges.count == n) {
    lo = ranges.queueLo;
    hi = ranges.queueHi;
    i = n;
  } else if (ASC_FEATURE_SIMD) {
    let low = f64x2.splat(Infinity);
    let high = f64x2.splat(-Infinity);
    const healthyLanes = currentLanes(c, c.healthyLanes);
    const hasMetricsLanes = currentLanes(c, c.hasMetricsLanes);
    for (; i + 2 <= n; i += 2) {
      const ok = v128.and(flagLanes64(healthyLanes, changetype<usize>(healthy), i),
        flagLanes64(hasMetricsLanes, changetype<usize>(hasMetrics), i));
      const key = countsOrZero(v128.load(changetype<usize>(waiting) + (<usize>i << 3)));
      low = f64x2.pmin(low, v128.bitselect(key, f64x2.splat(Infinity), ok));
      high = f64x2.pmax(high, v128.bitselect(key, f64x2.splat(-Infinity), ok));
    }
    lo = lowestLane(low);
    hi = highestLane(high);
  }
  for (; i < n; i++) {
    if (unchecked(healthy[i]) && unchecked(hasMetrics[i])) {
      const key = countOrZero(unchecked(waiting[i]));
      if (key < lo) lo = key;
      if (key > hi) hi = key;
    }
  }
  const inverseRange = queueInverseRange(c, n, out, lo, hi, span, relativeSpan);
  i = 0;
  if (ASC_FEATURE_SIMD) {
    const loLanes = f64x2.splat(lo);
    const inverseLanes = f64x2.splat(inverseRange);
    const healthyLanes = currentLanes(c, c.healthyLanes);
    const hasMetricsLanes = currentLanes(c, c.hasMetricsLanes);
    for (; i + 2 <= n; i += 2) {
      const ok = v128.and(flagLanes64(healthyLanes, changetype<usize>(healthy), i),
        flagLanes64(hasMetricsLanes, changetype<usize>(hasMetrics), i));
      const key = countsOrZero(v128.load(changetype<usize>(waiting) + (<usize>i << 3)));
      v128.store(changetype<usize>(out) + (<usize>i << 3), v128.and(lowerIsBetterPair(key, loLanes, inverseLanes), ok));
    }
  }
  for (; i < n; i++) {
    const ok = unchecked(healthy[i]) && unchecked(hasMetrics[i]);
    unchecked((out[i] = ok ? lowerIsBetter(countOrZero(unchecked(waiting[i])), lo, inverseRange) : 0));
  }
}

// 1 / the queue scores' range, from the lowest and highest waiting (lo, hi); out holds the keys when outliers are
// possible (the scores overwrite them).
function queueInverseRange(c: Candidates, n: i32, out: StaticArray<f64>, lo: f64, hi: f64, span: f64, relativeSpan: f64): f64 {
  const floor = spreadFloor(lo, span, relativeSpan);
  let top = hi;
  if (mayHaveOutliers(lo, hi, floor)) {
    const healthy = c.healthy;
    const hasMetrics = c.hasMetrics;
    const waiting = c.waiting;
    for (let k = 0; k < n; k++) {
      const key = unchecked(healthy[k]) && unchecked(hasMetrics[k]) ? countOrZero(unchecked(waiting[k])) : -1;
      unchecked((out[k] = key));
    }
    top = highestInlier(out, n, lo, hi, floor, 1);
  }
  return inverseOfRange(lo, hi, top, floor);
}

// 1 / the in-flight scores' range, as queueInverseRange.
function inflightInverseRange(c: Candidates, n: i32, out: StaticArray<f64>, lo: f64, hi: f64, span: f64, relativeSpan: f64): f64 {
  const floor = spreadFloor(lo, span, relativeSpan);
  let top = hi;
  if (mayHaveOutliers(lo, hi, floor)) {
    const healthy = c.healthy;
    const inflight = c.inflight;
    for (let k = 0; k < n; k++) {
      unchecked((out[k] = unchecked(healthy[k]) ? <f64>max<i32>(unchecked(inflight[k]), 0) : -1));
    }
    top = highestInlier(out, n, lo, hi, floor, 1);
  }
  return inverseOfRange(lo, hi, top, floor);
}

// The gateway's (or this worker's) requests in flight per endpoint; min-max over healthy candidates with a spread of
// at least `span` and of `relativeSpan` times the fewest, outliers left out, lower is better.
export function normalizeInflight(
  c: Candidates, out: StaticArray<f64>, span: f64 = 0, relativeSpan: f64 = 0, ranges: CandidateRanges | null = null,
): void {
  const n = c.boundedCount(out.length);
  const healthy = c.healthy;
  const inflight = c.inflight;
  let lo = Infinity;
  let hi = -Infinity;
  let i = 0;
  if (ranges !== null && ranges.count == n) {
    lo = ranges.inflightLo;
    hi = ranges.inflightHi;
    i = n;
  } else if (ASC_FEATURE_SIMD) {
    // In whole counts (exact as f64); -1 as the highest means no candidate was seen.
    let low = i32x4.splat(i32.MAX_VALUE);
    let high = i32x4.splat(-1);
    const healthyLanes32 = currentLanes(c, c.healthyLanes32);
    if (healthyLanes32 != 0) {
      // With the masks at hand, four candidates per step.
      for (; i + 4 <= n; i += 4) {
        const ok = v128.load(healthyLanes32 + (<usize>i << 2));
        const x = i32x4.max_s(v128.load(changetype<usize>(inflight) + (<usize>i << 2)), i32x4.splat(0));
        low = i32x4.min_s(low, v128.bitselect(x, i32x4.splat(i32.MAX_VALUE), ok));
        high = i32x4.max_s(high, v128.bitselect(x, i32x4.splat(-1), ok));
      }
    }
    for (; i + 2 <= n; i += 2) {
      const ok = flagLanes32(healthyLanes32, changetype<usize>(healthy), i); // lanes 2 and 3 are never set
      const x = i32x4.max_s(v128.load64_zero(changetype<usize>(inflight) + (<usize>i << 2)), i32x4.splat(0));
      low = i32x4.min_s(low, v128.bitselect(x, i32x4.splat(i32.MAX_VALUE), ok));
      high = i32x4.max_s(high, v128.bitselect(x, i32x4.splat(-1), ok));
    }
    const most = highestI32Lane(high);
    if (most >= 0) {
      lo = <f64>lowestI32Lane(low);
      hi = <f64>most;
    }
  }
  for (; i < n; i++) {
    if (!unchecked(healthy[i])) continue;
    const x = <f64>max<i32>(unchecked(inflight[i]), 0);
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  const inverseRange = inflightInverseRange(c, n, out, lo, hi, span, relativeSpan);
  i = 0;
  if (ASC_FEATURE_SIMD) {
    const loLanes = f64x2.splat(lo);
    const inverseLanes = f64x2.splat(inverseRange);
    const healthyLanes = currentLanes(c, c.healthyLanes);
    for (; i + 2 <= n; i += 2) {
      const x = countPairAsF64(changetype<usize>(inflight) + (<usize>i << 2));
      v128.store(changetype<usize>(out) + (<usize>i << 3),
        v128.and(lowerIsBetterPair(x, loLanes, inverseLanes), flagLanes64(healthyLanes, changetype<usize>(healthy), i)));
    }
  }
  for (; i < n; i++) {
    const x = <f64>max<i32>(unchecked(inflight[i]), 0);
    unchecked((out[i] = unchecked(healthy[i]) ? lowerIsBetter(x, lo, inverseRange) : 0));
  }
}

// Free KV cache: 1 - usage.
export function normalizeKv(c: Candidates, out: StaticArray<f64>): void {
  const n = c.boundedCount(out.length);
  const healthy = c.healthy;
  const kvUsage = c.kvUsage;
  const hasKv = c.hasKv;
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    const one = f64x2.splat(1);
    const zero = f64x2.splat(0);
    const healthyLanes = currentLanes(c, c.healthyLanes);
    const hasKvLanes = currentLanes(c, c.hasKvLanes);
    for (; i + 2 <= n; i += 2) {
      const at = <usize>i << 3;
      const ok = v128.and(flagLanes64(healthyLanes, changetype<usize>(healthy), i),
        flagLanes64(hasKvLanes, changetype<usize>(hasKv), i));
      const u = v128.load(changetype<usize>(kvUsage) + at);
      // unitClamp: u >= 0 ? (u <= 1 ? u : 1) : 0, NaN -> 0
      const clamped = v128.bitselect(v128.bitselect(u, one, f64x2.le(u, one)), zero, f64x2.ge(u, zero));
      v128.store(changetype<usize>(out) + at, v128.and(f64x2.sub(one, clamped), ok));
    }
  }
  for (; i < n; i++) {
    const ok = unchecked(healthy[i]) && unchecked(hasKv[i]);
    unchecked((out[i] = ok ? 1 - unitClamp(unchecked(kvUsage[i])) : 0));
  }
}

// Share of the prefix score's second term lost per chunk behind the best candidate, which matches hi chunks: the
// deficit is charged against lengthCreditChars or, with creditOfBestMatch k > 0, against k times the best's matched
// characters when that is shorter, so a candidate lacking all of a short best match (a group's system prompt the
// others never saw) loses the whole term, while a deficit within a long match (a conversation's latest turn) is
// still charged against lengthCreditChars. A credit <= 0 charges any deficit in full.
// @ts-ignore: decorator
@inline
export function prefixDeficitScale(chunkChars: i32, lengthCreditChars: f64, creditOfBestMatch: f64, hi: i32): f64 {
  const chunk = <f64>max<i32>(chunkChars, 0);
  let credit = lengthCreditChars;
  const ofBest = creditOfBestMatch * <f64>hi * chunk;
  if (ofBest > 0 && ofBest < credit) credit = ofBest;
  return credit > 0 ? chunk / credit : f64.MAX_VALUE;
}

// Cached prefix: lambda * (m / n) + (1 - lambda) * max(0, 1 - (hi - m) * chunkChars / lengthCreditChars), m matched
// chunks of a chain of n, hi the most matched over the healthy candidates. The first term rewards covering the
// request; the second is the prefill a candidate would add over the best one: a candidate lengthCreditChars or
// more behind the best earns none of it, whatever beginning (a long shared system prompt) it does hold, so a
// conversation's history counts in full against a pod holding only its system prompt, and a candidate a chunk
// behind loses only that chunk's share. When every candidate matches the same length the term is 0 for all (no
// candidate saves prefill over another). n <= 0 -> 0 for everyone.
// With creditOfBestMatch > 0 the deficit is charged against the shorter of lengthCreditChars and that many times the
// best's match (prefixDeficitScale).
export function normalizePrefix(
  c: Candidates,
  chainLength: i32,
  chunkChars: i32,
  lambda: f64,
  lengthCreditChars: f64,
  out: StaticArray<f64>,
  ranges: CandidateRanges | null = null,
  creditOfBestMatch: f64 = 0,
): void {
  const n = c.boundedCount(out.length);
  if (chainLength <= 0) {
    for (let i = 0; i < n; i++) unchecked((out[i] = 0));
    return;
  }
  const healthy = c.healthy;
  const prefixMatched = c.prefixMatched;
  const l = unitClamp(lambda);
  const fractionScale = chainLength > 0 ? l / <f64>chainLength : 0;
  let lo: i32 = i32.MAX_VALUE;
  let hi: i32 = 0;
  let i = 0;
  if (ranges !== null && ranges.count == n && ranges.chainLength == chainLength) {
    lo = ranges.prefixLo;
    hi = ranges.prefixHi;
    i = n;
  } else if (ASC_FEATURE_SIMD) {
    const zero = i32x4.splat(0);
    const chain = i32x4.splat(chainLength);
    let low = i32x4.splat(i32.MAX_VALUE);
    let high = zero;
    const healthyLanes32 = currentLanes(c, c.healthyLanes32);
    if (healthyLanes32 != 0) {
      // With the masks at hand, four candidates per step.
      for (; i + 4 <= n; i += 4) {
        const ok = v128.load(healthyLanes32 + (<usize>i << 2));
        const m = i32x4.min_s(i32x4.max_s(v128.load(changetype<usize>(prefixMatched) + (<usize>i << 2)), zero), chain);
        low = i32x4.min_s(low, v128.bitselect(m, i32x4.splat(i32.MAX_VALUE), ok));
        high = i32x4.max_s(high, v128.and(m, ok));
      }
    }
    for (; i + 2 <= n; i += 2) {
      const ok = flagLanes32(healthyLanes32, changetype<usize>(healthy), i); // lanes 2 and 3 are never set
      const m = i32x4.min_s(i32x4.max_s(v128.load64_zero(changetype<usize>(prefixMatched) + (<usize>i << 2)), zero), chain);
      low = i32x4.min_s(low, v128.bitselect(m, i32x4.splat(i32.MAX_VALUE), ok));
      high = i32x4.max_s(high, v128.and(m, ok));
    }
    lo = lowestI32Lane(low);
    hi = highestI32Lane(high);
  }
  for (; i < n; i++) {
    if (!unchecked(healthy[i])) continue;
    const m = min<i32>(max<i32>(unchecked(prefixMatched[i]), 0), max<i32>(chainLength, 0));
    if (m < lo) lo = m;
    if (m > hi) hi = m;
  }
  const deficitScale = prefixDeficitScale(chunkChars, lengthCreditChars, creditOfBestMatch, hi);
  const marginalWeight = hi > lo ? 1 - l : 0;
  i = 0;
  if (ASC_FEATURE_SIMD) {
    const zero = i32x4.splat(0);
    const chain = i32x4.splat(chainLength);
    const best = i32x4.splat(hi);
    const one = f64x2.splat(1);
    const fraction = f64x2.splat(fractionScale);
    const deficit = f64x2.splat(deficitScale);
    const marginal = f64x2.splat(marginalWeight);
    const healthyLanes = currentLanes(c, c.healthyLanes);
    for (; i + 2 <= n; i += 2) {
      const m = i32x4.min_s(i32x4.max_s(v128.load64_zero(changetype<usize>(prefixMatched) + (<usize>i << 2)), zero), chain);
      const behind = f64x2.mul(f64x2.convert_low_i32x4_s(i32x4.sub(best, m)), deficit);
      const credit = v128.and(f64x2.mul(marginal, f64x2.sub(one, behind)), f64x2.lt(behind, one));
      const s = f64x2.add(f64x2.mul(fraction, f64x2.convert_low_i32x4_s(m)), credit);
      v128.store(changetype<usize>(out) + (<usize>i << 3), v128.and(s, flagLanes64(healthyLanes, changetype<usize>(healthy), i)));
    }
  }
  for (; i < n; i++) {
    let s: f64 = 0;
    if (chainLength > 0 && unchecked(healthy[i])) {
      const m = min<i32>(max<i32>(unchecked(prefixMatched[i]), 0), chainLength);
      const behind = <f64>(hi - m) * deficitScale;
      s = fractionScale * <f64>m + (behind < 1 ? marginalWeight * (1 - behind) : 0);
    }
    unchecked((out[i] = s));
  }
}

/** The four-term totals a pick's score pass may sum and rank as it goes (score.ts totalScores, no candidate
 *  guarded): the weights of the queue, KV, prefix and in-flight scores, in that order (the scorer list's), the KV
 *  scores, 1 / the weight sum, and where the totals and the ranking go. */
export class FourTermTotals {
  kvScores: StaticArray<f64> = new StaticArray<f64>(0);
  queueWeight: f64 = 0;
  kvWeight: f64 = 0;
  prefixWeight: f64 = 0;
  inflightWeight: f64 = 0;
  /** The weighted terms after the four (scorer-list order) that are the same on every healthy candidate (a scorer's
   *  uniformScore times its weight), added in that order after the four as totalScores adds them; the first
   *  constantCount count. */
  constantTerms: StaticArray<f64> = new StaticArray<f64>(0);
  constantCount: i32 = 0;
  inverseSum: f64 = 0;
  total: StaticArray<f64> = new StaticArray<f64>(0);
  summary: TotalsSummary = new TotalsSummary();
}

// The scores of candidates i and i + 1 (SIMD build, the lane masks current), as normalizeQueue, normalizeInflight and
// normalizePrefix's loops write them once masked: the queue's with `mask` (healthy and with metrics), the other two
// with the healthy lanes (the caller's; a pass summing the totals masks only the totals). The candidate arrays come
// as addresses read once before the loop: read through c, each would be loaded again after every store to a score
// array (which could alias c's fields as far as the compiler knows).
// @ts-ignore: decorator
@inline
function queuePair(waiting: usize, i: i32, mask: v128, lo: v128, inverseRange: v128): v128 {
  const key = countsOrZero(v128.load(waiting + (<usize>i << 3)));
  return v128.and(lowerIsBetterPair(key, lo, inverseRange), mask);
}

// @ts-ignore: decorator
@inline
function inflightPair(inflight: usize, i: i32, lo: v128, inverseRange: v128): v128 {
  return lowerIsBetterPair(countPairAsF64(inflight + (<usize>i << 2)), lo, inverseRange);
}

// best: the most matched chunks as f64 lanes. Whole counts below 2^31, so best - m is exact, the same as the scalar
// <f64>(hi - m).
// @ts-ignore: decorator
@inline
function prefixPair(prefixMatched: usize, i: i32, chain: v128, best: v128, fraction: v128, deficit: v128, marginal: v128): v128 {
  const one = f64x2.splat(1);
  const m = f64x2.convert_low_i32x4_s(
    i32x4.min_s(i32x4.max_s(v128.load64_zero(prefixMatched + (<usize>i << 2)), i32x4.splat(0)), chain));
  const behind = f64x2.mul(f64x2.sub(best, m), deficit);
  const credit = v128.and(f64x2.mul(marginal, f64x2.sub(one, behind)), f64x2.lt(behind, one));
  return f64x2.add(f64x2.mul(fraction, m), credit);
}

// Sums and ranks the totals of candidates from `from` two per step (SIMD build, the lane masks current), as
// normalizeLoadAndPrefix's pass with totals does, without writing the three scores; returns where it stopped (the
// candidates past it are one at a time). constantTerms is a literal at each call, so each call compiles to a loop of its
// own: 0 and 1 for that many constant terms (the default weights plan one, the LoRA score's), 2 for t4.constantCount
// of them in a loop of their own per step.
// @ts-ignore: decorator
@inline
function sumAndRankPairs(
  c: Candidates, n: i32, t4: FourTermTotals, constantTerms: i32,
  queueLo: f64, queueInverse: f64, inflightLo: f64, inflightInverse: f64,
  chainLength: i32, hi: i32, fractionScale: f64, deficitScale: f64, marginalWeight: f64,
): i32 {
  const chain = i32x4.splat(chainLength);
  const best = f64x2.splat(<f64>hi);
  const fraction = f64x2.splat(fractionScale);
  const deficit = f64x2.splat(deficitScale);
  const marginal = f64x2.splat(marginalWeight);
  const healthyLanes = changetype<usize>(c.healthyLanes);
  const hasMetricsLanes = changetype<usize>(c.hasMetricsLanes);
  const waitingAt = changetype<usize>(c.waiting);
  const inflightAt = changetype<usize>(c.inflight);
  const prefixMatchedAt = changetype<usize>(c.prefixMatched);
  const queueLoLanes = f64x2.splat(queueLo);
  const queueInverseLanes = f64x2.splat(queueInverse);
  const inflightLoLanes = f64x2.splat(inflightLo);
  const inflightInverseLanes = f64x2.splat(inflightInverse);
  const kv = changetype<usize>(t4.kvScores);
  const sums = changetype<usize>(t4.total);
  const v0 = f64x2.splat(t4.queueWeight);
  const v1 = f64x2.splat(t4.kvWeight);
  const v2 = f64x2.splat(t4.prefixWeight);
  const v3 = f64x2.splat(t4.inflightWeight);
  const scale = f64x2.splat(t4.inverseSum);
  const constants = t4.constantTerms;
  const constantCount = min<i32>(t4.constantCount, constants.length);
  const first = f64x2.splat(constantCount > 0 ? unchecked(constants[0]) : 0);
  const none = f64x2.splat(-Infinity);
  let top = none;
  let next = none;
  let i = 0;
  for (; i + 2 <= n; i += 2) {
    const at = <usize>i << 3;
    const ok = v128.load(healthyLanes + at);
    // Unhealthy lanes unmasked: scaledTotalsPair zeroes their totals.
    const q = queuePair(waitingAt, i, v128.load(hasMetricsLanes + at), queueLoLanes, queueInverseLanes);
    const f = inflightPair(inflightAt, i, inflightLoLanes, inflightInverseLanes);
    const p = prefixPair(prefixMatchedAt, i, chain, best, fraction, deficit, marginal);
    // As totalScores adds, scales and ranks them.
    let sum = fourTermsPair(v0, q, v1, v128.load(kv + at), v2, p, v3, f);
    if (constantTerms == 1) {
      sum = f64x2.add(sum, first);
    } else if (constantTerms > 1) {
      for (let t = 0; t < constantCount; t++) sum = f64x2.add(sum, f64x2.splat(unchecked(constants[t])));
    }
    const x = scaledTotalsPair(sum, scale, ok, sums + at);
    next = f64x2.pmax(next, f64x2.pmin(top, x));
    top = f64x2.pmax(top, x);
  }
  rankPairsEnd(c, t4.total, i, top, next, t4.summary);
  return i;
}

/**
 * normalizeQueue, normalizeInflight and normalizePrefix of a pick in one pass over the candidates, from the ranges
 * measured for them (candidate-ranges.ts): the same scores to the bit. Each out needs room for ranges.count
 * candidates; otherwise, or for a chain of 0, the three run on their own. With totals (not null, and its arrays with
 * that room; SIMD build, the lane masks current) the pass writes the four-term totals and their ranking instead, as
 * totalScores would with no candidate guarded, and returns true: the three outs then hold no scores to read (a pass
 * without totals writes them, the same to the bit).
 */
export function normalizeLoadAndPrefix(
  c: Candidates, ranges: CandidateRanges,
  queueOut: StaticArray<f64>, queueSpan: f64, queueRelativeSpan: f64,
  inflightOut: StaticArray<f64>, inflightSpan: f64, inflightRelativeSpan: f64,
  chainLength: i32, chunkChars: i32, lambda: f64, lengthCreditChars: f64, prefixOut: StaticArray<f64>,
  totals: FourTermTotals | null = null, creditOfBestMatch: f64 = 0,
): bool {
  const n = ranges.count;
  if (chainLength <= 0 || ranges.chainLength != chainLength ||
      n != c.boundedCount(min<i32>(queueOut.length, min<i32>(inflightOut.length, prefixOut.length)))) {
    normalizeQueue(c, queueOut, queueSpan, queueRelativeSpan, ranges);
    normalizeInflight(c, inflightOut, inflightSpan, inflightRelativeSpan, ranges);
    normalizePrefix(c, chainLength, chunkChars, lambda, lengthCreditChars, prefixOut, ranges, creditOfBestMatch);
    return false;
  }
  const queueLo = ranges.queueLo;
  const queueInverse = queueInverseRange(c, n, queueOut, queueLo, ranges.queueHi, queueSpan, queueRelativeSpan);
  const inflightLo = ranges.inflightLo;
  const inflightInverse = inflightInverseRange(c, n, inflightOut, inflightLo, ranges.inflightHi, inflightSpan,
    inflightRelativeSpan);
  // As normalizePrefix.
  const l = unitClamp(lambda);
  const fractionScale = l / <f64>chainLength;
  const hi = ranges.prefixHi;
  const deficitScale = prefixDeficitScale(chunkChars, lengthCreditChars, creditOfBestMatch, hi);
  const marginalWeight = hi > ranges.prefixLo ? 1 - l : 0;
  // Two candidates per step with the lane masks at hand (a pick's candidates always have them); without, one at a
  // time below, the same scores (and totalScores sums them).
  const pairs = ASC_FEATURE_SIMD && c.lanesCurrent;
  const summing = pairs && totals !== null && totals!.total.length >= n && totals!.kvScores.length >= n;
  let i = 0;
  if (ASC_FEATURE_SIMD) {
    if (summing) {
      const t4 = totals!;
      const constantCount = min<i32>(t4.constantCount, t4.constantTerms.length);
      if (constantCount == 0) {
        i = sumAndRankPairs(c, n, t4, 0, queueLo, queueInverse, inflightLo, inflightInverse, chainLength, hi, fractionScale,
          deficitScale, marginalWeight);
      } else if (constantCount == 1) {
        i = sumAndRankPairs(c, n, t4, 1, queueLo, queueInverse, inflightLo, inflightInverse, chainLength, hi, fractionScale,
          deficitScale, marginalWeight);
      } else {
        i = sumAndRankPairs(c, n, t4, 2, queueLo, queueInverse, inflightLo, inflightInverse, chainLength, hi, fractionScale,
          deficitScale, marginalWeight);
      }
    } else if (pairs) {
      const chain = i32x4.splat(chainLength);
      const best = f64x2.splat(<f64>hi);
      const fraction = f64x2.splat(fractionScale);
      const deficit = f64x2.splat(deficitScale);
      const marginal = f64x2.splat(marginalWeight);
      const healthyLanes = changetype<usize>(c.healthyLanes);
      const hasMetricsLanes = changetype<usize>(c.hasMetricsLanes);
      const waitingAt = changetype<usize>(c.waiting);
      const inflightAt = changetype<usize>(c.inflight);
      const prefixMatchedAt = changetype<usize>(c.prefixMatched);
      const queueLoLanes = f64x2.splat(queueLo);
      const queueInverseLanes = f64x2.splat(queueInverse);
      const inflightLoLanes = f64x2.splat(inflightLo);
      const inflightInverseLanes = f64x2.splat(inflightInverse);
      for (; i + 2 <= n; i += 2) {
        const at = <usize>i << 3;
        const ok = v128.load(healthyLanes + at);
        const queueOk = v128.and(ok, v128.load(hasMetricsLanes + at));
        v128.store(changetype<usize>(queueOut) + at, queuePair(waitingAt, i, queueOk, queueLoLanes, queueInverseLanes));
        v128.store(changetype<usize>(inflightOut) + at, v128.and(inflightPair(inflightAt, i, inflightLoLanes, inflightInverseLanes), ok));
        v128.store(changetype<usize>(prefixOut) + at, v128.and(prefixPair(prefixMatchedAt, i, chain, best, fraction, deficit, marginal), ok));
      }
    }
  }
  const rest = i;
  const healthy = c.healthy;
  const hasMetrics = c.hasMetrics;
  const waiting = c.waiting;
  const inflight = c.inflight;
  const prefixMatched = c.prefixMatched;
  for (; i < n; i++) {
    const ok = unchecked(healthy[i]);
    unchecked((queueOut[i] = ok && unchecked(hasMetrics[i])
      ? lowerIsBetter(countOrZero(unchecked(waiting[i])), queueLo, queueInverse) : 0));
    unchecked((inflightOut[i] = ok ? lowerIsBetter(<f64>max<i32>(unchecked(inflight[i]), 0), inflightLo, inflightInverse) : 0));
    let s: f64 = 0;
    if (ok) {
      const m = min<i32>(max<i32>(unchecked(prefixMatched[i]), 0), chainLength);
      const behind = <f64>(hi - m) * deficitScale;
      s = fractionScale * <f64>m + (behind < 1 ? marginalWeight * (1 - behind) : 0);
    }
    unchecked((prefixOut[i] = s));
  }
  if (!summing) return false;
  // The odd last candidate: its sum, then ranked one at a time.
  const t4 = totals!;
  const constants = t4.constantTerms;
  const constantCount = min<i32>(t4.constantCount, constants.length);
  for (let k = rest; k < n; k++) {
    let sum = fourTerms(t4.queueWeight, unchecked(queueOut[k]), t4.kvWeight, unchecked(t4.kvScores[k]),
      t4.prefixWeight, unchecked(prefixOut[k]), t4.inflightWeight, unchecked(inflightOut[k]));
    for (let t = 0; t < constantCount; t++) sum += unchecked(constants[t]);
    unchecked((t4.total[k] = sum));
  }
  rankRest(c, t4.total, rest, n, true, t4.inverseSum, t4.summary);
  t4.summary.anyGuarded = false;
  return true;
}

// Adapter already running 1, likely still loaded 0.9 (no load to wait for, but an estimate from the page's stamps:
// below running), a free adapter slot to load it 0.8, a slot only by evicting an adapter the endpoint ran last 0.5
// (the load, and likely another load later for the adapter evicted), only queued 0.5, otherwise (or unknown, or the
// base model, which takes no adapter slot) 0.
// Returns the score every healthy candidate got when they all got the same (NaN when they differ or none is healthy):
// without adapters on any endpoint, every candidate's.
export function normalizeLora(c: Candidates, out: StaticArray<f64>): f64 {
  const n = c.boundedCount(out.length);
  const healthy = c.healthy;
  const loraState = c.loraState;
  let uniform: f64 = NaN;
  let same = true;
  for (let i = 0; i < n; i++) {
    let s: f64 = 0;
    if (unchecked(healthy[i])) {
      const state = unchecked(loraState[i]);
      if (state == LoraState.Running) s = 1;
      else if (state == LoraState.Resident) s = 0.9;
      else if (state == LoraState.Evicts) s = 0.5;
      else if (state == LoraState.CanLoad) s = 0.8;
      else if (state == LoraState.Waiting) s = 0.5;
      if (uniform != uniform) uniform = s;
      else same = same && s == uniform;
    }
    unchecked((out[i] = s));
  }
  return same ? uniform : NaN;
}

// Recent success: 1 - failure EWMA.
// Returns the score every healthy candidate got when they all got the same (NaN when they differ or none is healthy):
// with no failure recorded, or every one faded (failure-ewma.ts FORGOTTEN_RATE), 1 on every candidate.
export function normalizeFailure(c: Candidates, out: StaticArray<f64>): f64 {
  const n = c.boundedCount(out.length);
  const healthy = c.healthy;
  const failureEwma = c.failureEwma;
  let uniform: f64 = NaN;
  let same = true;
  for (let i = 0; i < n; i++) {
    let s: f64 = 0;
    if (unchecked(healthy[i])) {
      s = 1 - unitClamp(unchecked(failureEwma[i]));
      if (uniform != uniform) uniform = s;
      else same = same && s == uniform;
    }
    unchecked((out[i] = s));
  }
  return same ? uniform : NaN;
}

// Session affinity: 1 for the endpoint the session last used.
export function normalizeSession(c: Candidates, out: StaticArray<f64>): void {
  const n = c.boundedCount(out.length);
  const healthy = c.healthy;
  const sessionMatch = c.sessionMatch;
  for (let i = 0; i < n; i++) {
    unchecked((out[i] = unchecked(healthy[i]) && unchecked(sessionMatch[i]) ? 1 : 0));
  }
}
