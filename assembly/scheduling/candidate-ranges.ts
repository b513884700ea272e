// The ranges the load and prefix scores and the load guard start from, found in one pass over the candidates: the
// queue score's lowest and highest waiting, the in-flight score's fewest and most requests, the prefix score's least
// and most matched chunks, and the guard's load sum, highest and lowest load and healthy count. Each scorer used to
// find its own in a pass of its own (four passes over hundreds of endpoints per request); the values are the ones
// those passes found, to the bit (the load sum added in candidate order, as overloadLimit adds it).
import { Candidates } from "./candidates";
import { LoadChanges } from "./load-ranges";
import { countOrZero, countPairAsF64, countsOrZero, highestI32Lane, highestLane, lowestI32Lane, lowestLane } from "./lane-masks";

export class CandidateRanges {
  /** Candidates measured (the scorers use the ranges only for that many); -1: none. */
  count: i32 = -1;
  /** Waiting over the healthy candidates with metrics (Infinity and -Infinity when there is none). */
  queueLo: f64 = Infinity;
  queueHi: f64 = -Infinity;
  /** Requests in flight (at least 0) over the healthy candidates (Infinity and -Infinity when there is none). */
  inflightLo: f64 = Infinity;
  inflightHi: f64 = -Infinity;
  /** Matched chunks (0 to the chain's length) over the healthy candidates: i32.MAX_VALUE and 0 when there is none;
   *  measured only for a chain longer than 0. */
  prefixLo: i32 = i32.MAX_VALUE;
  prefixHi: i32 = 0;
  /** The chain length the prefix range was measured for. */
  chainLength: i32 = 0;
  /** The load guard's loads (load-guard.ts loadOf) over the healthy candidates: their sum in candidate order, the
   *  highest (at least 0), the lowest (Infinity when there is none) and how many. */
  loadSum: f64 = 0;
  loadMost: f64 = 0;
  loadLeast: f64 = Infinity;
  healthy: i32 = 0;
}

/** Measures the first n candidates of c (n at most c.boundedCount) into r; the load part is taken from known when it
 *  holds for them. */
export function measureRanges(
  c: Candidates, n: i32, chainLength: i32, r: CandidateRanges, known: LoadChanges | null = null,
): void {
  const healthyFlags = c.healthy;
  const hasMetrics = c.hasMetrics;
  const waiting = c.waiting;
  const inflight = c.inflight;
  const prefixMatched = c.prefixMatched;
  const chain = max<i32>(chainLength, 0);
  let queueLo = Infinity;
  let queueHi = -Infinity;
  let inflightLo = Infinity;
  let inflightHi = -Infinity;
  let prefixLo: i32 = i32.MAX_VALUE;
  let prefixHi: i32 = 0;
  let sum: f64 = 0;
  let most: f64 = 0;
  let least: f64 = Infinity;
  let healthy = 0;
  let i = 0;
  let p = 0; // the matched chunks' own index
  // Two candidates per step with the lane masks at hand (a pick's candidates always have them); without, one at a
  // time below, the same values.
  const knownLoad = known !== null && known.holdsFor(c, n);
  if (knownLoad) {
    i = n;
  } else if (ASC_FEATURE_SIMD && c.lanesCurrent) {
    const inf = f64x2.splat(Infinity);
    const negInf = f64x2.splat(-Infinity);
    let qLow = inf;
    let qHigh = negInf;
    let iLow = inf;
    let iHigh = negInf;
    let lHigh = f64x2.splat(0);
    let lLow = inf;
    let counted = i64x2.splat(0);
    const healthyLanes = changetype<usize>(c.healthyLanes);
    const hasMetricsLanes = changetype<usize>(c.hasMetricsLanes);
    for (; i + 2 <= n; i += 2) {
      const ok = v128.load(healthyLanes + (<usize>i << 3));
      const metrics = v128.load(hasMetricsLanes + (<usize>i << 3));
      const queued = countsOrZero(v128.load(changetype<usize>(waiting) + (<usize>i << 3)));
      const queueOk = v128.and(ok, metrics);
      qLow = f64x2.pmin(qLow, v128.bitselect(queued, inf, queueOk));
      qHigh = f64x2.pmax(qHigh, v128.bitselect(queued, negInf, queueOk));
      const requests = countPairAsF64(changetype<usize>(inflight) + (<usize>i << 2));
      iLow = f64x2.pmin(iLow, v128.bitselect(requests, inf, ok));
      iHigh = f64x2.pmax(iHigh, v128.bitselect(requests, negInf, ok));
      const load = f64x2.add(requests, v128.and(queued, metrics));
      const kept = v128.and(load, ok);
      sum += f64x2.extract_lane(kept, 0);
      sum += f64x2.extract_lane(kept, 1);
      lHigh = f64x2.pmax(lHigh, kept);
      lLow = f64x2.pmin(lLow, v128.bitselect(load, inf, ok));
      counted = i64x2.sub(counted, ok); // an all-ones lane is -1
    }
    queueLo = lowestLane(qLow);
    queueHi = highestLane(qHigh);
    inflightLo = lowestLane(iLow);
    inflightHi = highestLane(iHigh);
    most = highestLane(lHigh);
    least = lowestLane(lLow);
    healthy = <i32>(i64x2.extract_lane(counted, 0) + i64x2.extract_lane(counted, 1));
  }
  for (; i < n; i++) {
    if (!unchecked(healthyFlags[i])) continue;
    const requests = <f64>max<i32>(unchecked(inflight[i]), 0);
    if (requests < inflightLo) inflightLo = requests;
    if (requests > inflightHi) inflightHi = requests;
    let load = requests;
    if (unchecked(hasMetrics[i])) {
      const queued = countOrZero(unchecked(waiting[i]));
      if (queued < queueLo) queueLo = queued;
      if (queued > queueHi) queueHi = queued;
      load += queued;
    }
    sum += load;
    if (load > most) most = load;
    if (load < least) least = load;
    healthy++;
  }
  // The matched chunks, four candidates per step in a loop of their own with the lane masks at hand (none without a
  // chain): the same least and most, in whole counts, as one candidate at a time.
  if (ASC_FEATURE_SIMD && c.lanesCurrent && chain > 0) {
    const chainLanes = i32x4.splat(chain);
    const healthyLanes32 = changetype<usize>(c.healthyLanes32);
    let pLow = i32x4.splat(i32.MAX_VALUE);
    let pHigh = i32x4.splat(0);
    for (; p + 4 <= n; p += 4) {
      const ok32 = v128.load(healthyLanes32 + (<usize>p << 2));
      const m = i32x4.min_s(i32x4.max_s(v128.load(changetype<usize>(prefixMatched) + (<usize>p << 2)),
        i32x4.splat(0)), chainLanes);
      pLow = i32x4.min_s(pLow, v128.bitselect(m, i32x4.splat(i32.MAX_VALUE), ok32));
      pHigh = i32x4.max_s(pHigh, v128.and(m, ok32));
    }
    prefixLo = lowestI32Lane(pLow);
    prefixHi = highestI32Lane(pHigh);
  }
  // The matched chunks the loop above left (all of them without the lane masks).
  if (chain > 0) {
    for (; p < n; p++) {
      if (!unchecked(healthyFlags[p])) continue;
      const m = min<i32>(max<i32>(unchecked(prefixMatched[p]), 0), chain);
      if (m < prefixLo) prefixLo = m;
      if (m > prefixHi) prefixHi = m;
    }
  }
  if (knownLoad) {
    const k = known!;
    queueLo = k.queueLo;
    queueHi = k.queueHi;
    inflightLo = k.inflightLo;
    inflightHi = k.inflightHi;
    sum = k.loadSum;
    most = k.loadMost;
    least = k.loadLeast;
    healthy = k.healthy;
  }
  r.count = n;
  r.queueLo = queueLo;
  r.queueHi = queueHi;
  r.inflightLo = inflightLo;
  r.inflightHi = inflightHi;
  r.prefixLo = prefixLo;
  r.prefixHi = prefixHi;
  r.chainLength = chainLength;
  r.loadSum = sum;
  r.loadMost = most;
  r.loadLeast = least;
  r.healthy = healthy;
}
