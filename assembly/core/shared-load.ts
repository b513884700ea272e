// Process-wide load per endpoint: the requests this gateway has in flight to it (routed, not finished) and how
// many of those still wait for their first response byte (queued or in prefill on the pod). Envoy runs one VM
// per worker and the pods' /metrics are up to a health-check period old, so without this each worker sees only
// its own streams; with it every worker sees the same load, at most a few milliseconds old.
//
// All workers share one value, updated with compare-and-swap. Records are keyed by the endpoint's address hash, so
// workers and configurations agree whatever their registry slots; an endpoint with nothing outstanding has no
// record, so the value stays as small as the set of busy endpoints. The value belongs to an epoch (EPOCH_MS of wall
// time) and lists its members, the owners (one per SharedLoad, a worker token) whose counts it holds: the first write
// of a new epoch starts the records afresh from the writer's own outstanding requests (own-load.ts), and every other
// owner adds its own when it first writes in that epoch (its tick does within LOAD_TICK_MS). A worker that died with
// requests outstanding (a trap skips on_log) never joins again, so its counts are gone at the next epoch, however
// busy the others keep its endpoints; a value no owner joined for a whole epoch counts for nothing.
//
// Shared data costs a host call (and Envoy a global lock) per access, so a busy worker batches: its own changes
// wait in a local list, which it always counts in its own view, and go out together at most every FLUSH_MS (or
// on the next tick); the shared value is read again at most every READ_MS. An idle worker reads and writes at
// each request, so the view is exact at low rates and at most a few milliseconds old at high ones.
import { getSharedData, setSharedData, SharedValue, Utf8 } from "../abi/host";
import { Status } from "../abi/types";
import { HashIndex } from "./hash-index";
import { OwnLoad } from "./own-load";
import { takeWorkerToken } from "./worker-token";

// Versioned: a VM of an older build in the same process reads and writes its own layout under another key.
const KEY = new Utf8("endpoint_picker/load/v2");
/** Most endpoints with outstanding requests tracked at once; more are not counted (their load reads 0). */
export const MAX_LOAD_RECORDS: i32 = 1024;
/** Owners listed in one epoch at most; one more does not join (its requests are not counted). */
const MAX_MEMBERS: i32 = 256;
/** This worker's changes not yet written, at most; one more forces a write. */
export const MAX_DEFERRED: i32 = 64;
/** Attempts of one compare-and-swap write before the changes wait for the next one. */
const CAS_ATTEMPTS: i32 = 4;
/** Places of the log of changed unwritten places (changedPlace), a power of two: a view that lags more rebuilds whole. */
export const CHANGE_LOG: i32 = 64;
/** Bits of the table of deferred hashes a write builds: 128 buckets, twice MAX_DEFERRED. */
const DEFERRED_TABLE_BITS: u64 = 7;
/** Bits of the table of record hashes a join builds: 2,048 buckets, twice MAX_LOAD_RECORDS. */
const RECORD_TABLE_BITS: u64 = 11;
const READ_MS: f64 = 2;
const FLUSH_MS: f64 = 5;
/** How often an idle worker writes what it still holds back, or joins a new epoch (the root context's tick). */
export const LOAD_TICK_MS: u32 = 20;
/** Wall time of one epoch: how long a dead worker's counts may outlive it. */
const EPOCH_MS: f64 = 60_000;
// Layout: [count u32][epoch u32][members u32], members × [owner u64], then count × [address hash u64][in flight i32]
// [awaiting first byte i32].
const HEADER: i32 = 12;
const MEMBER: i32 = 8;
const RECORD: i32 = 16;
const AT_INFLIGHT: usize = 8;
const AT_PENDING: usize = 12;
// The local buffer keeps the records at a fixed offset, with room before them for the header and every member.
const RECORDS_AT: i32 = HEADER + MAX_MEMBERS * MEMBER;

// @ts-ignore: decorator
@inline
function epochOf(nowMs: f64): u32 {
  const e = Math.floor(nowMs / EPOCH_MS);
  return e >= 0 && e < 4294967295 ? <u32>e : 0;
}

export class SharedLoad {
  private readonly buffer: usize = heap.alloc(<usize>(RECORDS_AT + MAX_LOAD_RECORDS * RECORD));
  /** The shared value as last read (released as soon as it is copied into `buffer`). */
  private readonly shared: SharedValue = new SharedValue();
  private count: i32 = 0;
  private cas: u32 = 0;
  /** The buffer holds the value as last read, with its CAS: a write may be tried without reading first. */
  private current: bool = false;
  private readAtMs: f64 = -Infinity;
  private flushedAtMs: f64 = -Infinity;
  /** The epoch of the value as last read or written, and its members. */
  private epoch: u32 = 0;
  private readonly members: StaticArray<u64> = new StaticArray<u64>(MAX_MEMBERS);
  private memberCount: i32 = 0;
  /** This instance's worker token, the owner its counts are listed under (0 until its first write takes one). */
  private owner: u64 = 0;
  /** The last epoch whose value this owner wrote as a member (0: none). */
  private joinedEpoch: u32 = 0;
  /** This worker's own outstanding requests per endpoint, what it brings to each epoch. */
  private readonly own: OwnLoad = new OwnLoad();
  // This worker's changes not yet in the shared value.
  private readonly deferredHash: StaticArray<u64> = new StaticArray<u64>(MAX_DEFERRED);
  private readonly deferredInflight: StaticArray<i32> = new StaticArray<i32>(MAX_DEFERRED);
  private readonly deferredPending: StaticArray<i32> = new StaticArray<i32>(MAX_DEFERRED);
  private deferred: i32 = 0;
  /** The deferred changes by address hash: kept with the list, emptied with it. */
  private readonly deferredIndex: HashIndex = new HashIndex(DEFERRED_TABLE_BITS);
  /** The records by address hash, built for each join. */
  private readonly recordIndex: HashIndex = new HashIndex(RECORD_TABLE_BITS);
  /** Writes given up after CAS_ATTEMPTS conflicts (their changes wait for the next write). */
  conflicts: i32 = 0;
  /** Changes whenever the records (their number, order, addresses or counts) or the unwritten list's places may have
   *  changed, the list's emptying included; never 0. */
  recordsVersion: u32 = 1;
  /** Changes whenever the records' number, order or addresses may have changed (not their counts alone); never 0. */
  addressesVersion: u32 = 1;
  // The places of the unwritten list changed, in order (a place at its creation too), for views that follow them.
  private readonly changeLog: StaticArray<i32> = new StaticArray<i32>(CHANGE_LOG);
  /** Changes logged so far (wraps): the log holds the places of the last CHANGE_LOG of them. */
  changes: u32 = 0;

  /** Makes the view at most READ_MS old; false when nothing is outstanding anywhere. */
  refresh(nowMs: f64): bool {
    if (nowMs - this.readAtMs >= READ_MS || nowMs < this.readAtMs) this.read(nowMs);
    return this.count > 0 || this.deferred > 0;
  }

  /** Records of the shared value as last read (none when no owner joined it for a whole epoch), and record i's fields. */
  get records(): i32 {
    return this.count;
  }

  addressHash(i: i32): u64 {
    return load<u64>(this.recordAt(i));
  }

  inflight(i: i32): i32 {
    return max<i32>(load<i32>(this.recordAt(i) + AT_INFLIGHT), 0);
  }

  pending(i: i32): i32 {
    return max<i32>(load<i32>(this.recordAt(i) + AT_PENDING), 0);
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

  /** The unwritten place the change numbered n changed (n one of the last CHANGE_LOG changes). */
  changedPlace(n: u32): i32 {
    return unchecked(this.changeLog[<i32>(n & <u32>(CHANGE_LOG - 1))]);
  }

  /**
   * Adds the deltas to the endpoint's counts: at once when the worker has not written for FLUSH_MS, else with
   * its next write. Counts never go below 0.
   */
  change(hash: u64, inflightDelta: i32, pendingDelta: i32, nowMs: f64): void {
    this.own.change(hash, inflightDelta, pendingDelta);
    let k = this.deferredIndex.get(hash);
    if (k < 0) {
      k = this.deferred;
      if (k == MAX_DEFERRED) {
        this.flush(nowMs);
        k = this.deferred;
        if (k == MAX_DEFERRED) return; // the shared value is unwritable: drop rather than grow
      }
      unchecked((this.deferredHash[k] = hash));
      unchecked((this.deferredInflight[k] = 0));
      unchecked((this.deferredPending[k] = 0));
      this.deferredIndex.put(hash, k);
      this.deferred = k + 1;
    }
    unchecked((this.deferredInflight[k] += inflightDelta));
    unchecked((this.deferredPending[k] += pendingDelta));
    const n = this.changes;
    unchecked((this.changeLog[<i32>(n & <u32>(CHANGE_LOG - 1))] = k));
    this.changes = n + 1;
    if (nowMs - this.flushedAtMs >= FLUSH_MS || nowMs < this.flushedAtMs) this.flush(nowMs);
  }

  /** Writes this worker's unwritten changes, or joins a new epoch with its outstanding requests (compare-and-swap, a
   *  few attempts); true when nothing remains to write. */
  flush(nowMs: f64): bool {
    if (this.deferred == 0 && !(this.own.live > 0 && this.joinedEpoch < epochOf(nowMs))) return true;
    this.flushedAtMs = nowMs;
    if (this.owner == 0) this.owner = takeWorkerToken();
    if (this.owner == 0) return false; // shared data unavailable
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      if (!this.current) {
        this.read(nowMs);
        // Unreadable (not merely absent): writing blind could erase the other workers' counts.
        if (!this.current) return false;
      }
      this.current = false;
      const epoch = max<u32>(epochOf(nowMs), this.epoch); // a wall clock stepped back stays in the later epoch
      if (epoch != this.epoch) {
        this.epoch = epoch;
        this.memberCount = 0;
        this.count = 0;
        this.addressesChanged();
      }
      if (this.isMember()) {
        this.applyDeferred();
      } else if (this.memberCount < MAX_MEMBERS) {
        unchecked((this.members[this.memberCount++] = this.owner));
        this.addOwn(); // the deferred changes are in it already
      } else {
        // No room to join: this owner's requests go uncounted this epoch (the load reads low, never high).
        this.recordsChanged(); // a new epoch emptied the records, and the unwritten list goes
        this.clearDeferred();
        this.joinedEpoch = epoch;
        return true;
      }
      this.recordsChanged();
      const start = this.buffer + <usize>(RECORDS_AT - HEADER - this.memberCount * MEMBER);
      store<u32>(start, <u32>this.count);
      store<u32>(start, this.epoch, 4);
      store<u32>(start, <u32>this.memberCount, 8);
      memory.copy(start + HEADER, changetype<usize>(this.members), <usize>(this.memberCount * MEMBER));
      const length = HEADER + this.memberCount * MEMBER + this.count * RECORD;
      if (setSharedData(KEY, start, <usize>length, this.cas) == Status.Ok) {
        this.clearDeferred();
        this.joinedEpoch = epoch;
        this.readAtMs = nowMs; // the buffer is what is now shared
        return true;
      }
    }
    this.conflicts++;
    this.readAtMs = -Infinity; // the buffer holds unwritten changes: read again before using it
    return false;
  }

  private clearDeferred(): void {
    this.deferred = 0;
    this.deferredIndex.clear();
  }

  private isMember(): bool {
    const owner = this.owner;
    for (let i = 0; i < this.memberCount; i++) if (unchecked(this.members[i]) == owner) return true;
    return false;
  }

  private recordsChanged(): void {
    const v = this.recordsVersion + 1;
    this.recordsVersion = v == 0 ? 1 : v;
  }

  private addressesChanged(): void {
    const v = this.addressesVersion + 1;
    this.addressesVersion = v == 0 ? 1 : v;
  }

  private read(nowMs: f64): void {
    this.recordsChanged();
    const before = this.count;
    let sameAddresses = false;
    this.count = 0;
    this.memberCount = 0;
    this.epoch = 0;
    this.cas = 0;
    this.current = false;
    this.readAtMs = nowMs;
    const shared = this.shared;
    const status = getSharedData(KEY, shared);
    if (status == Status.Ok) {
      const len = <i32>shared.len;
      if (len >= HEADER) {
        // Counts compared unsigned: one at or above 2^31 (a corrupt value) must not read as negative.
        const members = <i32>min<u32>(load<u32>(shared.ptr, 8), <u32>min<i32>((len - HEADER) / MEMBER, MAX_MEMBERS));
        const recordsLen = len - HEADER - members * MEMBER;
        const records = <i32>min<u32>(load<u32>(shared.ptr), <u32>min<i32>(recordsLen / RECORD, MAX_LOAD_RECORDS));
        this.epoch = load<u32>(shared.ptr, 4);
        this.memberCount = members;
        memory.copy(changetype<usize>(this.members), shared.ptr + HEADER, <usize>(members * MEMBER));
        // A value no owner joined for a whole epoch holds only the counts of workers that are gone.
        if (<u64>this.epoch + 1 >= <u64>epochOf(nowMs)) {
          const from = shared.ptr + HEADER + members * MEMBER;
          sameAddresses = records == before && sameHashes(this.buffer + RECORDS_AT, from, records);
          memory.copy(this.buffer + RECORDS_AT, from, <usize>(records * RECORD));
          this.count = records;
        }
      }
      this.cas = shared.cas;
      this.current = true;
      shared.release();
    } else {
      // NotFound: no worker has written yet; a write with CAS 0 creates the value.
      this.current = status == Status.NotFound;
    }
    if (!(sameAddresses || (before == 0 && this.count == 0))) this.addressesChanged();
  }

  private recordAt(i: i32): usize {
    return this.buffer + <usize>(RECORDS_AT + i * RECORD);
  }

  /**
   * Adds this worker's deferred changes to the buffer in one pass over the records (each record finds its change in
   * the table of the deferred hashes), dropping records that fall to zero; a change to an endpoint without a
   * record appends one. With hundreds of busy endpoints a write costs one pass, not one per change.
   */
  private applyDeferred(): void {
    const n = this.deferred;
    const changes = this.deferredIndex;
    let found: u64 = 0; // bit k: deferred change k met its record
    let i = 0;
    while (i < this.count) {
      const r = this.recordAt(i);
      const k = changes.get(load<u64>(r));
      if (k < 0) {
        i++;
        continue;
      }
      found |= (<u64>1) << <u64>k;
      if (addCounts(r, unchecked(this.deferredInflight[k]), unchecked(this.deferredPending[k]))) i++;
      else this.removeAt(i);
    }
    for (let k = 0; k < n; k++) {
      if ((found >> <u64>k) & 1) continue;
      this.append(unchecked(this.deferredHash[k]), unchecked(this.deferredInflight[k]), unchecked(this.deferredPending[k]));
    }
  }

  /** Adds this owner's outstanding requests to the records: its first write in an epoch. */
  private addOwn(): void {
    const records = this.recordIndex;
    records.clear();
    for (let i = 0; i < this.count; i++) records.put(load<u64>(this.recordAt(i)), i);
    const own = this.own;
    for (let b = 0; b < own.buckets; b++) {
      const inflight = own.inflightAtBucket(b);
      if (inflight <= 0) continue;
      const hash = own.hashAt(b);
      const pending = own.pendingAtBucket(b);
      const index = records.get(hash);
      if (index >= 0) addCounts(this.recordAt(index), inflight, pending);
      else if (this.append(hash, inflight, pending)) records.put(hash, this.count - 1);
    }
  }

  // A record for an endpoint that has none; false when there is nothing to count or no room.
  private append(hash: u64, inflight: i32, pending: i32): bool {
    if ((inflight <= 0 && pending <= 0) || this.count >= MAX_LOAD_RECORDS) return false;
    this.addressesChanged();
    const r = this.recordAt(this.count++);
    store<u64>(r, hash);
    store<i32>(r + AT_INFLIGHT, 0);
    store<i32>(r + AT_PENDING, 0);
    if (addCounts(r, inflight, pending)) return true;
    this.count--;
    return false;
  }

  private removeAt(i: i32): void {
    this.addressesChanged();
    const last = this.count - 1;
    if (i != last) memory.copy(this.recordAt(i), this.recordAt(last), <usize>RECORD);
    this.count = last;
  }
}

// Whether the n records at a and b have the same address hashes, in the same order.
function sameHashes(a: usize, b: usize, n: i32): bool {
  for (let i = 0; i < n; i++) {
    const at = <usize>(i * RECORD);
    if (load<u64>(a + at) != load<u64>(b + at)) return false;
  }
  return true;
}

// Adds the counts to record r; false when its in-flight count fell to 0 (the record should go).
function addCounts(r: usize, inflightDelta: i32, pendingDelta: i32): bool {
  const inflight = max<i32>(load<i32>(r + AT_INFLIGHT) + inflightDelta, 0);
  const pending = min<i32>(max<i32>(load<i32>(r + AT_PENDING) + pendingDelta, 0), inflight);
  if (inflight == 0) return false;
  store<i32>(r + AT_INFLIGHT, inflight);
  store<i32>(r + AT_PENDING, pending);
  return true;
}
