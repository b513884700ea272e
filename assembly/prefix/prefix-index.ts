// Which chain hashes were recently sent to which endpoint: a bounded, per-endpoint weighted LRU set of
// (chain hash, endpoint slot) keys. Everything is preallocated at construction; every operation is O(1) per key.
//
// Layout: each endpoint slot owns a fixed partition of the entry pool, [slot * capacityPerEndpoint, +capacity),
// so an entry's slot is implied by its index and never stored. An entry is its 64-bit chain hash plus i32
// prev/next links of its slot's LRU list, side by side in one 16-byte record so touching an entry costs one
// cache line. The open-addressing table (load factor <= 0.25) is a Robin Hood table of 32-bit buckets: the
// bucket's distance from its home (5 bits), entry index + 1 (0 = empty; as many bits as the pool needs, 19 for
// the default 262,144 entries) and a tag of the key in the remaining bits (8 by default, at least 4). A probe
// compares tag and home inside the table and reads an entry's key only when both match, so in a full table a
// lookup rarely reads a key that is not its own (a likely cache miss); it stops
// as soon as it meets a bucket closer to its home than the probe is (Robin Hood keeps runs sorted by distance);
// deletion shifts the run back using the stored distances, without reading keys.
// Why four buckets per entry, not two: the index is full in steady state (every record evicts), and what a full
// index costs over an empty one is mostly the varying number of steps of each new hash's probe, victim search
// and two shifts (one each when nearly empty, so their exits are predicted), more than the cache misses on long
// untouched victims: at load factor 0.5 record() cost 2.25x from 1% to 100% fill and match+record 1.5x; at 0.25
// runs stay short and match+record is about 1.2x, for 8 B more per entry (32 B; 36 B with the stamp below).
// Probe distance is bounded by MAX_PROBE: a hash whose insertion would push any bucket past it is not recorded (a
// shorter match, never a wrong one), which also bounds what crafted colliding prompts can cost.
// Each entry also keeps when it was last recorded (a 16 ms stamp, in a run after the records, so a record stays
// one 16-byte unit and the pool one allocation): a worker's index remembers only the requests that worker routed,
// so an endpoint's cache, fed by every worker, may have dropped an entry the LRU list still holds; match() credits
// only entries recorded since a per-endpoint time the caller gives (the cache horizon), whatever the worker count.
// What a full index still costs over a nearly empty one is the memory hierarchy, not probe work: at the same load
// factor, an index small enough for the CPU caches costs 0.6-0.9x a default-sized one at 1% fill, and the default one
// at 100% fill 1.2-1.3x, its evicted entries and their buckets last touched long ago (src-host/bench/index-cost.ts).
// So record() first makes the loads it will need, independent of each other (lookUpAhead), so that their cache
// misses overlap instead of coming one after another. A chain that begins with the slot's most recent entries, in
// order (a prompt sent again, the next turn of a conversation the slot served last), keeps them as one run, stamped in
// the walk that finds them and moved to the front whole, instead of finding and moving each. Elsewhere in the list,
// record() takes a chain's entries as match() does: from the list, where the chain is still linked in its order (its
// passes run forward, then back from the last hash, so each entry's list neighbour is the next one's candidate), a
// find only where the list breaks.
// A match starts at the chain's first hash, which a slot holds only as the first hash of a chain it was sent. The
// entries recorded first in a chain (heads) are counted per slot in HEAD_BUCKETS buckets of their hash, laid out
// bucket by bucket, so match() probes the table only for the slots whose count in the first hash's bucket is not 0:
// for one prompt, most of a large fleet is passed over by reading a few adjacent counts, not a table bucket each.

const NIL: i32 = -1;
/** prev of an entry on a free list: record() tells an entry it found, then evicted, from a live one. */
const FREED: i32 = -2;
/** Hashes whose first-pass lookup record() keeps for its second pass (the chain's first ones). */
const RECORD_LOOKUPS: i32 = 64;
/** Longest distance a bucket may sit from its home. At load factor 0.25 Robin Hood stays far below it. */
export const PREFIX_INDEX_MAX_PROBE: u32 = 31;
// Bucket layout: [tag][entry + 1: entryBits][distance 5], 0 = empty. entryBits is just wide enough for the pool
// (23 bits for PREFIX_INDEX_MAX_ENTRIES = 2^22, 19 for the default 262,144) and the tag takes the rest (4 to 8+
// bits): the wider the tag, the fewer key reads for a bucket that is not the key.
const DISTANCE_BITS: u32 = 5;
const DISTANCE_MASK: u32 = (1 << DISTANCE_BITS) - 1;
/** Stamps are ms / STAMP_MS, modulo 2^32, compared by their i32 difference: right for times up to a year apart (the
 *  caller keeps the time it gives match() within that of now). */
const STAMP_MS: f64 = 16;
const SLOT_MIX: u64 = 0x9e3779b97f4a7c15;
/** Buckets of the head counts per slot; a count is u16 and stays at HEAD_COUNT_STUCK once there (a slot probed
 *  for that bucket for good: never a missed match). */
const HEAD_BUCKETS: i32 = 64;
const HEAD_BUCKET_SHIFT: u64 = 58; // 64 - log2(HEAD_BUCKETS)
const HEAD_COUNT_STUCK: u16 = 0xffff;
const BUCKET_MIX: u64 = 0xd6e8feb86659fd93;

/** Upper bound on maxEndpoints. */
export const PREFIX_INDEX_MAX_ENDPOINTS: i32 = 1 << 16;
/** Upper bound on the entry pool (maxEndpoints * capacityPerEndpoint): 80 MiB of entries and stamps + 64 MiB of
 *  table. */
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

/** Smallest power of two >= 4 * entries, so the load factor never exceeds 0.25. */
function tableSizeFor(entries: i32): u32 {
  return <u32>1 << (32 - clz<u32>(<u32>entries * 4 - 1));
}

export class PrefixIndex {
  readonly maxEndpoints: i32;
  readonly capacityPerEndpoint: i32;

  /** Entry records, [chain hash u64][prev i32][next i32] each, then per entry a u32 stamp of when it was last
   *  recorded (stampOf): one allocation, so that memory grows once for the pool (the allocator grows by doubling). */
  private readonly records: StaticArray<u64>;
  private readonly recordsBase: usize;
  private readonly stampsBase: usize;
  private readonly entryCount: i32;
  private readonly table: StaticArray<u32>;
  private readonly tableMask: u32;
  private readonly bucketShift: u64;
  private readonly entryMask: u32; // of the entry field, after shifting out the distance
  private readonly homeBits: u64;
  private readonly tagField: u32; // the bits of a bucket above the entry field

  // Per endpoint slot.
  private readonly head: StaticArray<i32>; // most recently used
  private readonly tail: StaticArray<i32>; // least recently used
  private readonly sizes: StaticArray<i32>;
  private readonly caps: StaticArray<i32>;
  private readonly freeHead: StaticArray<i32>; // released entries of the slot's partition, linked by next
  private readonly fresh: StaticArray<i32>; // entries [0, fresh) of the partition have been handed out
  /** Per head bucket, then per slot: the slot's entries recorded first in a chain whose hash falls in the bucket. */
  private readonly headCounts: StaticArray<u16>;
  /** One bit per entry: counted in headCounts. */
  private readonly headFlags: StaticArray<u32>;

  private total: i32 = 0;
  /** Hashes not recorded because their insertion would exceed MAX_PROBE. */
  skipped: i32 = 0;
  /** record()'s first-pass lookups, by chain position (RECORD_LOOKUPS). */
  private readonly lookups: StaticArray<i32> = new StaticArray<i32>(RECORD_LOOKUPS);
  /** Where record()'s read-ahead loads end up, so that the compiler keeps them (see lookUpAhead). */
  private warmSink: u32 = 0;
  /**
   * Occupied buckets at distance MAX_PROBE. While there are none, an insertion cannot exceed the bound (it
   * lands at most one bucket beyond a resident nearer its home, and moves residents one bucket on), so
   * record() checks with canInsert only when some bucket sits at the bound.
   */
  private atBound: i32 = 0;

  constructor(maxEndpoints: i32, capacityPerEndpoint: i32) {
    const endpoints = clampEndpoints(maxEndpoints);
    const capacity = clampCapacity(endpoints, capacityPerEndpoint);
    const entries = endpoints * capacity;
    const tableSize = tableSizeFor(entries);
    this.maxEndpoints = endpoints;
    this.capacityPerEndpoint = capacity;
    const records = new StaticArray<u64>(entries * 2 + ((entries + 1) >> 1));
    this.records = records;
    this.recordsBase = changetype<usize>(records);
    this.stampsBase = changetype<usize>(records) + (<usize>entries << 4);
    this.entryCount = entries;
    this.table = new StaticArray<u32>(<i32>tableSize);
    this.tableMask = tableSize - 1;
    this.bucketShift = <u64>(64 - ctz<u32>(tableSize));
    const entryBits = <u32>(32 - clz<u32>(<u32>entries));
    this.entryMask = <u32>((<u64>1 << entryBits) - 1);
    this.homeBits = <u64>ctz<u32>(tableSize);
    this.tagField = <u32>(0xffffffff << (DISTANCE_BITS + entryBits));
    this.head = new StaticArray<i32>(endpoints);
    this.tail = new StaticArray<i32>(endpoints);
    this.sizes = new StaticArray<i32>(endpoints);
    this.caps = new StaticArray<i32>(endpoints);
    this.freeHead = new StaticArray<i32>(endpoints);
    this.fresh = new StaticArray<i32>(endpoints);
    this.headCounts = new StaticArray<u16>(HEAD_BUCKETS * endpoints);
    this.headFlags = new StaticArray<u32>((entries + 31) >> 5);
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
    const pool = <u64>entries * 16 + (<u64>(entries + 1) >> 1) * 8; // key, prev, next; then the stamps, in u64 words
    // head, tail, size, capacity, free list head, fresh count; the head counts
    const perSlot: u64 = 6 * 4 + <u64>HEAD_BUCKETS * 2;
    const headFlags = (<u64>(entries + 31) >> 5) * 4;
    return pool + <u64>tableSizeFor(entries) * 4 + <u64>endpoints * perSlot + headFlags + <u64>RECORD_LOOKUPS * 4;
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

  /** Whether `hash` is recorded for `slot` no earlier than sinceMs (at the stamps' 16 ms steps). Read-only. */
  recordedSince(slot: i32, hash: u64, sinceMs: f64): bool {
    if (!this.validSlot(slot)) return false;
    const entry = this.find(hash, slot);
    return entry != NIL && <i32>(this.stampOfEntry(entry) - stampOf(sinceMs)) >= 0;
  }

  /**
   * For each slot in activeSlots[0, activeCount): out[slot] = length of the longest prefix of hashes[0, n) that is
   * recorded for that slot, each entry no earlier than recordedSinceMs[slot] when given (-Infinity or NaN: any
   * time). Read-only. Invalid slots, and slots beyond out.length, are skipped. Returns the longest of those matches
   * (0 when none). hashes[0] counts only where it was recorded first in a chain (a head, as long as its entry
   * lives): a chain's hashes are chained from its first, so a real chain's first hash is first wherever recorded.
   */
  match(
    hashes: StaticArray<u64>, n: i32, activeSlots: StaticArray<i32>, activeCount: i32, out: StaticArray<i32>,
    recordedSinceMs: StaticArray<f64> | null = null,
  ): i32 {
    if (n > hashes.length) n = hashes.length;
    if (activeCount > activeSlots.length) activeCount = activeSlots.length;
    // In locals: the stores to out below could alias the fields, which would then be loaded for every slot.
    const limit = <u32>min(this.maxEndpoints, out.length);
    const sinceLength = recordedSinceMs !== null ? recordedSinceMs.length : 0;
    if (n <= 0) {
      for (let i = 0; i < activeCount; i++) {
        const slot = unchecked(activeSlots[i]);
        if (<u32>slot < limit) unchecked((out[slot] = 0));
      }
      return 0;
    }
    // The head counts of the first hash's bucket, by slot.
    const heads = this.headRow(unchecked(hashes[0]));
    let longest = 0;
    for (let i = 0; i < activeCount; i++) {
      const slot = unchecked(activeSlots[i]);
      if (<u32>slot >= limit) continue;
      // An endpoint holding no head in that bucket cannot hold the first hash as one: no probe (at hundreds of
      // endpoints, most of them for any one prompt but a prompt they all serve).
      const matched = load<u16>(heads + (<usize>slot << 1)) != 0
        ? this.matchOf(slot, hashes, n, recordedSinceMs, sinceLength) : 0;
      if (matched > longest) longest = matched;
      unchecked((out[slot] = matched));
    }
    return longest;
  }

  /**
   * match() for the slots 0 to count - 1 (the active slots when they are in that order): the same out and result.
   * Zeroes them at once, then reads the first hash's head counts four slots at a time, so that only the few slots
   * holding a head there cost a step of their own.
   */
  matchFirstSlots(
    hashes: StaticArray<u64>, n: i32, count: i32, out: StaticArray<i32>, recordedSinceMs: StaticArray<f64> | null = null,
  ): i32 {
    if (n > hashes.length) n = hashes.length;
    const slots = max<i32>(min<i32>(count, min<i32>(this.maxEndpoints, out.length)), 0);
    memory.fill(changetype<usize>(out), 0, <usize>slots << 2);
    if (n <= 0) return 0;
    const sinceLength = recordedSinceMs !== null ? recordedSinceMs.length : 0;
    const heads = this.headRow(unchecked(hashes[0]));
    let longest = 0;
    let slot = 0;
    for (; slot + 4 <= slots; slot += 4) {
      if (load<u64>(heads + (<usize>slot << 1)) == 0) continue;
      for (let k = slot; k < slot + 4; k++) {
        if (load<u16>(heads + (<usize>k << 1)) == 0) continue;
        const matched = this.matchOf(k, hashes, n, recordedSinceMs, sinceLength);
        if (matched > longest) longest = matched;
        unchecked((out[k] = matched));
      }
    }
    for (; slot < slots; slot++) {
      if (load<u16>(heads + (<usize>slot << 1)) == 0) continue;
      const matched = this.matchOf(slot, hashes, n, recordedSinceMs, sinceLength);
      if (matched > longest) longest = matched;
      unchecked((out[slot] = matched));
    }
    return longest;
  }

  // The match of one slot (below maxEndpoints) holding a head in the first hash's bucket; 0 <= n <= hashes.length.
  private matchOf(
    slot: i32, hashes: StaticArray<u64>, n: i32, recordedSinceMs: StaticArray<f64> | null, sinceLength: i32,
  ): i32 {
    const first = this.find(unchecked(hashes[0]), slot);
    if (first == NIL || !this.isHead(first)) return 0;
    let matched = 1;
    let entry = first;
    const since = slot < sinceLength ? unchecked(recordedSinceMs![slot]) : -Infinity;
    if (since > -Infinity) {
      const sinceStamp = stampOf(since);
      if (<i32>(this.stampOfEntry(first) - sinceStamp) < 0) return 0;
      while (matched < n) {
        entry = this.entryAfter(entry, unchecked(hashes[matched]), slot);
        if (entry == NIL || <i32>(this.stampOfEntry(entry) - sinceStamp) < 0) break;
        matched++;
      }
    } else {
      while (matched < n) {
        entry = this.entryAfter(entry, unchecked(hashes[matched]), slot);
        if (entry == NIL) break;
        matched++;
      }
    }
    return matched;
  }

  /**
   * Inserts or refreshes hashes[0, n) for slot at time atMs, from the last to the first so the chain's head ends
   * up most recent and suffixes are evicted first. Records at most capacity(slot) hashes, the leading ones.
   */
  record(slot: i32, hashes: StaticArray<u64>, n: i32, atMs: f64): void {
    if (!this.validSlot(slot)) return;
    if (n > hashes.length) n = hashes.length;
    const cap = unchecked(this.caps[slot]);
    if (n > cap) n = cap;
    const stamp = stampOf(atMs);
    // A chain whose beginning is already the slot's most recent entries, in order (the same prompt again, the next
    // turn of a conversation this slot served last), leaves them there: the moves below would put them back. They
    // are stamped as they are read (one walk): an entry the rest evicts takes a new stamp when it is handed out again.
    const first = unchecked(this.head[slot]);
    let held = 0;
    let last = NIL;
    for (let entry = first; held < n && entry != NIL && this.keyOf(entry) == unchecked(hashes[held]); held++) {
      this.setStamp(entry, stamp);
      last = entry;
      entry = this.nextOf(entry);
    }
    // Nothing to gain from a first pass when no entry can be evicted.
    const lookedUp = unchecked(this.sizes[slot]) + n - held > cap;
    if (lookedUp) this.warmSink ^= this.lookUpAhead(slot, hashes, held, n, cap);
    const reordered = this.recordFrom(slot, hashes, n, held, stamp, lookedUp);
    if (held == 0) return;
    // Still live, linked and in order, so moving them one at a time would give this order: surely so when the rest
    // only pushed new entries in front of them (their own links untouched), else when a walk finds them so.
    if (!reordered || (this.prevOf(first) != FREED && this.leadingRun(first, hashes, held) == held)) {
      this.moveRunToFront(first, last, slot);
      this.markHead(first, slot);
    } else {
      // The rest of the chain evicted or moved some of them: one at a time, as for any other (the first pass did
      // not look them up).
      this.recordFrom(slot, hashes, held, 0, stamp, false);
    }
  }

  /** How many of hashes[0, n) the list starting at entry holds, in order, from its start (entry NIL: 0). */
  private leadingRun(entry: i32, hashes: StaticArray<u64>, n: i32): i32 {
    let k = 0;
    while (k < n && entry != NIL && this.keyOf(entry) == unchecked(hashes[k])) {
      entry = this.nextOf(entry);
      k++;
    }
    return k;
  }

  /** Moves the run of linked entries from `first` to `last` to the front of slot's list. */
  private moveRunToFront(first: i32, last: i32, slot: i32): void {
    const oldHead = unchecked(this.head[slot]);
    if (oldHead == first) return;
    const before = this.prevOf(first);
    const after = this.nextOf(last);
    this.setNext(before, after); // before is not NIL: first is not the head
    if (after != NIL) this.setPrev(after, before);
    else unchecked((this.tail[slot] = before));
    this.setPrev(first, NIL);
    this.setNext(last, oldHead);
    this.setPrev(oldHead, last);
    unchecked((this.head[slot] = first));
  }

  /**
   * record()'s second pass over hashes[from, n), from the last. Returns whether it evicted an entry or moved one
   * already held (false: it only pushed new entries to the front).
   */
  private recordFrom(slot: i32, hashes: StaticArray<u64>, n: i32, from: i32, stamp: u32, lookedUp: bool): bool {
    const cap = unchecked(this.caps[slot]);
    const lookups = this.lookups;
    let reordered = false;
    // The list entry before the entry of the position just recorded, before it moved: a chain recorded earlier is
    // linked in its order, so it is usually the entry of this position.
    let before = NIL;
    // One bit per hash inserted by this pass, by 6 bits of the hash: a hash the first pass did not find is held now
    // only if this pass inserted it (a chain holding it twice), so it needs a find only when its bit is set.
    let inserted: u64 = 0;
    for (let i = n - 1; i >= from; i--) {
      const hash = unchecked(hashes[i]);
      const bit = <u64>1 << ((hash * SLOT_MIX) >> 58);
      // The first pass's entry, else the list's, unless evicted since or not this hash's (then a find tells, as it
      // would have): a live entry of the slot with the hash is the one find gives.
      const firstPass = lookedUp && i < RECORD_LOOKUPS;
      let existing = firstPass ? unchecked(lookups[i]) : before;
      const recheck = existing == NIL ? !firstPass || (inserted & bit) != 0 : this.prevOf(existing) == FREED || this.keyOf(existing) != hash;
      if (recheck) existing = this.find(hash, slot);
      if (existing != NIL) {
        before = this.prevOf(existing);
        this.moveToFront(existing, slot);
        this.setStamp(existing, stamp);
        if (i == 0) this.markHead(existing, slot);
        reordered = true;
        continue;
      }
      before = NIL;
      // At most i + 1 < cap entries were touched by this call, so the tail is never one of them.
      if (unchecked(this.sizes[slot]) >= cap) {
        this.evictLeastRecent(slot);
        reordered = true;
      }
      // Only a bucket already at the bound can be pushed past it (see atBound); at load factor 0.25 none is.
      if (this.atBound != 0 && !this.canInsert(hash, slot)) {
        this.skipped++;
        continue;
      }
      const entry = this.allocate(slot);
      inserted |= bit;
      this.setKey(entry, hash);
      this.setStamp(entry, stamp);
      this.insertIntoTable(entry, hash, slot);
      this.pushFront(entry, slot);
      unchecked((this.sizes[slot] += 1));
      this.total++;
      if (i == 0) this.markHead(entry, slot);
    }
    return reordered;
  }

  /** Removes every entry of slot; its capacity is kept. */
  purge(slot: i32): void {
    if (!this.validSlot(slot)) return;
    let entry = unchecked(this.head[slot]);
    while (entry != NIL) {
      const following = this.nextOf(entry);
      this.unmarkHead(entry, slot);
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
      const word = unchecked(this.table[b]);
      if (word == 0) continue;
      const distance = distanceOf(word);
      if (distance > longest) longest = distance;
    }
    return <i32>longest;
  }

  /**
   * Full invariant check, O(pool + table), for tests and diagnostics: every table entry is reachable from its home
   * bucket and belongs to a live list; every list is well linked, within its partition and within capacity;
   * sizes add up; the head counts are those of the live entries flagged as heads, and no other entry is flagged.
   */
  isConsistent(): bool {
    const mask = this.tableMask;
    let occupied = 0;
    let atBound = 0;
    for (let b: u32 = 0; b <= mask; b++) {
      const word = unchecked(this.table[b]);
      if (word == 0) continue;
      occupied++;
      if (distanceOf(word) == PREFIX_INDEX_MAX_PROBE) atBound++;
      const entry = this.entryOf(word);
      if (entry < 0 || entry >= this.entryCount) return false;
      const slot = entry / this.capacityPerEndpoint;
      const key = this.keyOf(entry);
      // The stored distance and tag agree with the key, and the bucket is reachable from its home.
      if (((b - this.home(key, slot)) & mask) != distanceOf(word) || (word & this.tagField) != this.tag(key, slot)) return false;
      if (distanceOf(word) > PREFIX_INDEX_MAX_PROBE) return false;
      if (this.find(key, slot) != entry) return false;
    }
    if (occupied != this.total || atBound != this.atBound) return false;
    let listed = 0;
    for (let slot = 0; slot < this.maxEndpoints; slot++) {
      const base = slot * this.capacityPerEndpoint;
      let count = 0;
      let before = NIL;
      let entry = unchecked(this.head[slot]);
      while (entry != NIL) {
        if (entry < base || entry >= base + this.capacityPerEndpoint) return false;
        if (this.prevOf(entry) != before) return false;
        if (this.find(this.keyOf(entry), slot) != entry) return false;
        count++;
        if (count > unchecked(this.caps[slot])) return false;
        before = entry;
        entry = this.nextOf(entry);
      }
      if (unchecked(this.tail[slot]) != before) return false;
      if (count != unchecked(this.sizes[slot])) return false;
      listed += count;
    }
    return listed == this.total && this.headsConsistent();
  }

  /**
   * Buckets a lookup of (hash, slot) reads, as find() does; negative when the hash is not held. For benches and
   * diagnostics.
   */
  probeLength(slot: i32, hash: u64): i32 {
    if (!this.validSlot(slot)) return 0;
    let bucket = this.home(hash, slot);
    const expected = this.tag(hash, slot);
    for (let distance: u32 = 0; distance <= PREFIX_INDEX_MAX_PROBE; distance++) {
      const word = unchecked(this.table[bucket]);
      if (word == 0 || distanceOf(word) < distance) return -<i32>(distance + 1);
      if ((word & this.tagField) == expected && distanceOf(word) == distance) {
        const entry = this.entryOf(word);
        if (entry >= 0 && entry / this.capacityPerEndpoint == slot && this.keyOf(entry) == hash) return <i32>distance + 1;
      }
      bucket = (bucket + 1) & this.tableMask;
    }
    return -<i32>(PREFIX_INDEX_MAX_PROBE + 1);
  }

  /**
   * The index's memory as [start, end) address pairs: table, entry records, stamps, head counts, head flags
   * (allocates: benches and diagnostics only, to tell which structure a memory access touches).
   */
  memoryRegions(): StaticArray<usize> {
    const regions = new StaticArray<usize>(10);
    const table = changetype<usize>(this.table);
    regions[0] = table;
    regions[1] = table + (<usize>(this.tableMask + 1) << 2);
    regions[2] = this.recordsBase;
    regions[3] = this.stampsBase;
    regions[4] = this.stampsBase;
    regions[5] = this.stampsBase + (<usize>this.entryCount << 2);
    regions[6] = changetype<usize>(this.headCounts);
    regions[7] = regions[6] + (<usize>this.headCounts.length << 1);
    regions[8] = changetype<usize>(this.headFlags);
    regions[9] = regions[8] + (<usize>this.headFlags.length << 2);
    return regions;
  }

  // isConsistent's check of the head counts and flags (allocates: tests and diagnostics only).
  private headsConsistent(): bool {
    const counts = new StaticArray<u32>(HEAD_BUCKETS * this.maxEndpoints);
    let flaggedLive = 0;
    for (let slot = 0; slot < this.maxEndpoints; slot++) {
      let entry = unchecked(this.head[slot]);
      while (entry != NIL) {
        if (this.isHead(entry)) {
          flaggedLive++;
          const at = <i32>((this.headRow(this.keyOf(entry)) - changetype<usize>(this.headCounts)) >> 1) + slot;
          counts[at]++;
        }
        entry = this.nextOf(entry);
      }
    }
    for (let k = 0; k < counts.length; k++) {
      const kept = this.headCounts[k];
      if (kept != HEAD_COUNT_STUCK && <u32>kept != counts[k]) return false;
    }
    let flagged = 0;
    for (let w = 0; w < this.headFlags.length; w++) flagged += <i32>popcnt<u32>(this.headFlags[w]);
    return flagged == flaggedLive;
  }

  // @ts-ignore: decorator
  @inline private isHead(entry: i32): bool {
    return (load<u32>(changetype<usize>(this.headFlags) + ((<usize>entry >> 5) << 2)) & (<u32>1 << (<u32>entry & 31))) != 0;
  }

  // @ts-ignore: decorator
  @inline private validSlot(slot: i32): bool {
    return <u32>slot < <u32>this.maxEndpoints;
  }

  // @ts-ignore: decorator
  @inline private keyOf(entry: i32): u64 {
    return load<u64>(this.recordsBase + (<usize>entry << 4));
  }

  // @ts-ignore: decorator
  @inline private prevOf(entry: i32): i32 {
    return load<i32>(this.recordsBase + (<usize>entry << 4), 8);
  }

  // @ts-ignore: decorator
  @inline private nextOf(entry: i32): i32 {
    return load<i32>(this.recordsBase + (<usize>entry << 4), 12);
  }

  // @ts-ignore: decorator
  @inline private stampOfEntry(entry: i32): u32 {
    return load<u32>(this.stampsBase + (<usize>entry << 2));
  }

  // @ts-ignore: decorator
  @inline private setStamp(entry: i32, stamp: u32): void {
    store<u32>(this.stampsBase + (<usize>entry << 2), stamp);
  }

  // @ts-ignore: decorator
  @inline private setKey(entry: i32, hash: u64): void {
    store<u64>(this.recordsBase + (<usize>entry << 4), hash);
  }

  // @ts-ignore: decorator
  @inline private setPrev(entry: i32, value: i32): void {
    store<i32>(this.recordsBase + (<usize>entry << 4), value, 8);
  }

  // @ts-ignore: decorator
  @inline private setNext(entry: i32, value: i32): void {
    store<i32>(this.recordsBase + (<usize>entry << 4), value, 12);
  }

  // Home bucket of (hash, slot): the top bits of the mixed key. The slot is mixed in so a prefix shared by many
  // endpoints spreads over the table.
  // @ts-ignore: decorator
  @inline private home(hash: u64, slot: i32): u32 {
    return <u32>(mixKey(hash, slot) >> this.bucketShift);
  }

  // @ts-ignore: decorator
  @inline private entryOf(word: u32): i32 {
    return <i32>((word >> DISTANCE_BITS) & this.entryMask) - 1;
  }

  // The bits of the mixed key just below the home bits, in place in the tag field: a probe reads a key for one
  // bucket in 2^(tag bits) (16 to 256 and more) with its home that is not it.
  // @ts-ignore: decorator
  @inline private tag(hash: u64, slot: i32): u32 {
    return <u32>((mixKey(hash, slot) << this.homeBits) >> 32) & this.tagField;
  }

  /**
   * First pass of record(), which changes nothing but `lookups`: finds every hash of hashes[from, n) (keeping the
   * entries found at the chain's first RECORD_LOOKUPS positions); at the first hash not found, walks back from the
   * slot's tail over as many entries as the rest of the chain could evict, loading their home buckets, then loads
   * the home buckets of the hashes after it. Independent loads issued together overlap their cache misses; the
   * second pass, one dependent miss after another, then finds those lines in the cache. Returns a value derived from
   * the loads, which the caller keeps so that they are not optimized away.
   */
  private lookUpAhead(slot: i32, hashes: StaticArray<u64>, from: i32, n: i32, cap: i32): u32 {
    const lookups = this.lookups;
    // The loops of loads below keep the table, the shift and the slot's key mix in locals: otherwise each bucket
    // loads the fields from `this` and multiplies the slot's mix again (7 wasm operations more per bucket).
    const table = changetype<usize>(this.table);
    const shift = this.bucketShift;
    const slotMix = <u64>(slot + 1) * SLOT_MIX;
    let folded: u32 = 0;
    let missing = 0;
    let entry = NIL;
    for (let i = from; i < n; i++) {
      // From the list where the chain is linked in its order, as match() does.
      const hash = unchecked(hashes[i]);
      entry = entry != NIL ? this.entryAfter(entry, hash, slot) : this.find(hash, slot);
      if (i < RECORD_LOOKUPS) unchecked((lookups[i] = entry));
      if (entry != NIL) continue;
      if (missing++ != 0) continue;
      // The chain's first new hash: those after it are new too, as a rule (each hash covers all before it), and each
      // may evict the slot's least recent entry. The walk to those victims comes first, as the one run of dependent
      // misses (a record, then its bucket and the record before it): the loads issued after it overlap with it. The
      // home buckets of the hashes after this one follow, in a loop without branches on what they hold, so that
      // their misses overlap too: a find's exit depends on its bucket, and one mispredicted on a missing line stalls
      // the loads after. (Hashes found further on leave some of the victims walked to in place: loads, no more.)
      let victims = unchecked(this.sizes[slot]) + (n - i) - cap;
      let victim = unchecked(this.tail[slot]);
      const records = this.recordsBase;
      while (victims > 0 && victim != NIL) {
        const record = records + (<usize>victim << 4);
        folded ^= load<u32>(table + bucketOffset(load<u64>(record) ^ slotMix, shift));
        victim = load<i32>(record, 8); // prevOf
        victims--;
      }
      for (let k = i + 1; k < n; k++) folded ^= load<u32>(table + bucketOffset(unchecked(hashes[k]) ^ slotMix, shift));
    }
    return folded;
  }

  /**
   * The entry of (hash, slot), or NIL, where `entry` is the entry of the chain position before hash's: record()
   * links a chain's entries in its order, and they stay linked until another chain records some of them, so the
   * list's next entry is usually it (a key is held once per slot, so a next entry with that key is the one find
   * gives); otherwise a find.
   */
  // @ts-ignore: decorator
  @inline private entryAfter(entry: i32, hash: u64, slot: i32): i32 {
    const next = this.nextOf(entry);
    return next != NIL && this.keyOf(next) == hash ? next : this.find(hash, slot);
  }

  /** Entry index of (hash, slot), or NIL. At most MAX_PROBE + 1 buckets. */
  private find(hash: u64, slot: i32): i32 {
    const table = this.table;
    const mask = this.tableMask;
    const base = <u32>(slot * this.capacityPerEndpoint);
    const span = <u32>this.capacityPerEndpoint;
    const mixed = mixKey(hash, slot);
    let bucket = <u32>(mixed >> this.bucketShift);
    const entryMask = this.entryMask;
    const tagField = this.tagField;
    // A bucket holds the key only if it has the key's tag and home, i.e. its distance is the probe's: all the
    // bits but the entry's equal `expected`. Comparing there alone spares a key read (a likely cache miss) for
    // a displaced neighbour whose tag happens to be ours.
    const outsideEntry = tagField | DISTANCE_MASK;
    let expected = <u32>((mixed << this.homeBits) >> 32) & tagField;
    for (let distance: u32 = 0; distance <= PREFIX_INDEX_MAX_PROBE; distance++) {
      const word = unchecked(table[bucket]);
      // Empty, or a bucket nearer its home than this probe: Robin Hood would have placed the key before it.
      if (word == 0 || distanceOf(word) < distance) return NIL;
      if ((word & outsideEntry) == expected) {
        const entry = ((word >> DISTANCE_BITS) & entryMask) - 1;
        if (entry - base < span && this.keyOf(entry) == hash) return <i32>entry;
      }
      bucket = (bucket + 1) & mask;
      expected++;
    }
    return NIL;
  }

  /** Whether inserting (hash, slot) keeps every bucket within MAX_PROBE of its home. Read-only. */
  private canInsert(hash: u64, slot: i32): bool {
    const table = this.table;
    const mask = this.tableMask;
    let bucket = this.home(hash, slot);
    let distance: u32 = 0;
    // Our own place: the first empty bucket or the first resident nearer its home than we are.
    while (true) {
      if (distance > PREFIX_INDEX_MAX_PROBE) return false;
      const word = unchecked(table[bucket]);
      if (word == 0) return true;
      if (distanceOf(word) < distance) break;
      bucket = (bucket + 1) & mask;
      distance++;
    }
    // Every resident from there to the next empty bucket moves one further from its home.
    for (let shifted: u32 = 0; shifted <= mask; shifted++) {
      const word = unchecked(table[bucket]);
      if (word == 0) return true;
      if (distanceOf(word) >= PREFIX_INDEX_MAX_PROBE) return false;
      bucket = (bucket + 1) & mask;
    }
    return false;
  }

  /** Robin Hood insertion: a key takes the place of the first resident nearer its home, which moves on. */
  private insertIntoTable(entry: i32, hash: u64, slot: i32): void {
    const table = this.table;
    const mask = this.tableMask;
    let bucket = this.home(hash, slot);
    let carried = ((<u32>entry + 1) << DISTANCE_BITS) | this.tag(hash, slot);
    while (true) {
      const word = unchecked(table[bucket]);
      if (word == 0) {
        unchecked((table[bucket] = carried));
        if (distanceOf(carried) == PREFIX_INDEX_MAX_PROBE) this.atBound++;
        return;
      }
      if (distanceOf(word) < distanceOf(carried)) {
        unchecked((table[bucket] = carried));
        if (distanceOf(carried) == PREFIX_INDEX_MAX_PROBE) this.atBound++;
        carried = word; // below the bound: canInsert checked it, or no bucket is at the bound
      }
      bucket = (bucket + 1) & mask;
      carried++; // one bucket further from its home
    }
  }

  /** Deletes entry from the table, shifting the rest of its run back one bucket: no tombstones, no key reads. */
  private removeFromTable(entry: i32, slot: i32): void {
    const table = this.table;
    const mask = this.tableMask;
    const stored = <u32>(entry + 1);
    const entryMask = this.entryMask;
    let hole = this.home(this.keyOf(entry), slot);
    while (((unchecked(table[hole]) >> DISTANCE_BITS) & entryMask) != stored) hole = (hole + 1) & mask;
    if (distanceOf(unchecked(table[hole])) == PREFIX_INDEX_MAX_PROBE) this.atBound--;
    while (true) {
      const following = (hole + 1) & mask;
      const word = unchecked(table[following]);
      if (word == 0 || distanceOf(word) == 0) break;
      if (distanceOf(word) == PREFIX_INDEX_MAX_PROBE) this.atBound--;
      unchecked((table[hole] = word - 1)); // one bucket nearer its home
      hole = following;
    }
    unchecked((table[hole] = 0));
  }

  // Where the head counts of hash's bucket start (one u16 per slot).
  // @ts-ignore: decorator
  @inline private headRow(hash: u64): usize {
    const bucket = <usize>((hash * SLOT_MIX) >> HEAD_BUCKET_SHIFT);
    return changetype<usize>(this.headCounts) + ((bucket * <usize>this.maxEndpoints) << 1);
  }

  /** Counts entry (of slot, live) as a head, once. */
  private markHead(entry: i32, slot: i32): void {
    const word = changetype<usize>(this.headFlags) + ((<usize>entry >> 5) << 2);
    const bit = <u32>1 << (<u32>entry & 31);
    const flags = load<u32>(word);
    if (flags & bit) return;
    store<u32>(word, flags | bit);
    const at = this.headRow(this.keyOf(entry)) + (<usize>slot << 1);
    const count = load<u16>(at);
    if (count != HEAD_COUNT_STUCK) store<u16>(at, count + 1);
  }

  /** Takes entry (of slot, still keyed) out of the head counts if it is counted there. */
  private unmarkHead(entry: i32, slot: i32): void {
    const word = changetype<usize>(this.headFlags) + ((<usize>entry >> 5) << 2);
    const bit = <u32>1 << (<u32>entry & 31);
    const flags = load<u32>(word);
    if (!(flags & bit)) return;
    store<u32>(word, flags & ~bit);
    const at = this.headRow(this.keyOf(entry)) + (<usize>slot << 1);
    const count = load<u16>(at);
    if (count != HEAD_COUNT_STUCK) store<u16>(at, count - 1);
  }

  private allocate(slot: i32): i32 {
    const released = unchecked(this.freeHead[slot]);
    if (released != NIL) {
      unchecked((this.freeHead[slot] = this.nextOf(released)));
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
    this.unmarkHead(entry, slot);
    this.removeFromTable(entry, slot);
    this.unlink(entry, slot);
    this.setPrev(entry, FREED);
    this.setNext(entry, unchecked(this.freeHead[slot]));
    unchecked((this.freeHead[slot] = entry));
    unchecked((this.sizes[slot] -= 1));
    this.total--;
  }

  private unlink(entry: i32, slot: i32): void {
    const before = this.prevOf(entry);
    const after = this.nextOf(entry);
    if (before != NIL) this.setNext(before, after);
    else unchecked((this.head[slot] = after));
    if (after != NIL) this.setPrev(after, before);
    else unchecked((this.tail[slot] = before));
  }

  private pushFront(entry: i32, slot: i32): void {
    const first = unchecked(this.head[slot]);
    this.setPrev(entry, NIL);
    this.setNext(entry, first);
    if (first != NIL) this.setPrev(first, entry);
    else unchecked((this.tail[slot] = entry));
    unchecked((this.head[slot] = entry));
  }

  private moveToFront(entry: i32, slot: i32): void {
    if (unchecked(this.head[slot]) == entry) return;
    this.unlink(entry, slot);
    this.pushFront(entry, slot);
  }
}

// @ts-ignore: decorator
@inline
export function mixKey(hash: u64, slot: i32): u64 {
  return (hash ^ (<u64>(slot + 1) * SLOT_MIX)) * BUCKET_MIX;
}

/** Byte offset in the table of the home bucket of a hash already xored with its slot's mix (as mixKey does). */
// @ts-ignore: decorator
@inline
function bucketOffset(slotMixed: u64, bucketShift: u64): usize {
  return <usize>((slotMixed * BUCKET_MIX) >> bucketShift) << 2;
}

/** A time (ms) as an entry stamp: whole STAMP_MS steps, modulo 2^32 (compare stamps by their i32 difference). */
// @ts-ignore: decorator
@inline
function stampOf(ms: f64): u32 {
  return ms > 0 && ms < 1e18 ? <u32>(<u64>(ms / STAMP_MS)) : 0;
}

// @ts-ignore: decorator
@inline
function distanceOf(word: u32): u32 {
  return word & DISTANCE_MASK;
}
