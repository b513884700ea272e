// Process-wide load per endpoint: the requests this gateway has in flight to it (routed, not finished) and how
// many of those still wait for their first response byte (queued or in prefill on the pod). Envoy runs one VM
// per worker and the pods' /metrics are up to a health-check period old, so without this each worker sees only
// its own streams; with it every worker sees the same load, at most a few milliseconds old.
//
// All workers share one value, updated with compare-and-swap. Records are keyed by the endpoint's address hash, so
// workers and configurations agree whatever their registry slots; an endpoint with nothing outstanding has no
// record, so the value stays as small as the set of busy endpoints. A record untouched for RECORD_MAX_AGE_MS (a
// worker that died with requests outstanding) no longer counts.
//
// Shared data costs a host call (and Envoy a global lock) per access, so a busy worker batches: its own changes
// wait in a local list, which it always counts in its own view, and go out together at most every FLUSH_MS (or
// on the next tick); the shared value is read again at most every READ_MS. An idle worker reads and writes at
// each request, so the view is exact at low rates and at most a few milliseconds old at high ones.
import { getSharedData, setSharedData, SharedValue, Utf8 } from "../abi/host";
import { Status } from "../abi/types";

const KEY = new Utf8("endpoint_picker/load");
/** Most endpoints with outstanding requests tracked at once; more are not counted (their load reads 0). */
export const MAX_LOAD_RECORDS: i32 = 1024;
/** This worker's changes not yet written, at most; one more forces a write. */
const MAX_DEFERRED: i32 = 64;
/** Attempts of one compare-and-swap write before the changes wait for the next one. */
const CAS_ATTEMPTS: i32 = 4;
/** Buckets of the table of deferred hashes a write builds: a power of two, twice MAX_DEFERRED. */
const DEFERRED_TABLE: i32 = 128;
const READ_MS: f64 = 2;
const FLUSH_MS: f64 = 5;
/** How often an idle worker writes what it still holds back (the root context's tick). */
export const LOAD_TICK_MS: u32 = 20;
const RECORD_MAX_AGE_MS: f64 = 600_000;
// Layout: [count u32] then count × [address hash u64][changed at, ms f64][in flight i32][awaiting first byte i32].
const HEADER: i32 = 4;
const RECORD: i32 = 24;
const AT_CHANGED: usize = 8;
const AT_INFLIGHT: usize = 16;
const AT_PENDING: usize = 20;

// @ts-ignore: decorator
@inline
function deferredBucket(hash: u64): i32 {
  return <i32>((hash * 0x9e3779b97f4a7c15) >> 57); // the top 7 bits: DEFERRED_TABLE buckets
}

export class SharedLoad {
  private readonly buffer: usize = heap.alloc(<usize>(HEADER + MAX_LOAD_RECORDS * RECORD));
  /** The shared value as last read (released as soon as it is copied into `buffer`). */
  private readonly shared: SharedValue = new SharedValue();
  private count: i32 = 0;
  private cas: u32 = 0;
  /** The buffer holds the value as last read, with its CAS: a write may be tried without reading first. */
  private current: bool = false;
  private readAtMs: f64 = -Infinity;
  private flushedAtMs: f64 = -Infinity;
  // This worker's changes not yet in the shared value.
  private readonly deferredHash: StaticArray<u64> = new StaticArray<u64>(MAX_DEFERRED);
  private readonly deferredInflight: StaticArray<i32> = new StaticArray<i32>(MAX_DEFERRED);
  private readonly deferredPending: StaticArray<i32> = new StaticArray<i32>(MAX_DEFERRED);
  private deferred: i32 = 0;
  /** Open-addressing table of the deferred hashes (deferred index + 1, 0 = empty), built for each write. */
  private readonly deferredTable: StaticArray<i32> = new StaticArray<i32>(DEFERRED_TABLE);
  /** Writes given up after CAS_ATTEMPTS conflicts (their changes wait for the next write). */
  conflicts: i32 = 0;
  /** Changes whenever the records (their number, order or addresses) may have changed; never 0. */
  recordsVersion: u32 = 1;

  /** Makes the view at most READ_MS old; false when nothing is outstanding anywhere. */
  refresh(nowMs: f64): bool {
    if (nowMs - this.readAtMs >= READ_MS || nowMs < this.readAtMs) this.read(nowMs);
    return this.count > 0 || this.deferred > 0;
  }

  /** Records of the shared value as last read, and the fields of record i (0 for a record too old). */
  get records(): i32 {
    return this.count;
  }

  addressHash(i: i32): u64 {
    return load<u64>(this.recordAt(i));
  }

  inflight(i: i32, nowMs: f64): i32 {
    const r = this.recordAt(i);
    return nowMs - load<f64>(r + AT_CHANGED) <= RECORD_MAX_AGE_MS ? load<i32>(r + AT_INFLIGHT) : 0;
  }

  pending(i: i32, nowMs: f64): i32 {
    const r = this.recordAt(i);
    return nowMs - load<f64>(r + AT_CHANGED) <= RECORD_MAX_AGE_MS ? load<i32>(r + AT_PENDING) : 0;
  }

  /** This worker's changes not yet written: add them to the records for its own view. */
  get unwritten(): i32 {
    return this.deferred;
  }

  unwrittenHash(k: i32): u64 {
    return unchecked(this.deferredHash[k]);
  }

  unwrittenInflight(k: i32): i32 {
    return unchecked(this.deferredInflight[k]);
  }

  unwrittenPending(k: i32): i32 {
    return unchecked(this.deferredPending[k]);
  }

  /**
   * Adds the deltas to the endpoint's counts: at once when the worker has not written for FLUSH_MS, else with
   * its next write. Counts never go below 0.
   */
  change(hash: u64, inflightDelta: i32, pendingDelta: i32, nowMs: f64): void {
    let k = 0;
    while (k < this.deferred && unchecked(this.deferredHash[k]) != hash) k++;
    if (k == this.deferred) {
      if (k == MAX_DEFERRED) {
        this.flush(nowMs);
        k = this.deferred;
        if (k == MAX_DEFERRED) return; // the shared value is unwritable: drop rather than grow
      }
      unchecked((this.deferredHash[k] = hash));
      unchecked((this.deferredInflight[k] = 0));
      unchecked((this.deferredPending[k] = 0));
      this.deferred = k + 1;
    }
    unchecked((this.deferredInflight[k] += inflightDelta));
    unchecked((this.deferredPending[k] += pendingDelta));
    if (nowMs - this.flushedAtMs >= FLUSH_MS || nowMs < this.flushedAtMs) this.flush(nowMs);
  }

  /** Writes this worker's unwritten changes (compare-and-swap, a few attempts); true when none remain. */
  flush(nowMs: f64): bool {
    if (this.deferred == 0) return true;
    this.flushedAtMs = nowMs;
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      if (!this.current) {
        this.read(nowMs);
        // Unreadable (not merely absent): writing blind could erase the other workers' counts.
        if (!this.current) return false;
      }
      this.current = false;
      this.applyDeferred(nowMs);
      this.recordsChanged();
      store<u32>(this.buffer, <u32>this.count);
      if (setSharedData(KEY, this.buffer, <usize>(HEADER + this.count * RECORD), this.cas) == Status.Ok) {
        this.deferred = 0;
        this.readAtMs = nowMs; // the buffer is what is now shared
        return true;
      }
    }
    this.conflicts++;
    this.readAtMs = -Infinity; // the buffer holds unwritten changes: read again before using it
    return false;
  }

  private recordsChanged(): void {
    const v = this.recordsVersion + 1;
    this.recordsVersion = v == 0 ? 1 : v;
  }

  private read(nowMs: f64): void {
    this.recordsChanged();
    this.count = 0;
    this.cas = 0;
    this.current = false;
    this.readAtMs = nowMs;
    const shared = this.shared;
    const status = getSharedData(KEY, shared);
    if (status == Status.Ok) {
      const len = <i32>shared.len;
      if (len >= HEADER) {
        // Compared unsigned: a count at or above 2^31 (a corrupt value) must not read as negative.
        const room = <u32>min<i32>((len - HEADER) / RECORD, MAX_LOAD_RECORDS);
        const records = <i32>min<u32>(load<u32>(shared.ptr), room);
        memory.copy(this.buffer + HEADER, shared.ptr + HEADER, <usize>(records * RECORD));
        this.count = records;
      }
      this.cas = shared.cas;
      this.current = true;
      shared.release();
    } else {
      // NotFound: no worker has written yet; a write with CAS 0 creates the value.
      this.current = status == Status.NotFound;
    }
  }

  private recordAt(i: i32): usize {
    return this.buffer + <usize>(HEADER + i * RECORD);
  }

  /**
   * Adds this worker's deferred changes to the buffer in one pass over the records (each record finds its change in
   * a small table of the deferred hashes), dropping records that fall to zero or are too old; a change to an
   * endpoint without a record appends one. With hundreds of busy endpoints a write costs one pass, not one per
   * change.
   */
  private applyDeferred(nowMs: f64): void {
    const n = this.deferred;
    const table = this.deferredTable;
    memory.fill(changetype<usize>(table), 0, <usize>DEFERRED_TABLE << 2);
    for (let k = 0; k < n; k++) {
      let b = deferredBucket(unchecked(this.deferredHash[k]));
      while (unchecked(table[b]) != 0) b = (b + 1) & (DEFERRED_TABLE - 1);
      unchecked((table[b] = k + 1));
    }
    let found: u64 = 0; // bit k: deferred change k met its record
    let i = 0;
    while (i < this.count) {
      const r = this.recordAt(i);
      const k = this.deferredIndexOf(load<u64>(r));
      if (k >= 0) {
        found |= (<u64>1) << <u64>k;
        if (this.update(r, k, nowMs)) i++;
        else this.removeAt(i);
      } else if (nowMs - load<f64>(r + AT_CHANGED) > RECORD_MAX_AGE_MS) {
        this.removeAt(i);
      } else {
        i++;
      }
    }
    for (let k = 0; k < n; k++) {
      if ((found >> <u64>k) & 1) continue;
      if ((unchecked(this.deferredInflight[k]) <= 0 && unchecked(this.deferredPending[k]) <= 0) || this.count >= MAX_LOAD_RECORDS) continue;
      const r = this.recordAt(this.count++);
      store<u64>(r, unchecked(this.deferredHash[k]));
      store<i32>(r + AT_INFLIGHT, 0);
      store<i32>(r + AT_PENDING, 0);
      if (!this.update(r, k, nowMs)) this.count--;
    }
  }

  // The deferred change to the endpoint with this address hash, or -1.
  private deferredIndexOf(hash: u64): i32 {
    const table = this.deferredTable;
    let b = deferredBucket(hash);
    while (true) {
      const e = unchecked(table[b]);
      if (e == 0) return -1;
      if (unchecked(this.deferredHash[e - 1]) == hash) return e - 1;
      b = (b + 1) & (DEFERRED_TABLE - 1);
    }
    return -1; // unreachable: the table always has empty buckets
  }

  // Adds deferred change k to record r; false when its in-flight count fell to 0 (the record should go).
  private update(r: usize, k: i32, nowMs: f64): bool {
    const inflight = max<i32>(load<i32>(r + AT_INFLIGHT) + unchecked(this.deferredInflight[k]), 0);
    const pending = min<i32>(max<i32>(load<i32>(r + AT_PENDING) + unchecked(this.deferredPending[k]), 0), inflight);
    if (inflight == 0) return false;
    store<f64>(r + AT_CHANGED, nowMs);
    store<i32>(r + AT_INFLIGHT, inflight);
    store<i32>(r + AT_PENDING, pending);
    return true;
  }

  private removeAt(i: i32): void {
    const last = this.count - 1;
    if (i != last) memory.copy(this.recordAt(i), this.recordAt(last), <usize>RECORD);
    this.count = last;
  }
}
