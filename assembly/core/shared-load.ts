// Process-wide load per endpoint: the requests this gateway has in flight to it (routed, not finished) and how
// many of those still wait for their first response byte (queued or in prefill on the pod). Envoy runs one VM
// per worker and the pods' /metrics are up to a health-check period old, so without this each worker sees only
// its own streams; with it every worker sees the same exact, instantaneous load. All workers update one
// shared-data value with compare-and-swap. Records are keyed by the endpoint's address hash, so workers and
// configurations agree whatever their registry slots; an endpoint with nothing outstanding has no record, so
// the value stays as small as the set of busy endpoints. A record untouched for RECORD_MAX_AGE_MS (a worker
// that died with requests outstanding) no longer counts.
import { getSharedData, returned, setSharedData, sharedDataCas, Utf8 } from "../abi/host";
import { Status } from "../abi/types";

const KEY = new Utf8("endpoint_picker/load");
/** Most endpoints with outstanding requests tracked at once; more are not counted (their load reads 0). */
export const MAX_LOAD_RECORDS: i32 = 1024;
/** Attempts of one compare-and-swap update before giving up (counted, fail open). */
const CAS_ATTEMPTS: i32 = 4;
const RECORD_MAX_AGE_MS: f64 = 600_000;
// Layout: [count u32] then count × [address hash u64][changed at, ms f64][in flight i32][awaiting first byte i32].
const HEADER: i32 = 4;
const RECORD: i32 = 24;
const AT_CHANGED: usize = 8;
const AT_INFLIGHT: usize = 16;
const AT_PENDING: usize = 20;

const enum Change {
  None,
  Write,
  Full,
}

export class SharedLoad {
  private readonly buffer: usize = heap.alloc(<usize>(HEADER + MAX_LOAD_RECORDS * RECORD));
  private count: i32 = 0;
  private cas: u32 = 0;
  /** The buffer holds the value as last read (and its CAS), so the next update may try it without a read. */
  private current: bool = false;
  /** Updates given up after CAS_ATTEMPTS conflicts. */
  conflicts: i32 = 0;

  /** Reads the value; false when there is none (nothing outstanding anywhere) or it cannot be read. */
  read(): bool {
    this.count = 0;
    this.cas = 0;
    this.current = false;
    const status = getSharedData(KEY);
    if (status == Status.Ok) {
      const len = <i32>returned.len;
      if (len >= HEADER) {
        const records = min<i32>(<i32>load<u32>(returned.ptr), min<i32>((len - HEADER) / RECORD, MAX_LOAD_RECORDS));
        store<u32>(this.buffer, <u32>records);
        memory.copy(this.buffer + HEADER, returned.ptr + HEADER, <usize>(records * RECORD));
        this.count = records;
      }
      this.cas = sharedDataCas;
      this.current = true;
      returned.release();
      return this.count > 0;
    }
    // NotFound: no worker has written yet; a write with CAS 0 creates the value.
    this.current = status == Status.NotFound;
    return false;
  }

  /** Records in the buffer after read(), and the fields of record i (for the caller's per-slot arrays). */
  get records(): i32 {
    return this.count;
  }

  addressHash(i: i32): u64 {
    return load<u64>(this.recordAt(i));
  }

  /** In flight and awaiting a first byte; 0 for a record older than RECORD_MAX_AGE_MS. */
  inflight(i: i32, nowMs: f64): i32 {
    const r = this.recordAt(i);
    return nowMs - load<f64>(r + AT_CHANGED) <= RECORD_MAX_AGE_MS ? max<i32>(load<i32>(r + AT_INFLIGHT), 0) : 0;
  }

  pending(i: i32, nowMs: f64): i32 {
    const r = this.recordAt(i);
    return nowMs - load<f64>(r + AT_CHANGED) <= RECORD_MAX_AGE_MS ? max<i32>(load<i32>(r + AT_PENDING), 0) : 0;
  }

  /**
   * Adds the deltas to the endpoint's counts (never below 0) with compare-and-swap, starting from the value of
   * the last read() when nothing was written since. False when every attempt met another worker's write, or
   * the table is full: the change is dropped and the caller must not undo it later.
   */
  add(hash: u64, inflightDelta: i32, pendingDelta: i32, nowMs: f64): bool {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      if (!this.current) {
        this.read();
        // Unreadable (not merely absent): writing blind could erase the other workers' counts.
        if (!this.current) return false;
      }
      this.current = false;
      const change = this.apply(hash, inflightDelta, pendingDelta, nowMs);
      if (change == Change.None) return true;
      if (change == Change.Full) return false;
      const bytes = <usize>(HEADER + this.count * RECORD);
      if (setSharedData(KEY, this.buffer, bytes, this.cas) == Status.Ok) return true;
    }
    this.conflicts++;
    return false;
  }

  private recordAt(i: i32): usize {
    return this.buffer + <usize>(HEADER + i * RECORD);
  }

  /** Applies the deltas in the buffer, dropping records that fall to zero or are too old. */
  private apply(hash: u64, inflightDelta: i32, pendingDelta: i32, nowMs: f64): Change {
    let found = -1;
    let i = 0;
    while (i < this.count) {
      const r = this.recordAt(i);
      if (load<u64>(r) == hash) {
        found = i;
        i++;
      } else if (nowMs - load<f64>(r + AT_CHANGED) > RECORD_MAX_AGE_MS) {
        this.removeAt(i);
      } else {
        i++;
      }
    }
    if (found < 0) {
      if (inflightDelta <= 0 && pendingDelta <= 0) return Change.None;
      if (this.count >= MAX_LOAD_RECORDS) return Change.Full;
      found = this.count++;
      const r = this.recordAt(found);
      store<u64>(r, hash);
      store<i32>(r + AT_INFLIGHT, 0);
      store<i32>(r + AT_PENDING, 0);
    }
    const r = this.recordAt(found);
    const inflight = max<i32>(load<i32>(r + AT_INFLIGHT) + inflightDelta, 0);
    const pending = min<i32>(max<i32>(load<i32>(r + AT_PENDING) + pendingDelta, 0), inflight);
    if (inflight == 0) {
      this.removeAt(found);
    } else {
      store<f64>(r + AT_CHANGED, nowMs);
      store<i32>(r + AT_INFLIGHT, inflight);
      store<i32>(r + AT_PENDING, pending);
    }
    store<u32>(this.buffer, <u32>this.count);
    return Change.Write;
  }

  private removeAt(i: i32): void {
    const last = this.count - 1;
    if (i != last) memory.copy(this.recordAt(i), this.recordAt(last), <usize>RECORD);
    this.count = last;
  }
}
