// The load part of a pick's ranges (candidate-ranges.ts: the queue's and in-flight's lowest and highest, the load
// guard's sum, most, least and healthy count) carried from the endpoint snapshot instead of measured over every
// candidate per request. With the process-wide load (candidate-fill.ts) a candidate's waiting and in-flight are the
// snapshot's (waiting or 0, none in flight) except at the few endpoints with requests outstanding: SnapshotLoad holds
// the ranges of the snapshot's values with how many candidates sit at each extreme, and LoadChanges takes the
// changed candidates one by one. An extreme stays known while some unchanged candidate still holds it (the others
// are no further out) or every candidate counted changed; otherwise, or when a load is not a whole count small enough
// for every sum to be exact in any order (the measured sum adds in candidate order), the ranges are unknown and the
// pick measures them. The values are those measureRanges finds, but for the sign of a zero extreme, which no score
// depends on (normalize.ts).
import { Candidates } from "./candidates";
import { countOrZero } from "./lane-masks";

// Loads up to this (2^32) are whole counts whose sums over up to 2^20 candidates stay exact (below 2^53).
const EXACT_LOAD_MAX: f64 = 4294967296;

// @ts-ignore: decorator
@inline
function isExactCount(x: f64): bool {
  return x <= EXACT_LOAD_MAX && x == Math.floor(x); // x >= 0 here
}

/** The snapshot's load ranges: waiting countOrZero(waitingOrZero) where it has metrics, none in flight. */
export class SnapshotLoad {
  /** Candidates measured; -1: not usable (some load not an exact count). */
  count: i32 = -1;
  queueLo: f64 = Infinity;
  queueLoAt: i32 = 0;
  queueHi: f64 = -Infinity;
  queueHiAt: i32 = 0;
  /** Healthy candidates with metrics. */
  queued: i32 = 0;
  loadSum: f64 = 0;
  loadMost: f64 = 0;
  loadMostAt: i32 = 0;
  loadLeast: f64 = Infinity;
  loadLeastAt: i32 = 0;
  healthy: i32 = 0;

  /** Measures the first n listed candidates (their health and metrics flags) with waiting[i] as their queues. */
  measure(listed: Candidates, waiting: StaticArray<f64>, n: i32): void {
    n = min<i32>(n, min<i32>(listed.boundedCount(waiting.length), waiting.length));
    const healthyFlags = listed.healthy;
    const hasMetrics = listed.hasMetrics;
    let exact = true;
    let qLo = Infinity, qLoAt = 0, qHi = -Infinity, qHiAt = 0, queued = 0;
    let sum: f64 = 0, most: f64 = 0, mostAt = 0, least = Infinity, leastAt = 0, healthy = 0;
    for (let i = 0; i < n; i++) {
      if (!unchecked(healthyFlags[i])) continue;
      let load: f64 = 0;
      if (unchecked(hasMetrics[i])) {
        const q = countOrZero(unchecked(waiting[i]));
        if (q < qLo) { qLo = q; qLoAt = 0; }
        if (q == qLo) qLoAt++;
        if (q > qHi) { qHi = q; qHiAt = 0; }
        if (q == qHi) qHiAt++;
        queued++;
        load = q;
      }
      exact = exact && isExactCount(load);
      sum += load;
      if (load > most) { most = load; mostAt = 0; }
      if (load == most) mostAt++;
      if (load < least) { least = load; leastAt = 0; }
      if (load == least) leastAt++;
      healthy++;
    }
    this.count = exact ? n : -1;
    this.queueLo = qLo;
    this.queueLoAt = qLoAt;
    this.queueHi = qHi;
    this.queueHiAt = qHiAt;
    this.queued = queued;
    this.loadSum = sum;
    this.loadMost = most;
    this.loadMostAt = mostAt;
    this.loadLeast = least;
    this.loadLeastAt = leastAt;
    this.healthy = healthy;
  }
}

/** A snapshot's load ranges with some candidates' load changed, for one fill of the candidates. */
export class LoadChanges {
  /** Candidates.loadEpoch when the changes were complete (finish); 0: unknown. */
  epoch: u32 = 0;
  count: i32 = -1;
  usable: bool = false;
  queueLo: f64 = Infinity;
  queueHi: f64 = -Infinity;
  inflightLo: f64 = Infinity;
  inflightHi: f64 = -Infinity;
  loadSum: f64 = 0;
  loadMost: f64 = 0;
  loadLeast: f64 = Infinity;
  healthy: i32 = 0;
  // The unchanged candidates still at each snapshot extreme, and the extremes of the changed ones.
  private queueLoLeft: i32 = 0;
  private queueHiLeft: i32 = 0;
  private queuedUnchanged: i32 = 0;
  private mostLeft: i32 = 0;
  private leastLeft: i32 = 0;
  private healthyUnchanged: i32 = 0;
  private changedQueueLo: f64 = Infinity;
  private changedQueueHi: f64 = -Infinity;
  private changedInflightLo: f64 = Infinity;
  private changedInflightHi: f64 = -Infinity;
  private changedMost: f64 = 0;
  private changedLeast: f64 = Infinity;

  /** Starts from the snapshot's ranges. */
  begin(base: SnapshotLoad): void {
    this.epoch = 0;
    this.count = base.count;
    this.usable = base.count >= 0 && base.healthy > 0;
    this.queueLo = base.queueLo;
    this.queueHi = base.queueHi;
    this.loadSum = base.loadSum;
    this.loadMost = base.loadMost;
    this.loadLeast = base.loadLeast;
    this.healthy = base.healthy;
    this.queueLoLeft = base.queueLoAt;
    this.queueHiLeft = base.queueHiAt;
    this.queuedUnchanged = base.queued; // counts down: 0 when every queue changed
    this.mostLeft = base.loadMostAt;
    this.leastLeft = base.loadLeastAt;
    this.healthyUnchanged = base.healthy;
    this.changedQueueLo = Infinity;
    this.changedQueueHi = -Infinity;
    this.changedInflightLo = Infinity;
    this.changedInflightHi = -Infinity;
    this.changedMost = 0;
    this.changedLeast = Infinity;
  }

  /**
   * A healthy candidate (each at most once) whose snapshot queue was baseQueue (countOrZero'd, with metrics; the
   * snapshot had none in flight) now has `queue` waiting (countOrZero'd) and `inflight` in flight (at least 0).
   */
  change(hasMetrics: bool, baseQueue: f64, queue: f64, inflight: f64): void {
    let baseLoad: f64 = 0;
    let load = inflight;
    if (hasMetrics) {
      if (baseQueue == this.queueLo) this.queueLoLeft--;
      if (baseQueue == this.queueHi) this.queueHiLeft--;
      this.queuedUnchanged--;
      if (queue < this.changedQueueLo) this.changedQueueLo = queue;
      if (queue > this.changedQueueHi) this.changedQueueHi = queue;
      baseLoad = baseQueue;
      load += queue;
    }
    if (inflight < this.changedInflightLo) this.changedInflightLo = inflight;
    if (inflight > this.changedInflightHi) this.changedInflightHi = inflight;
    if (baseLoad == this.loadMost) this.mostLeft--;
    if (baseLoad == this.loadLeast) this.leastLeft--;
    if (load > this.changedMost) this.changedMost = load;
    if (load < this.changedLeast) this.changedLeast = load;
    this.usable = this.usable && isExactCount(load);
    this.loadSum += load - baseLoad;
    this.healthyUnchanged--;
  }

  /** Ends the changes of a fill whose candidates now have epoch `epoch`; returns whether the ranges are known. */
  finish(n: i32, epoch: u32): bool {
    let usable = this.usable && this.count == n;
    // The queue: the unchanged ones' extreme where one still holds it, else the changed ones' when all changed.
    if (this.queuedUnchanged > 0) {
      usable = usable && this.queueLoLeft > 0 && this.queueHiLeft > 0;
      if (this.changedQueueLo < this.queueLo) this.queueLo = this.changedQueueLo;
      if (this.changedQueueHi > this.queueHi) this.queueHi = this.changedQueueHi;
    } else {
      this.queueLo = this.changedQueueLo;
      this.queueHi = this.changedQueueHi;
    }
    // In flight: every unchanged candidate has none.
    if (this.healthyUnchanged > 0) {
      this.inflightLo = 0;
      this.inflightHi = this.changedInflightHi > 0 ? this.changedInflightHi : 0;
      usable = usable && this.mostLeft > 0 && this.leastLeft > 0;
      if (this.changedMost > this.loadMost) this.loadMost = this.changedMost;
      if (this.changedLeast < this.loadLeast) this.loadLeast = this.changedLeast;
    } else {
      this.inflightLo = this.changedInflightLo;
      this.inflightHi = this.changedInflightHi;
      this.loadMost = this.changedMost;
      this.loadLeast = this.changedLeast;
    }
    this.usable = usable;
    this.epoch = usable ? epoch : 0;
    return usable;
  }

  /** Whether the ranges hold for the first n of c as they are now. */
  holdsFor(c: Candidates, n: i32): bool {
    return this.epoch != 0 && this.epoch == c.loadEpoch && this.count == n;
  }
}
