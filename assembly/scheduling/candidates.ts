// The endpoints considered for one request, as parallel arrays (struct of arrays) sized once at construction.
// Fill with clear() then add(), or write the arrays directly and set count.

export enum LoraState {
  Unknown = -1,
  // Not running, and the endpoint has no adapter slot free for it.
  NotLoaded = 0,
  // Only queued: requests for it wait, and no adapter slot is free.
  Waiting = 1,
  Running = 2,
  // Not running, and the endpoint runs and queues fewer adapters than its max_lora: it can load it at once.
  CanLoad = 3,
  // Neither running nor queued, but among the adapters the endpoint ran last: likely still loaded.
  Resident = 4,
  // Not running, room in the batch, but every adapter slot likely holds one that ran last: loading it evicts one.
  Evicts = 5,
  // The model the endpoint serves, not an adapter: it takes no adapter slot (scored as Unknown).
  BaseModel = 6,
}

// The last epoch markLoad() gave (unique in the VM, as snapshot ids).
let lastLoadEpoch: u32 = 0;

// The last id markSnapshot() gave (ids are unique in the VM, so a scorer fed several Candidates never mixes them up).
let lastSnapshotId: u32 = 0;

export class Candidates {
  readonly capacity: i32;
  count: i32 = 0;

  // Index-table slot of the endpoint.
  readonly slot: StaticArray<i32>;
  readonly healthy: StaticArray<bool>;
  // Whether waiting was read from the endpoint's metrics (the queue score and the load guard read it only then).
  readonly hasMetrics: StaticArray<bool>;
  readonly waiting: StaticArray<f64>;
  // Requests the engine reports running. No built-in score reads it (the in-flight and KV scores count that load
  // between metric refreshes too); it is there for a scorer that needs it.
  readonly running: StaticArray<f64>;
  readonly kvUsage: StaticArray<f64>;
  readonly hasKv: StaticArray<bool>;
  // Requests this worker has sent to the endpoint and not yet seen finish.
  readonly inflight: StaticArray<i32>;
  // Leading chunks of the request's hash chain recently sent to this endpoint.
  readonly prefixMatched: StaticArray<i32>;
  readonly loraState: StaticArray<i32>;
  readonly failureEwma: StaticArray<f64>;
  readonly sessionMatch: StaticArray<bool>;

  // The flags as lane masks (all ones where set), for the SIMD build's loops, which take two candidates per step and
  // otherwise turn each pair of flags into a mask again in every pass. Read only while lanesCurrent: the endpoint
  // snapshot derives them once per refresh (deriveLanes) and the candidate fill copies them with the flags, for one
  // pick; a pick, add() and clear() leave them stale (the flags may be written directly). Empty in the scalar build.
  readonly healthyLanes: StaticArray<u64>;
  readonly hasMetricsLanes: StaticArray<u64>;
  readonly hasKvLanes: StaticArray<u64>;
  // healthy as 32-bit lanes, for the loops over i32 counts.
  readonly healthyLanes32: StaticArray<u32>;
  lanesCurrent: bool = false;
  /** Whether exclude() cleared some candidate's health since this was last set to false. */
  excludedAny: bool = false;
  /** Nonzero while the snapshot's fields of the first count candidates (slot, healthy, hasMetrics, running, kvUsage,
   *  hasKv, loraState) are as markSnapshot() found them, so a score of those fields alone still holds (the KV score);
   *  0 (unknown) after clear(), add(), addSlot() and exclude(). Write those fields only through them, or mark again. */
  snapshotId: u32 = 0;
  /** Set by the candidate fill: every candidate's failureEwma is 0 this pick (no failure recorded, or all faded).
   *  Read only while snapshotId is nonzero (a direct write of failureEwma comes after clear(), add() or addSlot()). */
  noFailureRates: bool = false;
  /** Nonzero while the load fields (healthy, hasMetrics, waiting, inflight) of the first count candidates are as
   *  markLoad() found them (load-ranges.ts LoadChanges); 0 after clear(), add(), addSlot() and exclude(). */
  loadEpoch: u32 = 0;

  constructor(capacity: i32) {
    const n = capacity > 0 ? capacity : 0;
    this.capacity = n;
    this.slot = new StaticArray<i32>(n);
    this.healthy = new StaticArray<bool>(n);
    this.hasMetrics = new StaticArray<bool>(n);
    this.waiting = new StaticArray<f64>(n);
    this.running = new StaticArray<f64>(n);
    this.kvUsage = new StaticArray<f64>(n);
    this.hasKv = new StaticArray<bool>(n);
    this.inflight = new StaticArray<i32>(n);
    this.prefixMatched = new StaticArray<i32>(n);
    this.loraState = new StaticArray<i32>(n);
    this.failureEwma = new StaticArray<f64>(n);
    this.sessionMatch = new StaticArray<bool>(n);
    const lanes = ASC_FEATURE_SIMD ? n : 0;
    this.healthyLanes = new StaticArray<u64>(lanes);
    this.hasMetricsLanes = new StaticArray<u64>(lanes);
    this.hasKvLanes = new StaticArray<u64>(lanes);
    this.healthyLanes32 = new StaticArray<u32>(lanes);
  }

  clear(): void {
    this.count = 0;
    this.lanesCurrent = false;
    this.snapshotId = 0;
    this.loadEpoch = 0;
  }

  /** Gives the snapshot's fields as they are now an id no other snapshot of any Candidates had (see snapshotId). */
  markSnapshot(): void {
    let id = lastSnapshotId + 1;
    if (id == 0) id = 1;
    lastSnapshotId = id;
    this.snapshotId = id;
  }

  /** Gives the load fields as they are now an epoch no other Candidates had (see loadEpoch); returns it. */
  markLoad(): u32 {
    let epoch = lastLoadEpoch + 1;
    if (epoch == 0) epoch = 1;
    lastLoadEpoch = epoch;
    this.loadEpoch = epoch;
    return epoch;
  }

  /** Sets the lane masks of the first n candidates from their flags and marks them current (SIMD build only). */
  deriveLanes(n: i32): void {
    if (!ASC_FEATURE_SIMD) return;
    const m = min<i32>(n, this.healthyLanes.length);
    for (let i = 0; i < m; i++) {
      const healthy = unchecked(this.healthy[i]);
      unchecked((this.healthyLanes[i] = healthy ? u64.MAX_VALUE : 0));
      unchecked((this.healthyLanes32[i] = healthy ? u32.MAX_VALUE : 0));
      unchecked((this.hasMetricsLanes[i] = unchecked(this.hasMetrics[i]) ? u64.MAX_VALUE : 0));
      unchecked((this.hasKvLanes[i] = unchecked(this.hasKv[i]) ? u64.MAX_VALUE : 0));
    }
    this.lanesCurrent = true;
  }

  /** Takes candidate i out of the pick (a filter): not healthy, in its flag and in its lanes. */
  exclude(i: i32): void {
    if (<u32>i >= <u32>this.capacity) return;
    unchecked((this.healthy[i] = false));
    this.snapshotId = 0;
    this.loadEpoch = 0;
    if (<u32>i < <u32>this.healthyLanes.length) {
      unchecked((this.healthyLanes[i] = 0));
      unchecked((this.healthyLanes32[i] = 0));
    }
    this.excludedAny = true;
  }

  // Appends a healthy candidate with no metrics and neutral signals; returns its index, or -1 when full.
  // Set the other fields through the arrays at that index.
  addSlot(slot: i32): i32 {
    const i = this.count;
    if (i >= this.capacity) return -1;
    this.lanesCurrent = false;
    this.snapshotId = 0;
    this.loadEpoch = 0;
    unchecked((this.slot[i] = slot));
    unchecked((this.healthy[i] = true));
    unchecked((this.hasMetrics[i] = false));
    unchecked((this.waiting[i] = 0));
    unchecked((this.running[i] = 0));
    unchecked((this.kvUsage[i] = 0));
    unchecked((this.hasKv[i] = false));
    unchecked((this.inflight[i] = 0));
    unchecked((this.prefixMatched[i] = 0));
    unchecked((this.loraState[i] = LoraState.Unknown));
    unchecked((this.failureEwma[i] = 0));
    unchecked((this.sessionMatch[i] = false));
    this.count = i + 1;
    return i;
  }

  // Appends a candidate with every field given; returns its index, or -1 when full.
  add(
    slot: i32,
    healthy: bool,
    hasMetrics: bool,
    waiting: f64,
    running: f64,
    kvUsage: f64,
    hasKv: bool,
    inflight: i32,
    prefixMatched: i32,
    loraState: i32,
    failureEwma: f64,
    sessionMatch: bool,
  ): i32 {
    const i = this.count;
    if (i >= this.capacity) return -1;
    this.lanesCurrent = false;
    this.snapshotId = 0;
    this.loadEpoch = 0;
    unchecked((this.slot[i] = slot));
    unchecked((this.healthy[i] = healthy));
    unchecked((this.hasMetrics[i] = hasMetrics));
    unchecked((this.waiting[i] = waiting));
    unchecked((this.running[i] = running));
    unchecked((this.kvUsage[i] = kvUsage));
    unchecked((this.hasKv[i] = hasKv));
    unchecked((this.inflight[i] = inflight));
    unchecked((this.prefixMatched[i] = prefixMatched));
    unchecked((this.loraState[i] = loraState));
    unchecked((this.failureEwma[i] = failureEwma));
    unchecked((this.sessionMatch[i] = sessionMatch));
    this.count = i + 1;
    return i;
  }

  // How many candidates may be read: count bounded by the capacity and by limit (an output array's length).
  // count is a public field, so it is never trusted alone.
  boundedCount(limit: i32): i32 {
    let n = this.count;
    if (n > this.capacity) n = this.capacity;
    if (n > limit) n = limit;
    return n < 0 ? 0 : n;
  }
}
