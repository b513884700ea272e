// This gateway's load per endpoint slot, as one decision sees it: the process-wide records (shared-load.ts, keyed
// by address hash, so that workers and configurations agree) placed on this registry's slots, plus this worker's
// own changes not yet written. Finding a record's slot is a registry lookup; which slot each record maps to is kept
// until the records' addresses (not their counts) or the registry change, so a decision over hundreds of busy
// endpoints does not look every one of them up again. Only the slots the view wrote are cleared before it is built
// again, and the fill (candidate-fill.ts) reads only those: at hundreds of endpoints few have requests outstanding.
// Between two reads of the shared value the view changes only where this worker's own changes did: a read applies
// just the unwritten places changed since the last (the load's change log), each onto its slot's records' counts
// kept apart. Each unwritten place's slot is kept with its hash and looked up only when the hash at that place or
// the registry changed; a change whose deltas cancelled (a request routed and finished before the write) leaves the
// records' counts.
import { EndpointRegistry } from "../endpoints/endpoint-registry";
import { CHANGE_LOG, MAX_DEFERRED, MAX_LOAD_RECORDS, SharedLoad } from "./shared-load";

export class LoadView {
  /** Per slot: requests in flight and, of those, awaiting their first byte; 0 for an endpoint without a record. */
  readonly inflight: StaticArray<i32>;
  readonly pending: StaticArray<i32>;
  // Per slot: the records' counts alone, which an unwritten change is added to.
  private readonly recordInflight: StaticArray<i32>;
  private readonly recordPending: StaticArray<i32>;
  // Per record of the shared value: its active slot, or -1. Valid for (mappedRecords: the load's addressesVersion,
  // mappedRegistry).
  private readonly recordSlots: StaticArray<i32> = new StaticArray<i32>(MAX_LOAD_RECORDS);
  private mappedRecords: u32 = 0;
  private mappedRegistry: u32 = 0;
  /** The slots the view wrote, each once (a record's, then an unwritten place's); every other slot reads 0 in
   *  inflight and pending. */
  readonly written: StaticArray<i32> = new StaticArray<i32>(MAX_LOAD_RECORDS + MAX_DEFERRED);
  writtenCount: i32 = 0;
  // Per slot: whether it is in the written list.
  private readonly listed: StaticArray<bool>;
  // The view is built from (builtRecords, builtRegistry) and the load's changes up to builtChanges; the unwritten
  // places below listedPlaces have their slots in the written list.
  private builtRecords: u32 = 0;
  private builtRegistry: u32 = 0;
  private builtChanges: u32 = 0;
  private listedPlaces: i32 = 0;
  // Per place in the unwritten list: the hash last found there (0: none) and its active slot, for mappedUnwritten.
  private readonly unwrittenHashes: StaticArray<u64> = new StaticArray<u64>(MAX_DEFERRED);
  private readonly unwrittenSlots: StaticArray<i32> = new StaticArray<i32>(MAX_DEFERRED);
  private mappedUnwritten: u32 = 0;
  // The length of every per-slot array: a slot below it indexes them all.
  private readonly room: u32;

  constructor(slots: i32) {
    const n = slots > 0 ? slots : 0;
    this.room = <u32>n;
    this.inflight = new StaticArray<i32>(n);
    this.pending = new StaticArray<i32>(n);
    this.recordInflight = new StaticArray<i32>(n);
    this.recordPending = new StaticArray<i32>(n);
    this.listed = new StaticArray<bool>(n);
  }

  /** Brings inflight and pending up to date for the active endpoints (at most READ_MS old, own changes exact). */
  read(load: SharedLoad, registry: EndpointRegistry, nowMs: f64): void {
    const any = load.refresh(nowMs);
    const changes = load.changes;
    if (
      load.recordsVersion != this.builtRecords ||
      registry.version != this.builtRegistry ||
      changes - this.builtChanges > <u32>CHANGE_LOG
    ) {
      this.build(load, registry, any);
      return;
    }
    // Only this worker's changes since the last read: each sets its place's slot to the records' counts plus the
    // place's deltas, as build does.
    const inflight = this.inflight;
    const pending = this.pending;
    const recordInflight = this.recordInflight;
    const recordPending = this.recordPending;
    const listed = this.listed;
    const room = this.room;
    const unwritten = min<i32>(load.unwritten, MAX_DEFERRED);
    const written = this.written;
    let count = this.writtenCount;
    let places = this.listedPlaces;
    for (let n = this.builtChanges; n != changes; n++) {
      const k = load.changedPlace(n);
      if (<u32>k >= <u32>unwritten) continue;
      const slot = this.unwrittenSlot(registry, k, load.unwrittenHash(k));
      // A place logged for the first time was created by that change: its slot joins the written list.
      for (; places <= k; places++) {
        const s = places == k ? slot : this.unwrittenSlot(registry, places, load.unwrittenHash(places));
        if (<u32>s < room && !unchecked(listed[s]) && count < written.length) {
          unchecked((listed[s] = true));
          unchecked((written[count++] = s));
        }
      }
      if (<u32>slot >= room) continue;
      unchecked((inflight[slot] = max<i32>(unchecked(recordInflight[slot]) + load.unwrittenInflight(k), 0)));
      unchecked((pending[slot] = max<i32>(unchecked(recordPending[slot]) + load.unwrittenPending(k), 0)));
    }
    this.writtenCount = count;
    this.listedPlaces = places;
    this.builtChanges = changes;
  }

  // The view from scratch: the records placed on their slots, then every unwritten place added.
  private build(load: SharedLoad, registry: EndpointRegistry, any: bool): void {
    const inflight = this.inflight;
    const pending = this.pending;
    const recordInflight = this.recordInflight;
    const recordPending = this.recordPending;
    const listed = this.listed;
    const room = this.room;
    this.clearWritten();
    this.builtRecords = load.recordsVersion;
    this.builtRegistry = registry.version;
    this.builtChanges = load.changes;
    this.listedPlaces = 0;
    // Before any return: the incremental read trusts these cached slots until the registry changes again.
    if (this.mappedUnwritten != registry.version) {
      memory.fill(changetype<usize>(this.unwrittenHashes), 0, <usize>MAX_DEFERRED << 3);
      this.mappedUnwritten = registry.version;
    }
    if (!any) return;
    const records = min<i32>(load.records, MAX_LOAD_RECORDS);
    const recordSlots = this.recordSlots;
    if (this.mappedRecords != load.addressesVersion || this.mappedRegistry != registry.version) {
      for (let i = 0; i < records; i++) unchecked((recordSlots[i] = activeSlotOf(registry, load.addressHash(i))));
      this.mappedRecords = load.addressesVersion;
      this.mappedRegistry = registry.version;
    }
    // The written list in locals: the stores to the per-slot counts could alias its fields as far as the compiler
    // knows, which would then be loaded again for every record. It has room for every record and unwritten place.
    const written = this.written;
    let count = 0;
    for (let i = 0; i < records; i++) {
      const slot = unchecked(recordSlots[i]);
      if (<u32>slot >= room) continue;
      const recordedInflight = load.inflight(i);
      const recordedPending = load.pending(i);
      unchecked((recordInflight[slot] = recordedInflight));
      unchecked((recordPending[slot] = recordedPending));
      unchecked((inflight[slot] = recordedInflight));
      unchecked((pending[slot] = recordedPending));
      if (unchecked(listed[slot])) continue; // a second record of the slot (a value not written by this build)
      unchecked((listed[slot] = true));
      unchecked((written[count++] = slot));
    }
    const unwritten = min<i32>(load.unwritten, MAX_DEFERRED);
    for (let k = 0; k < unwritten; k++) {
      const slot = this.unwrittenSlot(registry, k, load.unwrittenHash(k));
      if (<u32>slot >= room) continue;
      // Listed even while its deltas cancel: a later change there is applied without building the list again.
      if (!unchecked(listed[slot])) {
        unchecked((listed[slot] = true));
        unchecked((written[count++] = slot));
      }
      const inflightDelta = load.unwrittenInflight(k);
      const pendingDelta = load.unwrittenPending(k);
      // The records' counts are at least 0 already, so a change of 0 and 0 leaves them as they are.
      if ((inflightDelta | pendingDelta) == 0) continue;
      unchecked((inflight[slot] = max<i32>(unchecked(recordInflight[slot]) + inflightDelta, 0)));
      unchecked((pending[slot] = max<i32>(unchecked(recordPending[slot]) + pendingDelta, 0)));
    }
    this.writtenCount = count;
    this.listedPlaces = unwritten;
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
    const room = this.room;
    const inflight = this.inflight;
    const pending = this.pending;
    const recordInflight = this.recordInflight;
    const recordPending = this.recordPending;
    const listed = this.listed;
    const written = this.written;
    for (let i = 0; i < this.writtenCount; i++) {
      const slot = unchecked(written[i]);
      if (<u32>slot >= room) continue;
      unchecked((inflight[slot] = 0));
      unchecked((pending[slot] = 0));
      unchecked((recordInflight[slot] = 0));
      unchecked((recordPending[slot] = 0));
      unchecked((listed[slot] = false));
    }
    this.writtenCount = 0;
  }
}

function activeSlotOf(registry: EndpointRegistry, addressHash: u64): i32 {
  const slot = registry.slotForHash(addressHash);
  return slot >= 0 && registry.isActive(slot) ? slot : -1;
}
