// A TypeScript model of the plugin's scoring (assembly/scheduling/*): per-signal normalization, the bounded-load
// guard, the weighted total and the pick with seeded tie-breaking. Written from the documented rules, in the same
// floating-point operation order, so the plugin's scores can be checked against it to the last bit.

export const TIE_EPSILON = 1e-9;

export const LoraState = { Unknown: -1, NotLoaded: 0, Waiting: 1, Running: 2, CanLoad: 3, Resident: 4, Evicts: 5, BaseModel: 6 } as const;

export interface Candidate {
  healthy: boolean;
  hasMetrics: boolean;
  waiting: number;
  running: number;
  kvUsage: number;
  hasKv: boolean;
  /** i32 */
  inflight: number;
  /** i32: leading chunks of the chain recently sent to this endpoint. */
  prefixMatched: number;
  loraState: number;
  failureEwma: number;
  sessionMatch: boolean;
}

export interface ScoringWeights {
  queue: number;
  kvCache: number;
  prefixCache: number;
  inflight: number;
  loraAffinity: number;
  failure: number;
  session: number;
}

export interface ScoringParams {
  weights: ScoringWeights;
  lambda: number;
  lengthCreditChars: number;
  /** The deficit is charged against at most this many times the best candidate's matched characters (0: off). */
  creditOfBestMatch: number;
  /** i32 */
  chunkChars: number;
  guardFactor: number;
  guardSlack: number;
  /** Spreads below these count in proportion (0: plain min-max). */
  queueSpan: number;
  inflightSpan: number;
  /** Spreads below these multiples of the lowest value count in proportion too (0: off). */
  queueRelativeSpan: number;
  inflightRelativeSpan: number;
}

export const DEFAULT_PARAMS: ScoringParams = {
  weights: { queue: 2, kvCache: 2, prefixCache: 3, inflight: 1, loraAffinity: 1, failure: 0, session: 0 },
  lambda: 0.5,
  lengthCreditChars: 8192,
  creditOfBestMatch: 2,
  chunkChars: 512,
  guardFactor: 2,
  guardSlack: 2,
  queueSpan: 4,
  inflightSpan: 4,
  queueRelativeSpan: 16,
  inflightRelativeSpan: 16,
};

export interface Scores {
  queue: number[];
  kv: number[];
  prefix: number[];
  inflight: number[];
  lora: number[];
  failure: number[];
  session: number[];
  total: number[];
  guarded: boolean[];
}

const countOrZero = (x: number) => (x >= 0 && x < Infinity ? x : 0);
const unitClamp = (x: number) => (x >= 0 ? (x <= 1 ? x : 1) : 0);
const effectiveWeight = (w: number) => (w > 0 && w < Infinity ? w : 0);
/** Below this a spread counts as this much, so that 1 / range stays finite (subnormal queue lengths). */
const MIN_RANGE = 1e-300;
/** Outliers (assembly/scheduling/outliers.ts): sorted from the highest, v[0..k) are outliers when
 *  v[k - 1] - lo > OUTLIER_FACTOR * max(v[k] - lo, floor) and k <= max((m - 1) >> 1, minOutliers); of several such k
 *  the largest counts. Returns the highest value that is no outlier (the highest when none is); values non-empty. */
const OUTLIER_FACTOR = 4;
const highestInlier = (values: number[], floor: number, minOutliers: number) => {
  const v = [...values].sort((a, b) => b - a);
  const lo = v[v.length - 1];
  const allowed = Math.min(Math.max((v.length - 1) >> 1, minOutliers), v.length - 1);
  for (let k = allowed; k >= 1; k--) {
    if (v[k - 1] - lo > OUTLIER_FACTOR * Math.max(v[k] - lo, floor)) return v[k];
  }
  return v[0];
};
/** 1 / the range of the values that are no outliers, at least the spans; 0 when all are equal. */
const inverseOfRange = (values: number[], span: number, relativeSpan: number) => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const relative = lo * relativeSpan;
  const spanOrRelative = span > relative ? span : relative; // a NaN span leaves the relative one, as the module does
  const atLeast = spanOrRelative > MIN_RANGE ? spanOrRelative : MIN_RANGE;
  if (!(hi > lo)) return 0;
  const range = highestInlier(values, atLeast, 1) - lo;
  return 1 / (atLeast > range ? atLeast : range);
};
const lowerIsBetter = (x: number, lo: number, inv: number) => {
  if (!(inv > 0)) return 1;
  const s = 1 - (x - lo) * inv;
  return s < 0 ? 0 : s;
};
const nonNegative = (x: number) => Math.max(x | 0, 0);

function queueScores(c: Candidate[], span: number, relativeSpan: number): number[] {
  let lo = Infinity;
  const keys = c.map((e) => {
    if (!(e.healthy && e.hasMetrics)) return -1;
    const key = countOrZero(e.waiting);
    if (key < lo) lo = key;
    return key;
  });
  const inv = inverseOfRange(keys.filter((k) => k >= 0), span, relativeSpan);
  return keys.map((k) => (k >= 0 ? lowerIsBetter(k, lo, inv) : 0));
}

function inflightScores(c: Candidate[], span: number, relativeSpan: number): number[] {
  let lo = Infinity;
  for (const e of c) {
    if (!e.healthy) continue;
    const x = nonNegative(e.inflight);
    if (x < lo) lo = x;
  }
  const inv = inverseOfRange(c.filter((e) => e.healthy).map((e) => nonNegative(e.inflight)), span, relativeSpan);
  return c.map((e) => (e.healthy ? lowerIsBetter(nonNegative(e.inflight), lo, inv) : 0));
}

function prefixScores(c: Candidate[], chainLength: number, p: ScoringParams): number[] {
  const l = unitClamp(p.lambda);
  const fractionScale = chainLength > 0 ? l / chainLength : 0;
  const matched = (e: Candidate) => Math.min(nonNegative(e.prefixMatched), Math.max(chainLength, 0));
  let lo = 2147483647;
  let hi = 0;
  for (const e of c) {
    if (!e.healthy) continue;
    const m = matched(e);
    if (m < lo) lo = m;
    if (m > hi) hi = m;
  }
  const chunk = Math.max(p.chunkChars | 0, 0);
  const ofBest = p.creditOfBestMatch * hi * chunk;
  const credit = ofBest > 0 && ofBest < p.lengthCreditChars ? ofBest : p.lengthCreditChars;
  const deficitScale = credit > 0 ? chunk / credit : Number.MAX_VALUE;
  const marginalWeight = hi > lo ? 1 - l : 0;
  return c.map((e) => {
    if (!(chainLength > 0 && e.healthy)) return 0;
    const m = matched(e);
    const behind = (hi - m) * deficitScale;
    return fractionScale * m + (behind < 1 ? marginalWeight * (1 - behind) : 0);
  });
}

function applyGuard(c: Candidate[], p: ScoringParams, prefix: number[], session: number[]): boolean[] {
  const guarded = c.map(() => false);
  if (!(p.guardFactor > 0)) return guarded;
  const loadOf = (e: Candidate) => {
    let load = nonNegative(e.inflight);
    if (e.hasMetrics) load += countOrZero(e.waiting);
    return load;
  };
  const loads = c.filter((e) => e.healthy).map(loadOf);
  if (loads.length === 0) return guarded;
  // The mean leaves out outliers, with the slack as the smallest spread that counts and only a minority out.
  const slack = p.guardSlack > 0 ? p.guardSlack : 0;
  const top = highestInlier(loads, slack, 0);
  let sum = 0;
  let counted = 0;
  for (const load of loads) {
    if (load > top) continue;
    sum += load;
    counted++;
  }
  const limit = p.guardFactor * (sum / counted) + slack;
  c.forEach((e, i) => {
    if (e.healthy && loadOf(e) > limit) {
      guarded[i] = true;
      prefix[i] = 0;
      session[i] = 0;
    }
  });
  return guarded;
}

/** Every per-signal score and the totals for one request's candidates. */
export function scoreCandidates(c: Candidate[], chainLength: number, p: ScoringParams): Scores {
  chainLength |= 0;
  const queue = queueScores(c, p.queueSpan, p.queueRelativeSpan);
  const kv = c.map((e) => (e.healthy && e.hasKv ? 1 - unitClamp(e.kvUsage) : 0));
  const prefix = prefixScores(c, chainLength, p);
  const inflight = inflightScores(c, p.inflightSpan, p.inflightRelativeSpan);
  const lora = c.map((e) => {
    if (!e.healthy) return 0;
    if (e.loraState === LoraState.Running) return 1;
    if (e.loraState === LoraState.Resident) return 0.9;
    if (e.loraState === LoraState.Evicts) return 0.5;
    if (e.loraState === LoraState.CanLoad) return 0.8;
    return e.loraState === LoraState.Waiting ? 0.5 : 0;
  });
  const failure = c.map((e) => (e.healthy ? 1 - unitClamp(e.failureEwma) : 0));
  const session = c.map((e) => (e.healthy && e.sessionMatch ? 1 : 0));
  const guarded = applyGuard(c, p, prefix, session);
  const w = p.weights;
  const wq = effectiveWeight(w.queue);
  const wk = effectiveWeight(w.kvCache);
  const wp = effectiveWeight(w.prefixCache);
  const wi = effectiveWeight(w.inflight);
  const wl = effectiveWeight(w.loraAffinity);
  const wf = effectiveWeight(w.failure);
  const ws = effectiveWeight(w.session);
  const sum = wq + wk + wp + wi + wl + wf + ws;
  const inverseSum = sum > 0 ? 1 / sum : 0;
  // The terms of the weighted signals, added in scorer order; a signal with weight 0 is left out, not added as
  // 0 * score (which is NaN for a NaN or infinite score).
  const terms: Array<[number, number[]]> = [[wq, queue], [wk, kv], [wp, prefix], [wi, inflight], [wl, lora], [wf, failure], [ws, session]];
  const weighted = terms.filter(([w]) => w > 0);
  const total = c.map((e, i) => {
    if (!(e.healthy && sum > 0)) return 0;
    let t = weighted[0][0] * weighted[0][1][i];
    for (let k = 1; k < weighted.length; k++) t += weighted[k][0] * weighted[k][1][i];
    return t * inverseSum;
  });
  return { queue, kv, prefix, inflight, lora, failure, session, total, guarded };
}

/** Indexes of the healthy candidates within TIE_EPSILON of the best total (NaN never wins); empty when none. */
export function bestCandidates(c: Candidate[], total: number[]): number[] {
  let best = -Infinity;
  let found = false;
  c.forEach((e, i) => {
    if (!e.healthy) return;
    const t = total[i];
    if ((t > best || !found) && t === t) {
      best = t;
      found = true;
    }
  });
  if (!found) return [];
  const floor = best - TIE_EPSILON;
  return c.flatMap((e, i) => (e.healthy && total[i] >= floor ? [i] : []));
}

/** SplitMix64, the plugin's tie-breaking generator. */
export class SplitMix64 {
  constructor(private state: bigint) {}
  next(): bigint {
    const M = (1n << 64n) - 1n;
    this.state = (this.state + 0x9e3779b97f4a7c15n) & M;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  }
  below(n: number): number {
    if (n <= 1) return 0;
    return Number((((this.next() >> 32n) * BigInt(n)) & ((1n << 64n) - 1n)) >> 32n);
  }
}

/** The candidate the plugin picks: the best one, a tie broken by `rng` (consumed only when there is a tie). */
export function pickCandidate(c: Candidate[], total: number[], rng: SplitMix64): number {
  const ties = bestCandidates(c, total);
  if (ties.length === 0) return -1;
  return ties[ties.length > 1 ? rng.below(ties.length) : 0];
}
