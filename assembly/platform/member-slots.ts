// The discovered endpoints as the discovery holder publishes them (endpoint-discovery.ts): each member holds a slot
// 0..capacity-1 (limits.maxEndpoints) for as long as the serving cluster lists it; a slot its member left goes to the
// next joiner, with a new join generation. Each member's metrics record and polling lease are named by its slot
// (polled-endpoint.ts), so the shared-data names stay bounded by configuration however many pods come and go (proxy-wasm
// has no way to delete a key), and the record carries its member's generation and address, so that a reader never
// takes a previous occupant's record for the new one's. A member keeps the state Envoy gives it (admin-clusters.ts
// HostState): a host failing its health checks stays a member, excluded from picks and remembered, until it leaves.
//
// The published list, little-endian: u32 version (2), u32 slots written, u32 next generation; then per slot
// u8 state (0: free), u8 address length, u8 flags (1: excluded from Envoy's host count, admin-clusters.ts excludedAt),
// u8 0, u32 generation, MAX_ADDRESS_BYTES address bytes (zero past its length).
// Version 1 (an address per line, healthy hosts only) is published under another name (discoveryKey) and never read.
import { AdminClusterHosts, HostState } from "../endpoints/admin-clusters";
import { MAX_ADDRESS_BYTES, addressHash } from "../endpoints/endpoint-registry";
import { HashIndex } from "../core/hash-index";

export const MEMBERS_VERSION: u32 = 2;
const HEADER_BYTES: i32 = 12;
const ENTRY_BYTES: i32 = 8 + MAX_ADDRESS_BYTES;
/** A slot no member holds. */
export const FREE: u8 = 0;

/** Bytes the list of `capacity` slots takes at most. */
export function memberListBytes(capacity: i32): i32 {
  return HEADER_BYTES + capacity * ENTRY_BYTES;
}

export class MemberSlots {
  readonly capacity: i32;
  /** Slots in use or freed: every member's slot is below it. */
  used: i32 = 0;
  /** The generation the next joiner gets (never 0). */
  nextGeneration: u32 = 1;
  private readonly states: StaticArray<u8>;
  private readonly excludedFlags: StaticArray<u8>;
  private readonly generations: StaticArray<u32>;
  private readonly lens: StaticArray<i32>;
  private readonly hashes: StaticArray<u64>;
  private readonly bytes: StaticArray<u8>;
  /** Per host of the admin answer, whether assign() found its member. */
  private readonly matched: StaticArray<u8>;
  /** Per slot, whether assign() found its member still listed. */
  private readonly kept: StaticArray<u8>;
  /** assign()'s table of the members' slots by address hash, at most half full. */
  private readonly index: HashIndex;

  /** `hostCapacity`: the most hosts an admin answer given to assign() holds (-1: capacity). */
  constructor(capacity: i32, hostCapacity: i32 = -1) {
    const n = max(capacity, 0);
    this.capacity = n;
    this.states = new StaticArray<u8>(n);
    this.excludedFlags = new StaticArray<u8>(n);
    this.generations = new StaticArray<u32>(n);
    this.lens = new StaticArray<i32>(n);
    this.hashes = new StaticArray<u64>(n);
    this.bytes = new StaticArray<u8>(n * MAX_ADDRESS_BYTES);
    this.matched = new StaticArray<u8>(hostCapacity < 0 ? n : hostCapacity);
    this.kept = new StaticArray<u8>(n);
    let bits: u64 = 1;
    while ((1 << <i32>bits) < 2 * n) bits++;
    this.index = new HashIndex(bits);
  }

  state(slot: i32): u8 {
    return unchecked(this.states[slot]);
  }

  /** Whether Envoy leaves the member out of its host count (pending its first check, excluded by one, or draining
   *  by EDS). */
  excluded(slot: i32): bool {
    return unchecked(this.excludedFlags[slot]) != 0;
  }

  generation(slot: i32): u32 {
    return unchecked(this.generations[slot]);
  }

  addressPtr(slot: i32): usize {
    return changetype<usize>(this.bytes) + <usize>(slot * MAX_ADDRESS_BYTES);
  }

  addressLen(slot: i32): i32 {
    return unchecked(this.lens[slot]);
  }

  /** No member, nothing published yet. */
  clear(): void {
    for (let s = 0; s < this.used; s++) this.free(s);
    this.used = 0;
    this.nextGeneration = 1;
  }

  /**
   * Makes the members those of the admin answer: a member still listed keeps its slot and generation and takes its
   * new state; one no longer listed frees its slot; a host not yet a member takes the lowest free slot and the next
   * generation. Returns the hosts left out for want of a free slot.
   */
  assign(hosts: AdminClusterHosts): i32 {
    const matched = this.matched;
    // Hosts the answer holds beyond what this was made for are left out (the caller sizes both alike).
    const n = min(hosts.count, matched.length);
    const kept = this.kept;
    const index = this.index;
    index.clear();
    for (let s = 0; s < this.used; s++) {
      unchecked((kept[s] = 0));
      if (unchecked(this.states[s]) != FREE) index.put(unchecked(this.hashes[s]), s);
    }
    for (let i = 0; i < n; i++) {
      unchecked((matched[i] = 0));
      const s = this.find(hosts, i);
      if (s < 0 || unchecked(kept[s]) != 0) continue;
      unchecked((matched[i] = 1));
      unchecked((kept[s] = 1));
      unchecked((this.states[s] = <u8>hosts.stateAt(i)));
      unchecked((this.excludedFlags[s] = hosts.excludedAt(i) ? 1 : 0));
    }
    for (let s = 0; s < this.used; s++) if (unchecked(kept[s]) == 0) this.free(s);
    let dropped = hosts.count - n;
    let free = 0;
    for (let i = 0; i < n; i++) {
      if (unchecked(matched[i]) != 0) continue;
      while (free < this.capacity && free < this.used && unchecked(this.states[free]) != FREE) free++;
      if (free >= this.capacity) {
        dropped++;
        continue;
      }
      this.occupy(free, hosts, i);
      if (free >= this.used) this.used = free + 1;
    }
    while (this.used > 0 && unchecked(this.states[this.used - 1]) == FREE) this.used--;
    return dropped;
  }

  /** Writes the list at out (memberListBytes(capacity) bytes); returns its length. */
  encode(out: usize): i32 {
    store<u32>(out, MEMBERS_VERSION);
    store<u32>(out, <u32>this.used, 4);
    store<u32>(out, this.nextGeneration, 8);
    for (let s = 0; s < this.used; s++) {
      const e = out + <usize>(HEADER_BYTES + s * ENTRY_BYTES);
      const len = unchecked(this.lens[s]);
      store<u8>(e, unchecked(this.states[s]));
      store<u8>(e, <u8>len, 1);
      store<u8>(e, unchecked(this.excludedFlags[s]), 2);
      store<u8>(e, 0, 3);
      store<u32>(e, unchecked(this.generations[s]), 4);
      memory.copy(e + 8, this.addressPtr(s), <usize>len);
      memory.fill(e + 8 + <usize>len, 0, <usize>(MAX_ADDRESS_BYTES - len));
    }
    return HEADER_BYTES + this.used * ENTRY_BYTES;
  }

  /** Reads a published list; false (nothing changed) when it is not one this capacity holds. */
  decode(ptr: usize, len: usize): bool {
    if (len < <usize>HEADER_BYTES || load<u32>(ptr) != MEMBERS_VERSION) return false;
    const used = load<u32>(ptr, 4);
    const next = load<u32>(ptr, 8);
    if (used > <u32>this.capacity || len != <usize>(HEADER_BYTES + <i32>used * ENTRY_BYTES) || next == 0) return false;
    for (let s = 0; s < <i32>used; s++) {
      const e = ptr + <usize>(HEADER_BYTES + s * ENTRY_BYTES);
      const state = load<u8>(e);
      const alen = <i32>load<u8>(e, 1);
      if (state > <u8>HostState.Unhealthy || alen > MAX_ADDRESS_BYTES || (state == FREE) != (alen == 0) || load<u8>(e, 2) > 1) return false;
    }
    this.clear();
    this.used = <i32>used;
    this.nextGeneration = next;
    for (let s = 0; s < this.used; s++) {
      const e = ptr + <usize>(HEADER_BYTES + s * ENTRY_BYTES);
      const alen = <i32>load<u8>(e, 1);
      unchecked((this.states[s] = load<u8>(e)));
      unchecked((this.excludedFlags[s] = load<u8>(e, 2)));
      unchecked((this.generations[s] = load<u32>(e, 4)));
      unchecked((this.lens[s] = alen));
      memory.copy(this.addressPtr(s), e + 8, <usize>alen);
      unchecked((this.hashes[s] = addressHash(this.addressPtr(s), <usize>alen)));
    }
    return true;
  }

  /** The slot whose member is host i of the answer, or -1: the first member under its address hash whose address
   *  bytes are the host's (two addresses may share a hash). */
  private find(hosts: AdminClusterHosts, i: i32): i32 {
    const hash = hosts.addressHashAt(i);
    const len = hosts.addressLen(i);
    const ptr = hosts.addressPtr(i);
    const index = this.index;
    let b = index.seek(hash, index.start(hash));
    while (b >= 0) {
      const s = index.indexAt(b);
      if (unchecked(this.lens[s]) == len && memory.compare(this.addressPtr(s), ptr, <usize>len) == 0) return s;
      b = index.seek(hash, index.next(b));
    }
    return -1;
  }

  private occupy(s: i32, hosts: AdminClusterHosts, i: i32): void {
    const len = hosts.addressLen(i);
    memory.copy(this.addressPtr(s), hosts.addressPtr(i), <usize>len);
    unchecked((this.lens[s] = len));
    unchecked((this.hashes[s] = hosts.addressHashAt(i)));
    unchecked((this.states[s] = <u8>hosts.stateAt(i)));
    unchecked((this.excludedFlags[s] = hosts.excludedAt(i) ? 1 : 0));
    unchecked((this.generations[s] = this.nextGeneration));
    this.nextGeneration = this.nextGeneration == u32.MAX_VALUE ? 1 : this.nextGeneration + 1;
  }

  private free(s: i32): void {
    unchecked((this.states[s] = FREE));
    unchecked((this.excludedFlags[s] = 0));
    unchecked((this.lens[s] = 0));
    unchecked((this.hashes[s] = 0));
    unchecked((this.generations[s] = 0));
  }
}
