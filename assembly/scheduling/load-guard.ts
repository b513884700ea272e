// Bounded-load guard (after consistent hashing with bounded loads, Mirrokni et al.): cache affinity must not pile
// requests onto one endpoint. Shared prefixes make every request of a popular prompt prefer the same endpoint;
// without a bound its queue grows while others idle, and a long queue costs more latency than the saved prefill.
// An endpoint whose load exceeds factor * mean + slack loses its prefix and session scores, so it can still win on
// the load signals but never on cache alone. The slack keeps the guard quiet at low load, where a mean near zero
// would otherwise flag an endpoint for one or two requests. The mean leaves out outliers (outliers.ts, with the
// slack as the smallest spread that counts): wedged engines whose metrics still answer with hundreds waiting would
// raise the limit above every healthy endpoint's load and so switch the guard off for them.
import { Candidates } from "./candidates";
import { CandidateRanges } from "./candidate-ranges";
import { countOrZero, countPairAsF64, countsOrZero, currentLanes, flagLanes64, highestLane, lowestLane } from "./lane-masks";
import { highestInlier, mayHaveOutliers } from "./outliers";

// load = waiting (0 without metrics) + requests in flight. Running requests are left out: a pod decoding many long
// conversations is not overloaded (a new request's first token waits for the queue, not for the decodes), and
// counting them stripped the cache credit of exactly the pods holding those conversations.
// @ts-ignore: decorator
@inline
function loadOf(inflight: StaticArray<i32>, hasMetrics: StaticArray<bool>, waiting: StaticArray<f64>, i: i32): f64 {
  let load = <f64>max<i32>(unchecked(inflight[i]), 0);
  if (unchecked(hasMetrics[i])) load += countOrZero(unchecked(waiting[i]));
  return load;
}

export const DEFAULT_GUARD_FACTOR: f64 = 2;
export const DEFAULT_GUARD_SLACK: f64 = 2;

// The load above which a healthy candidate is overloaded: factor * mean + slack over the healthy candidates that are
// no outliers; Infinity when nobody is: factor <= 0 (or NaN), no candidate healthy, or none loaded above it (the
// common case, which then needs no second pass). n candidates are read; loads (room for n) is scratch, written only
// when outliers are possible. ranges, when measured for these n candidates, gives the loads' sum, extremes and count.
export function overloadLimit(
  c: Candidates, n: i32, factor: f64, slack: f64, loads: StaticArray<f64>, ranges: CandidateRanges | null = null,
): f64 {
  if (!(factor > 0)) return Infinity;
  const healthyFlags = c.healthy;
  const inflight = c.inflight;
  const hasMetrics = c.hasMetrics;
  const waiting = c.waiting;
  let sum: f64 = 0;
  let most: f64 = 0;
  let least: f64 = Infinity;
  let healthy = 0;
  let i = 0;
  if (ranges !== null && ranges.count == n) {
    sum = ranges.loadSum;
    most = ranges.loadMost;
    least = ranges.loadLeast;
    healthy = ranges.healthy;
    i = n;
  } else if (ASC_FEATURE_SIMD) {
    // Two loads per step, summed in candidate order as below (an unhealthy candidate's lane is +0, which leaves the
    // sum as it was), so the limit is the same to the bit.
    let highest = f64x2.splat(0);
    let lowest = f64x2.splat(Infinity);
    const healthyLanes = currentLanes(c, c.healthyLanes);
    const hasMetricsLanes = currentLanes(c, c.hasMetricsLanes);
    for (; i + 2 <= n; i += 2) {
      const flags = changetype<usize>(healthyFlags) + i;
      const ok = flagLanes64(healthyLanes, changetype<usize>(healthyFlags), i);
      const requests = countPairAsF64(changetype<usize>(inflight) + (<usize>i << 2));
      const queued = v128.and(countsOrZero(v128.load(changetype<usize>(waiting) + (<usize>i << 3))),
        flagLanes64(hasMetricsLanes, changetype<usize>(hasMetrics), i));
      const pair = f64x2.add(requests, queued);
      const counted = v128.and(pair, ok);
      sum += f64x2.extract_lane(counted, 0);
      sum += f64x2.extract_lane(counted, 1);
      highest = f64x2.pmax(highest, counted);
      lowest = f64x2.pmin(lowest, v128.bitselect(pair, f64x2.splat(Infinity), ok));
      healthy += <i32>load<u8>(flags) + <i32>load<u8>(flags, 1);
    }
    most = highestLane(highest);
    least = lowestLane(lowest);
  }
  for (; i < n; i++) {
    if (!unchecked(healthyFlags[i])) continue;
    const load = loadOf(inflight, hasMetrics, waiting, i);
    sum += load;
    if (load > most) most = load;
    if (load < least) least = load;
    healthy++;
  }
  if (healthy == 0) return Infinity;
  const extra = slack > 0 ? slack : 0;
  let limit = factor * (sum / <f64>healthy) + extra;
  if (mayHaveOutliers(least, most, extra) && n <= loads.length) {
    limit = limitWithoutOutliers(c, n, least, most, factor, extra, loads, limit);
  }
  return most > limit ? limit : Infinity;
}

// factor * mean + extra over the healthy candidates' loads up to the highest that is no outlier (limit, the one over
// all of them, when none is an outlier). Two outliers of five count as such, one of two does not (a minority only),
// so with two endpoints the guard stays off as before.
function limitWithoutOutliers(
  c: Candidates, n: i32, least: f64, most: f64, factor: f64, extra: f64, loads: StaticArray<f64>, limit: f64,
): f64 {
  const healthyFlags = c.healthy;
  for (let i = 0; i < n; i++) {
    unchecked((loads[i] = unchecked(healthyFlags[i]) ? loadOf(c.inflight, c.hasMetrics, c.waiting, i) : -1));
  }
  const top = highestInlier(loads, n, least, most, extra, 0);
  if (!(top < most)) return limit;
  let sum: f64 = 0;
  let counted = 0;
  for (let i = 0; i < n; i++) {
    const load = unchecked(loads[i]);
    if (load >= 0 && load <= top) {
      sum += load;
      counted++;
    }
  }
  return factor * (sum / <f64>counted) + extra;
}

// Whether healthy candidate i is loaded above limit (from overloadLimit).
// @ts-ignore: decorator
@inline
export function isOverloaded(c: Candidates, i: i32, limit: f64): bool {
  return loadOf(c.inflight, c.hasMetrics, c.waiting, i) > limit;
}

// Marks in guarded the healthy candidates whose load exceeds the limit (overloadLimit, loads its scratch); true when
// any is marked. factor <= 0 (or NaN) disables the guard.
export function markOverloaded(
  c: Candidates, factor: f64, slack: f64, guarded: StaticArray<bool>, loads: StaticArray<f64>,
): bool {
  const n = c.boundedCount(guarded.length);
  for (let i = 0; i < n; i++) unchecked((guarded[i] = false));
  const limit = overloadLimit(c, n, factor, slack, loads);
  if (limit == Infinity) return false;
  const healthyFlags = c.healthy;
  let any = false;
  for (let i = 0; i < n; i++) {
    if (unchecked(healthyFlags[i]) && isOverloaded(c, i, limit)) {
      unchecked((guarded[i] = true));
      any = true;
    }
  }
  return any;
}

// Zeroes score of the candidates marked in guarded.
export function dropGuardedScores(n: i32, guarded: StaticArray<bool>, score: StaticArray<f64>): void {
  const m = min<i32>(n, min<i32>(guarded.length, score.length));
  for (let i = 0; i < m; i++) if (unchecked(guarded[i])) unchecked((score[i] = 0));
}

// Zeroes prefix and session scores of overloaded healthy candidates and marks them in guarded (loads: scratch).
export function applyLoadGuard(
  c: Candidates,
  factor: f64,
  slack: f64,
  prefixScore: StaticArray<f64>,
  sessionScore: StaticArray<f64>,
  guarded: StaticArray<bool>,
  loads: StaticArray<f64>,
): void {
  if (!markOverloaded(c, factor, slack, guarded, loads)) return;
  const n = c.boundedCount(guarded.length);
  dropGuardedScores(n, guarded, prefixScore);
  dropGuardedScores(n, guarded, sessionScore);
}
