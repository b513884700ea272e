// Which chain hashes were recently sent to which endpoint: a bounded, per-endpoint weighted LRU set of
// (chain hash, endpoint slot) keys. Everything is preallocated at construction; every operation is O(1) per key.
//
// Layout: each endpoint slot owns a fixed partition of the entry pool, [slot * capacityPerEndpoint, +capacity),
// so an entry's slot is implied by its index and never stored. An entry is its 64-bit chain hash plus i32
// prev/next links of its slot's LRU list (16 bytes). The open-addressing table (linear probing, load factor
// <= 0.5, backward-shift deletion, so no tombstones) stores entry index + 1, with 0 meaning empty.

const NIL: i32 = -1;
const SLOT_MIX: u64 = 0x9e3779b97f4a7c15;
const BUCKET_MIX: u64 = 0xd6e8feb86659fd93;

/** Upper bound on maxEndpoints. */
export const PREFIX_INDEX_MAX_ENDPOINTS: i32 = 1 << 16;
/** Upper bound on the entry pool (maxEndpoints * capacityPerEndpoint): 64 MiB of entries + 32 MiB of table. */
export const PREFIX_INDEX_MAX_ENTRIES: i32 = 1 << 22;

function clampEndpoints(maxEndpoints: i32): i32 {
  if (maxEndpoints < 1) return 1;
  return maxEndpoints > PREFIX_INDEX_MAX_ENDPOINTS ? PREFIX_INDEX_MAX_ENDPOINTS : maxEndpoints;
}

function clampCapacity(endpoints: i32, capacityPerEndpoint: i32): i32 {
  const limit = PREFIX_INDEX_MAX_ENTRIES / endpoints;
  if (capacityPerEndpoint < 1) return 1;
  return capacityPerEndpoint > limit ? limit : capacityPerEndpoint;
}

/** Smallest power of two >= 2 * entries, so the load factor never exceeds 0.5. */
function tableSizeFor(entries: i32): u32 {
  return <u32>1 << (32 - clz<u32>(<u32>entries * 2 - 1));
}

export class PrefixIndex {
  readonly maxEndpoints: i32;
  readonly capacityPerEndpoint: i32;

  private readonly keys: StaticArray<u64>;
  private readonly prev: StaticArray<i32>;
  private readonly next: StaticArray<i32>;
  private readonly table: StaticArray<u32>;
  private readonly tableMask: u32;
  private readonly bucketShift: u64;

  // Per endpoint slot.
  private readonly head: StaticArray<i32>; // most recently used
  private readonly tail: StaticArray<i32>; // least recently used
  private readonly sizes: StaticArray<i32>;
  private readonly caps: StaticArray<i32>;
  private readonly freeHead: StaticArray<i32>; // released entries of the slot's partition, linked by next
  private readonly fresh: StaticArray<i32>; // entries [0, fresh) of the partition have been handed out

  private total: i32 = 0;

  constructor(maxEndpoints: i32, capacityPerEndpoint: i32) {
    const endpoints = clampEndpoints(maxEndpoints);
    const capacity = clampCapacity(endpoints, capacityPerEndpoint);
    const entries = endpoints * capacity;
    const tableSize = tableSizeFor(entries);
    this.maxEndpoints = endpoints;
    this.capacityPerEndpoint = capacity;
    this.keys = new StaticArray<u64>(entries);
    this.prev = new StaticArray<i32>(entries);
    this.next = new StaticArray<i32>(entries);
    this.table = new StaticArray<u32>(<i32>tableSize);
    this.tableMask = tableSize - 1;
    this.bucketShift = <u64>(64 - ctz<u32>(tableSize));
    this.head = new StaticArray<i32>(endpoints);
    this.tail = new StaticArray<i32>(endpoints);
    this.sizes = new StaticArray<i32>(endpoints);
    this.caps = new StaticArray<i32>(endpoints);
    this.freeHead = new StaticArray<i32>(endpoints);
    this.fresh = new StaticArray<i32>(endpoints);
    for (let s = 0; s < endpoints; s++) {
      unchecked((this.head[s] = NIL));
      unchecked((this.tail[s] = NIL));
      unchecked((this.caps[s] = capacity));
      unchecked((this.freeHead[s] = NIL));
    }
  }

  /** Exact payload bytes of the arrays a PrefixIndex(maxEndpoints, capacityPerEndpoint) preallocates. */
  static bytesFor(maxEndpoints: i32, capacityPerEndpoint: i32): u64 {
    const endpoints = clampEndpoints(maxEndpoints);
    const entries = endpoints * clampCapacity(endpoints, capacityPerEndpoint);
    const perEntry: u64 = 8 + 4 + 4; // key, prev, next
    const perSlot: u64 = 6 * 4; // head, tail, size, capacity, free list head, fresh count
    return <u64>entries * perEntry + <u64>tableSizeFor(entries) * 4 + <u64>endpoints * perSlot;
  }

  /** Preallocated bytes per entry of the pool, including the entry's share of the table and slot arrays. */
  bytesPerEntry(): f64 {
    const bytes = PrefixIndex.bytesFor(this.maxEndpoints, this.capacityPerEndpoint);
    return <f64>bytes / <f64>(this.maxEndpoints * this.capacityPerEndpoint);
  }

  size(slot: i32): i32 {
    return this.validSlot(slot) ? unchecked(this.sizes[slot]) : 0;
  }

  capacity(slot: i32): i32 {
    return this.validSlot(slot) ? unchecked(this.caps[slot]) : 0;
  }

  totalEntries(): i32 {
    return this.total;
  }

  /** Whether `hash` is recorded for `slot`. Read-only. */
  has(slot: i32, hash: u64): bool {
    return this.validSlot(slot) && this.find(hash, slot) != NIL;
  }

  /**
   * For each slot in activeSlots[0, activeCount): out[slot] = length of the longest prefix of hashes[0, n) that is
   * recorded for that slot. Read-only. Invalid slots, and slots beyond out.length, are skipped.
   */
  match(hashes: StaticArray<u64>, n: i32, activeSlots: StaticArray<i32>, activeCount: i32, out: StaticArray<i32>): void {
    if (n > hashes.length) n = hashes.length;
    if (activeCount > activeSlots.length) activeCount = activeSlots.length;
    const outLength = out.length;
    for (let i = 0; i < activeCount; i++) {
      const slot = unchecked(activeSlots[i]);
      if (!this.validSlot(slot) || slot >= outLength) continue;
      let matched = 0;
      while (matched < n && this.find(unchecked(hashes[matched]), slot) != NIL) matched++;
      unchecked((out[slot] = matched));
    }
  }

  /**
   * Inserts or refreshes hashes[0, n) for slot, from the last to the first so the chain's head ends up most
   * recent and suffixes are evicted first. Records at most capacity(slot) hashes, the leading ones.
   */
  record(slot: i32, hashes: StaticArray<u64>, n: i32): void {
    if (!this.validSlot(slot)) return;
    if (n > hashes.length) n = hashes.length;
    const cap = unchecked(this.caps[slot]);
    if (n > cap) n = cap;
    for (let i = n - 1; i >= 0; i--) {
      const hash = unchecked(hashes[i]);
      const existing = this.find(hash, slot);
      if (existing != NIL) {
        this.moveToFront(existing, slot);
        continue;
      }
      // At most i + 1 < cap entries were touched by this call, so the tail is never one of them.
      if (unchecked(this.sizes[slot]) >= cap) this.evictLeastRecent(slot);
      const entry = this.allocate(slot);
      unchecked((this.keys[entry] = hash));
      this.insertIntoTable(entry, hash, slot);
      this.pushFront(entry, slot);
      unchecked((this.sizes[slot] += 1));
      this.total++;
    }
  }

  /** Removes every entry of slot; its capacity is kept. */
  purge(slot: i32): void {
    if (!this.validSlot(slot)) return;
    let entry = unchecked(this.head[slot]);
    while (entry != NIL) {
      const following = unchecked(this.next[entry]);
      this.removeFromTable(entry, slot);
      entry = following;
    }
    this.total -= unchecked(this.sizes[slot]);
    unchecked((this.sizes[slot] = 0));
    unchecked((this.head[slot] = NIL));
    unchecked((this.tail[slot] = NIL));
    // The whole partition is unused again.
    unchecked((this.freeHead[slot] = NIL));
    unchecked((this.fresh[slot] = 0));
  }

  /** Sets slot's capacity, clamped to [1, capacityPerEndpoint]; shrinking evicts least recently used entries. */
  setCapacity(slot: i32, cap: i32): void {
    if (!this.validSlot(slot)) return;
    if (cap < 1) cap = 1;
    if (cap > this.capacityPerEndpoint) cap = this.capacityPerEndpoint;
    unchecked((this.caps[slot] = cap));
    while (unchecked(this.sizes[slot]) > cap) this.evictLeastRecent(slot);
  }

  /** Longest distance of any entry from its home bucket, O(table): a health figure for telemetry and tests. */
  maxDisplacement(): i32 {
    const mask = this.tableMask;
    let longest: u32 = 0;
    for (let b: u32 = 0; b <= mask; b++) {
      const stored = unchecked(this.table[b]);
      if (stored == 0) continue;
      const entry = <i32>stored - 1;
      const distance = (b - this.home(unchecked(this.keys[entry]), entry / this.capacityPerEndpoint)) & mask;
      if (distance > longest) longest = distance;
    }
    return <i32>longest;
  }

  /**
   * Full invariant check, O(pool + table), for tests and diagnostics: every table entry is reachable from its home
   * bucket and belongs to a live list; every list is well linked, within its partition and within capacity;
   * sizes add up.
   */
  isConsistent(): bool {
    const mask = this.tableMask;
    let occupied = 0;
    for (let b: u32 = 0; b <= mask; b++) {
      const stored = unchecked(this.table[b]);
      if (stored == 0) continue;
      occupied++;
      const entry = <i32>stored - 1;
      if (entry >= this.keys.length) return false;
      const slot = entry / this.capacityPerEndpoint;
      if (this.find(unchecked(this.keys[entry]), slot) != entry) return false;
    }
    if (occupied != this.total) return false;
    let listed = 0;
    for (let slot = 0; slot < this.maxEndpoints; slot++) {
      const base = slot * this.capacityPerEndpoint;
      let count = 0;
      let before = NIL;
      let entry = unchecked(this.head[slot]);
      while (entry != NIL) {
        if (entry < base || entry >= base + this.capacityPerEndpoint) return false;
        if (unchecked(this.prev[entry]) != before) return false;
        if (this.find(unchecked(this.keys[entry]), slot) != entry) return false;
        count++;
        if (count > unchecked(this.caps[slot])) return false;
        before = entry;
        entry = unchecked(this.next[entry]);
      }
      if (unchecked(this.tail[slot]) != before) return false;
      if (count != unchecked(this.sizes[slot])) return false;
      listed += count;
    }
    return listed == this.total;
  }

  // @ts-ignore: decorator
  @inline private validSlot(slot: i32): bool {
    return <u32>slot < <u32>this.maxEndpoints;
  }

  // Home bucket of (hash, slot). The slot is mixed in so a prefix shared by many endpoints spreads over the table.
  // @ts-ignore: decorator
  @inline private home(hash: u64, slot: i32): u32 {
    const key = hash ^ (<u64>(slot + 1) * SLOT_MIX);
    return <u32>((key * BUCKET_MIX) >> this.bucketShift);
  }

  /** Entry index of (hash, slot), or NIL. Terminates: the table is at most half full. */
  private find(hash: u64, slot: i32): i32 {
    const table = this.table;
    const keys = this.keys;
    const mask = this.tableMask;
    const base = <u32>(slot * this.capacityPerEndpoint);
    const span = <u32>this.capacityPerEndpoint;
    let bucket = this.home(hash, slot);
    while (true) {
      const stored = unchecked(table[bucket]);
      if (stored == 0) return NIL;
      const entry = stored - 1;
      if (unchecked(keys[entry]) == hash && entry - base < span) return <i32>entry;
      bucket = (bucket + 1) & mask;
    }
    return NIL;
  }

  private insertIntoTable(entry: i32, hash: u64, slot: i32): void {
    const table = this.table;
    const mask = this.tableMask;
    let bucket = this.home(hash, slot);
    while (unchecked(table[bucket]) != 0) bucket = (bucket + 1) & mask;
    unchecked((table[bucket] = <u32>entry + 1));
  }

  /** Deletes entry from the table, shifting later members of its probe run back so lookups need no tombstones. */
  private removeFromTable(entry: i32, slot: i32): void {
    const table = this.table;
    const keys = this.keys;
    const mask = this.tableMask;
    const stored = <u32>entry + 1;
    let hole = this.home(unchecked(keys[entry]), slot);
    while (unchecked(table[hole]) != stored) hole = (hole + 1) & mask;
    let probe = hole;
    while (true) {
      probe = (probe + 1) & mask;
      const moved = unchecked(table[probe]);
      if (moved == 0) break;
      const movedEntry = <i32>moved - 1;
      const movedHome = this.home(unchecked(keys[movedEntry]), movedEntry / this.capacityPerEndpoint);
      // The entry may fill the hole unless its home lies cyclically in (hole, probe].
      if (((probe - movedHome) & mask) >= ((probe - hole) & mask)) {
        unchecked((table[hole] = moved));
        hole = probe;
      }
    }
    unchecked((table[hole] = 0));
  }

  private allocate(slot: i32): i32 {
    const released = unchecked(this.freeHead[slot]);
    if (released != NIL) {
      unchecked((this.freeHead[slot] = unchecked(this.next[released])));
      return released;
    }
    // size < capacity <= capacityPerEndpoint, so an unused entry remains in the partition.
    const offset = unchecked(this.fresh[slot]);
    unchecked((this.fresh[slot] = offset + 1));
    return slot * this.capacityPerEndpoint + offset;
  }

  private evictLeastRecent(slot: i32): void {
    const entry = unchecked(this.tail[slot]);
    if (entry == NIL) return;
    this.removeFromTable(entry, slot);
    this.unlink(entry, slot);
    unchecked((this.next[entry] = unchecked(this.freeHead[slot])));
    unchecked((this.freeHead[slot] = entry));
    unchecked((this.sizes[slot] -= 1));
    this.total--;
  }

  private unlink(entry: i32, slot: i32): void {
    const before = unchecked(this.prev[entry]);
    const after = unchecked(this.next[entry]);
    if (before != NIL) unchecked((this.next[before] = after));
    else unchecked((this.head[slot] = after));
    if (after != NIL) unchecked((this.prev[after] = before));
    else unchecked((this.tail[slot] = before));
  }

  private pushFront(entry: i32, slot: i32): void {
    const first = unchecked(this.head[slot]);
    unchecked((this.prev[entry] = NIL));
    unchecked((this.next[entry] = first));
    if (first != NIL) unchecked((this.prev[first] = entry));
    else unchecked((this.tail[slot] = entry));
    unchecked((this.head[slot] = entry));
  }

  private moveToFront(entry: i32, slot: i32): void {
    if (unchecked(this.head[slot]) == entry) return;
    this.unlink(entry, slot);
    this.pushFront(entry, slot);
  }
}
