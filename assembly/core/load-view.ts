// This gateway's load per endpoint slot, as one decision sees it: the process-wide records (shared-load.ts, keyed
// by address hash, so that workers and configurations agree) placed on this registry's slots, plus this worker's
// own changes not yet written. Finding a record's slot is a registry lookup; which slot each record maps to is kept
// until the records or the registry change, so a decision over hundreds of busy endpoints does not look every one
// of them up again. Only the slots the last read wrote are cleared before the next, and the fill (candidate-fill.ts)
// reads only those: at hundreds of endpoints few have requests outstanding. This worker's unwritten changes keep
// their place in its list until a write empties it, so each one's slot is kept with its hash and looked up only
// when the hash at that place or the registry changed; a change whose deltas cancelled (a request routed and
// finished before the write) changes nothing and is passed over.
import { EndpointRegistry } from "../endpoints/endpoint-registry";
import { MAX_DEFERRED, MAX_LOAD_RECORDS, SharedLoad } from "./shared-load";

export class LoadView {
  /** Per slot: requests in flight and, of those, awaiting their first byte; 0 for an endpoint without a record. */
  readonly inflight: StaticArray<i32>;
  readonly pending: StaticArray<i32>;
  // Per record of the shared value: its active slot, or -1. Valid for (mappedRecords, mappedRegistry).
  private readonly recordSlots: StaticArray<i32> = new StaticArray<i32>(MAX_LOAD_RECORDS);
  private mappedRecords: u32 = 0;
  private mappedRegistry: u32 = 0;
  /** The slots the last read wrote (a record's, then an unwritten change's: repeats possible); every other slot reads
   *  0 in inflight and pending. */
  readonly written: StaticArray<i32> = new StaticArray<i32>(MAX_LOAD_RECORDS + MAX_DEFERRED);
  writtenCount: i32 = 0;
  // Per place in the unwritten list: the hash last found there (0: none) and its active slot, for mappedUnwritten.
  private readonly unwrittenHashes: StaticArray<u64> = new StaticArray<u64>(MAX_DEFERRED);
  private readonly unwrittenSlots: StaticArray<i32> = new StaticArray<i32>(MAX_DEFERRED);
  private mappedUnwritten: u32 = 0;

  constructor(slots: i32) {
    const n = slots > 0 ? slots : 0;
    this.inflight = new StaticArray<i32>(n);
    this.pending = new StaticArray<i32>(n);
  }

  /** Brings inflight and pending up to date for the active endpoints (at most READ_MS old, own changes exact). */
  read(load: SharedLoad, registry: EndpointRegistry, nowMs: f64): void {
    const inflight = this.inflight;
    const pending = this.pending;
    const room = <u32>min<i32>(inflight.length, pending.length);
    this.clearWritten();
    if (!load.refresh(nowMs)) return;
    const records = min<i32>(load.records, MAX_LOAD_RECORDS);
    const recordSlots = this.recordSlots;
    if (this.mappedRecords != load.recordsVersion || this.mappedRegistry != registry.version) {
      for (let i = 0; i < records; i++) unchecked((recordSlots[i] = activeSlotOf(registry, load.addressHash(i))));
      this.mappedRecords = load.recordsVersion;
      this.mappedRegistry = registry.version;
    }
    // The written list in locals: the stores to inflight and pending could alias its fields as far as the compiler
    // knows, which would then be loaded again for every record. It has room for every record and unwritten change.
    const written = this.written;
    let count = 0;
    for (let i = 0; i < records; i++) {
      const slot = unchecked(recordSlots[i]);
      if (<u32>slot >= room) continue;
      unchecked((inflight[slot] = load.inflight(i)));
      unchecked((pending[slot] = load.pending(i)));
      unchecked((written[count++] = slot));
    }
    if (this.mappedUnwritten != registry.version) {
      memory.fill(changetype<usize>(this.unwrittenHashes), 0, <usize>MAX_DEFERRED << 3);
      this.mappedUnwritten = registry.version;
    }
    const unwritten = min<i32>(load.unwritten, MAX_DEFERRED);
    for (let k = 0; k < unwritten; k++) {
      const inflightDelta = load.unwrittenInflight(k);
      const pendingDelta = load.unwrittenPending(k);
      // The counts read are at least 0 already, so a change of 0 and 0 leaves them (and the fill) as they are.
      if ((inflightDelta | pendingDelta) == 0) continue;
      const slot = this.unwrittenSlot(registry, k, load.unwrittenHash(k));
      if (<u32>slot >= room) continue;
      unchecked((inflight[slot] = max<i32>(unchecked(inflight[slot]) + inflightDelta, 0)));
      unchecked((pending[slot] = max<i32>(unchecked(pending[slot]) + pendingDelta, 0)));
      unchecked((written[count++] = slot));
    }
    this.writtenCount = count;
  }

  // The active slot of the unwritten change at place k (hash: its address hash), looked up when new there.
  private unwrittenSlot(registry: EndpointRegistry, k: i32, hash: u64): i32 {
    if (unchecked(this.unwrittenHashes[k]) == hash && hash != 0) return unchecked(this.unwrittenSlots[k]);
    const slot = activeSlotOf(registry, hash);
    unchecked((this.unwrittenHashes[k] = hash));
    unchecked((this.unwrittenSlots[k] = slot));
    return slot;
  }

  private clearWritten(): void {
    const inflight = this.inflight;
    const pending = this.pending;
    const room = <u32>min<i32>(inflight.length, pending.length);
    const written = this.written;
    for (let i = 0; i < this.writtenCount; i++) {
      const slot = unchecked(written[i]);
      if (<u32>slot >= room) continue;
      unchecked((inflight[slot] = 0));
      unchecked((pending[slot] = 0));
    }
    this.writtenCount = 0;
  }
}

function activeSlotOf(registry: EndpointRegistry, addressHash: u64): i32 {
  const slot = registry.slotForHash(addressHash);
  return slot >= 0 && registry.isActive(slot) ? slot : -1;
}
