// Exposes the plugin's PrefixIndex to tests/integration/leases-index-bounds.test.ts: a long random mix of records,
// purges and capacity changes, after which no slot may hold more than its capacity.
import { PrefixIndex } from "../../assembly/prefix/prefix-index";

let index = new PrefixIndex(1, 1);
let hashes = new StaticArray<u64>(0);

export function create(maxEndpoints: i32, capacityPerEndpoint: i32, maxChain: i32): void {
  index = new PrefixIndex(maxEndpoints, capacityPerEndpoint);
  hashes = new StaticArray<u64>(maxChain);
}

/** Records a chain of n hashes (base, base+1, ...) for slot; overlapping bases share entries. */
export function record(slot: i32, base: u64, n: i32): void {
  if (n > hashes.length) n = hashes.length;
  for (let i = 0; i < n; i++) unchecked((hashes[i] = base + <u64>i));
  index.record(slot, hashes, n, 0);
}

export function purge(slot: i32): void {
  index.purge(slot);
}

export function setCapacity(slot: i32, cap: i32): void {
  index.setCapacity(slot, cap);
}

export function size(slot: i32): i32 {
  return index.size(slot);
}

export function capacity(slot: i32): i32 {
  return index.capacity(slot);
}

export function capacityPerEndpoint(): i32 {
  return index.capacityPerEndpoint;
}

export function totalEntries(): i32 {
  return index.totalEntries();
}

export function consistent(): bool {
  return index.isConsistent();
}
