// Maps endpoint addresses ("ip:port") to stable slots 0..capacity-1, the unit the prefix index and the scheduler
// count in. A slot keeps its address while the endpoint keeps being seen; an endpoint missing from a refresh frees
// its slot, and the slot's generation changes then, so a lease taken on the old occupant can tell it is gone.
// All storage is preallocated; lookups are O(1) through a linear-probing table keyed by the address hash.
import { EndpointMetrics } from "./endpoint-metrics";
import { xxh64 } from "../prefix/xxh64";

/** Longest address a slot stores ("[ipv6]:port" is at most 47 bytes). */
export const MAX_ADDRESS_BYTES: i32 = 64;

/** The hash the registry expects for an address: XXH64 of its bytes, seed 0. */
export function addressHash(ptr: usize, len: usize): u64 {
  return xxh64(ptr, len, 0);
}

// @ts-ignore: decorator
@inline
function homeBucket(hash: u64, mask: i32): i32 {
  return <i32>(hash ^ (hash >> 29) ^ (hash >> 47)) & mask;
}

export class EndpointRegistry {
  readonly capacity: i32;
  /** Slots in use, in the order their endpoints were first seen; the first activeCount entries are valid. */
  readonly activeSlots: StaticArray<i32>;
  activeCount: i32 = 0;
  /** Whether activeSlots[i] == i for every active slot (slots handed out in order and none freed before another). */
  activeInOrder: bool = true;
  /**
   * Changes whenever anything a reader of the active endpoints may have derived could have changed: the active set,
   * a slot's health or generation, or a slot's metrics (handed out for writing by writableMetrics()). Never 0.
   */
  version: u32 = 1;

  private readonly addressBytes: StaticArray<u8>;
  private readonly addressLens: StaticArray<i32>;
  private readonly addressHashes: StaticArray<u64>;
  private readonly inUse: StaticArray<bool>;
  /** Per slot, for bulk readers (the candidate fill); only the registry writes it. */
  readonly generationBySlot: StaticArray<u32>;
  private readonly seenEpoch: StaticArray<u32>;
  private epoch: u32 = 1;
  // Free slots as a stack; slot 0 is on top at first.
  private readonly freeSlots: StaticArray<i32>;
  private freeCount: i32;
  // Open addressing, linear probing, backward-shift deletion. Entry = slot + 1, 0 = empty.
  private readonly table: StaticArray<i32>;
  private readonly tableMask: i32;

  /** Per slot, for bulk readers (the candidate fill); only the registry and the metrics refresh write it. */
  readonly metricsBySlot: StaticArray<EndpointMetrics>;
  private readonly fingerprints: StaticArray<u64>;
  /** Per slot, for bulk readers (the candidate fill); only the registry writes it. */
  readonly healthyBySlot: StaticArray<bool>;
  private readonly updatedAt: StaticArray<f64>;
  private readonly outOfRange: EndpointMetrics = new EndpointMetrics();

  constructor(maxEndpoints: i32) {
    const n = max(maxEndpoints, 0);
    this.capacity = n;
    this.activeSlots = new StaticArray<i32>(n);
    this.addressBytes = new StaticArray<u8>(n * MAX_ADDRESS_BYTES);
    this.addressLens = new StaticArray<i32>(n);
    this.addressHashes = new StaticArray<u64>(n);
    this.inUse = new StaticArray<bool>(n);
    this.generationBySlot = new StaticArray<u32>(n);
    this.seenEpoch = new StaticArray<u32>(n);
    const freeSlots = new StaticArray<i32>(n);
    for (let i = 0; i < n; i++) unchecked((freeSlots[i] = n - 1 - i));
    this.freeSlots = freeSlots;
    this.freeCount = n;
    let size = 8;
    while (size < n * 2) size <<= 1;
    this.table = new StaticArray<i32>(size);
    this.tableMask = size - 1;
    const slotMetrics = new StaticArray<EndpointMetrics>(n);
    for (let i = 0; i < n; i++) unchecked((slotMetrics[i] = new EndpointMetrics()));
    this.metricsBySlot = slotMetrics;
    this.fingerprints = new StaticArray<u64>(n);
    this.healthyBySlot = new StaticArray<bool>(n);
    this.updatedAt = new StaticArray<f64>(n);
  }

  // @ts-ignore: decorator
  @inline
  private changed(): void {
    const v = this.version + 1;
    this.version = v == 0 ? 1 : v;
  }

  /** Slots in use. */
  get count(): i32 {
    return this.activeCount;
  }

  /** Starts a refresh: every slot not passed to see() before endRefresh() will be freed. */
  beginRefresh(): void {
    this.epoch++;
    if (this.epoch == 0) {
      // Wrapped after 2^32 refreshes: forget old marks so none can pass as current.
      for (let i = 0; i < this.capacity; i++) unchecked((this.seenEpoch[i] = 0));
      this.epoch = 1;
    }
  }

  /**
   * Marks the address as present and returns its slot, assigning a free slot (with cleared metrics) to a new
   * address. -1 when the registry is full or the address is empty or longer than MAX_ADDRESS_BYTES.
   * addrHash must be addressHash(addrPtr, addrLen).
   */
  see(addrPtr: usize, addrLen: usize, addrHash: u64): i32 {
    let slot = this.lookup(addrHash, addrPtr, addrLen);
    if (slot < 0) {
      if (addrLen == 0 || addrLen > <usize>MAX_ADDRESS_BYTES || this.freeCount == 0) return -1;
      slot = unchecked(this.freeSlots[--this.freeCount]);
      memory.copy(this.addressAt(slot), addrPtr, addrLen);
      unchecked((this.addressLens[slot] = <i32>addrLen));
      unchecked((this.addressHashes[slot] = addrHash));
      unchecked((this.inUse[slot] = true));
      unchecked(this.metricsBySlot[slot]).reset();
      unchecked((this.fingerprints[slot] = 0));
      unchecked((this.healthyBySlot[slot] = false));
      unchecked((this.updatedAt[slot] = 0));
      this.insertIntoTable(slot, addrHash);
      this.activeInOrder = this.activeInOrder && slot == this.activeCount;
      unchecked((this.activeSlots[this.activeCount++] = slot));
    }
    unchecked((this.seenEpoch[slot] = this.epoch));
    this.changed();
    return slot;
  }

  /**
   * Frees every slot not seen since beginRefresh(), writes the freed slots into `evicted` and returns how many.
   * At most evicted.length slots are freed per call (pass capacity-sized storage); the rest stay until the next.
   */
  endRefresh(evicted: StaticArray<i32>): i32 {
    const room = evicted.length;
    let freed = 0;
    let kept = 0;
    let inOrder = true;
    const n = this.activeCount;
    for (let i = 0; i < n; i++) {
      const slot = unchecked(this.activeSlots[i]);
      if (unchecked(this.seenEpoch[slot]) != this.epoch && freed < room) {
        this.free(slot);
        unchecked((evicted[freed++] = slot));
      } else {
        inOrder = inOrder && slot == kept;
        unchecked((this.activeSlots[kept++] = slot));
      }
    }
    this.activeCount = kept;
    this.activeInOrder = inOrder;
    this.changed();
    return freed;
  }

  /** The slot holding this address, or -1. */
  lookup(addrHash: u64, addrPtr: usize, addrLen: usize): i32 {
    if (addrLen == 0 || addrLen > <usize>MAX_ADDRESS_BYTES) return -1;
    const mask = this.tableMask;
    let b = homeBucket(addrHash, mask);
    // The table is at most half full, so an empty bucket always ends the probe.
    while (true) {
      const entry = unchecked(this.table[b]);
      if (entry == 0) return -1;
      const slot = entry - 1;
      if (
        unchecked(this.addressHashes[slot]) == addrHash &&
        unchecked(this.addressLens[slot]) == <i32>addrLen &&
        memory.compare(this.addressAt(slot), addrPtr, addrLen) == 0
      ) {
        return slot;
      }
      b = (b + 1) & mask;
    }
    return -1;
  }

  /** The slot whose address has this hash, or -1 (64-bit hashes of addresses do not collide in practice). */
  slotForHash(addrHash: u64): i32 {
    const mask = this.tableMask;
    let b = homeBucket(addrHash, mask);
    while (true) {
      const entry = unchecked(this.table[b]);
      if (entry == 0) return -1;
      if (unchecked(this.addressHashes[entry - 1]) == addrHash) return entry - 1;
      b = (b + 1) & mask;
    }
    return -1;
  }

  /** The hash of the slot's address (0 for a bad slot). */
  addressHashOf(slot: i32): u64 {
    return this.isActive(slot) ? unchecked(this.addressHashes[slot]) : 0;
  }

  /** Whether the slot currently holds an endpoint. */
  // @ts-ignore: decorator
  @inline
  isActive(slot: i32): bool {
    return this.validSlot(slot) && unchecked(this.inUse[slot]);
  }

  /** Changes every time the slot is freed, so it differs between any two occupants. */
  // @ts-ignore: decorator
  @inline
  generation(slot: i32): u32 {
    return this.validSlot(slot) ? unchecked(this.generationBySlot[slot]) : 0;
  }

  /** The slot's address bytes (valid until the slot is freed); 0 for a bad slot. */
  addressPtr(slot: i32): usize {
    return this.isActive(slot) ? this.addressAt(slot) : 0;
  }

  addressLen(slot: i32): i32 {
    return this.isActive(slot) ? unchecked(this.addressLens[slot]) : 0;
  }

  /** The address as a string; allocates, for logs and debugging only. */
  addressString(slot: i32): string {
    if (!this.isActive(slot)) return "";
    return String.UTF8.decodeUnsafe(this.addressAt(slot), <usize>unchecked(this.addressLens[slot]));
  }

  /** The slot's metrics storage, for writing (cleared when the slot gets a new endpoint); counts as a change. A
   * slot out of range gets a scratch object that nothing reads. */
  // @ts-ignore: decorator
  @inline
  writableMetrics(slot: i32): EndpointMetrics {
    this.changed();
    if (!this.validSlot(slot)) {
      this.outOfRange.reset();
      return this.outOfRange;
    }
    return unchecked(this.metricsBySlot[slot]);
  }

  /** Fingerprint of the metrics text last stored for the slot; 0 until setFingerprint. */
  fingerprint(slot: i32): u64 {
    return this.validSlot(slot) ? unchecked(this.fingerprints[slot]) : 0;
  }

  setFingerprint(slot: i32, value: u64): void {
    if (this.validSlot(slot)) unchecked((this.fingerprints[slot] = value));
  }

  // @ts-ignore: decorator
  @inline
  healthy(slot: i32): bool {
    return this.isActive(slot) && unchecked(this.healthyBySlot[slot]);
  }

  setHealthy(slot: i32, value: bool): void {
    if (this.validSlot(slot)) unchecked((this.healthyBySlot[slot] = value));
    this.changed();
  }

  /** When the slot's metrics were last updated (caller's clock, ms); 0 until set. */
  updatedMs(slot: i32): f64 {
    return this.validSlot(slot) ? unchecked(this.updatedAt[slot]) : 0;
  }

  setUpdatedMs(slot: i32, value: f64): void {
    if (this.validSlot(slot)) unchecked((this.updatedAt[slot] = value));
  }

  // @ts-ignore: decorator
  @inline
  private validSlot(slot: i32): bool {
    return <u32>slot < <u32>this.capacity;
  }

  // @ts-ignore: decorator
  @inline
  private addressAt(slot: i32): usize {
    return changetype<usize>(this.addressBytes) + <usize>slot * <usize>MAX_ADDRESS_BYTES;
  }

  private free(slot: i32): void {
    this.removeFromTable(slot);
    unchecked((this.inUse[slot] = false));
    unchecked((this.generationBySlot[slot] = this.generationBySlot[slot] + 1));
    unchecked((this.addressLens[slot] = 0));
    unchecked((this.freeSlots[this.freeCount++] = slot));
  }

  private insertIntoTable(slot: i32, hash: u64): void {
    const mask = this.tableMask;
    let b = homeBucket(hash, mask);
    while (unchecked(this.table[b]) != 0) b = (b + 1) & mask;
    unchecked((this.table[b] = slot + 1));
  }

  private removeFromTable(slot: i32): void {
    const mask = this.tableMask;
    let b = homeBucket(unchecked(this.addressHashes[slot]), mask);
    while (unchecked(this.table[b]) != slot + 1) {
      if (unchecked(this.table[b]) == 0) return;
      b = (b + 1) & mask;
    }
    // Backward-shift: move later entries of the run into the hole when their home bucket allows it.
    let hole = b;
    let j = (b + 1) & mask;
    while (true) {
      const entry = unchecked(this.table[j]);
      if (entry == 0) break;
      const home = homeBucket(unchecked(this.addressHashes[entry - 1]), mask);
      // The entry may move to the hole if its home is not cyclically within (hole, j].
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        unchecked((this.table[hole] = entry));
        hole = j;
      }
      j = (j + 1) & mask;
    }
    unchecked((this.table[hole] = 0));
  }
}
