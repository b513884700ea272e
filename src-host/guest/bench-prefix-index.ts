// Bench harness (src-host/bench/index-cost.ts): PrefixIndex operations in a loop inside wasm, so the measured
// cost is the index's own and not the cost of crossing from JS into wasm. Indexes have the plugin's default
// size (limits.maxEndpoints x prefix.capacityPerEndpoint); a fill level is set by lowering every slot's
// capacity to that share of the default and filling each slot up to it.
import { PrefixIndex } from "../../assembly/prefix/prefix-index";
import { PickerConfig } from "../../assembly/config/picker-config";

const defaults = new PickerConfig();
const indexes: PrefixIndex[] = [];
let chain = new StaticArray<u64>(0);
let activeSlots = new StaticArray<i32>(0);
let matched = new StaticArray<i32>(0);
/** Per slot, the earliest recording time credited (the cache horizon's, in the plugin): before any recording here. */
let routedSince = new StaticArray<f64>(0);
/** The operations' clock (ms): one millisecond per operation, from a wall-clock-sized start. */
let clockMs: f64 = 1.7e12;
let uniqueCounter: u64 = 0;
let rngState: u32 = 0x9e3779b9;

// Hot-prefix hashes live in their own range so they never collide with the unique counter's.
const HOT_BASE: u64 = 1 << 62;

/** splitmix64 finalizer: distinct inputs give distinct, well-spread 64-bit hashes. */
function mix(x: u64): u64 {
  x += 0x9e3779b97f4a7c15;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

function nextRandom(): u32 {
  let x = rngState;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rngState = x;
  return x;
}

export function defaultMaxEndpoints(): i32 {
  return defaults.maxEndpoints;
}

export function defaultCapacityPerEndpoint(): i32 {
  return defaults.capacityPerEndpoint;
}

export function bytesFor(maxEndpoints: i32, capacityPerEndpoint: i32): f64 {
  return <f64>PrefixIndex.bytesFor(maxEndpoints, capacityPerEndpoint);
}

/**
 * Creates an index of the default endpoint count and `capacityPerEndpoint` entries each (the default one for the
 * fill levels; a small one as the bench's in-cache control) whose every slot holds `fill` x capacityPerEndpoint
 * unique hashes (at least chainLength), and sizes the per-operation buffers. Returns the index id.
 */
export function createFilled(fill: f64, chainLength: i32, activeCount: i32, capacityPerEndpoint: i32): i32 {
  const index = new PrefixIndex(defaults.maxEndpoints, capacityPerEndpoint);
  const perSlot = <i32>Math.min(<f64>index.capacityPerEndpoint, Math.max(<f64>chainLength, Math.round(fill * <f64>index.capacityPerEndpoint)));
  if (chain.length < chainLength) chain = new StaticArray<u64>(chainLength);
  if (activeSlots.length < activeCount) activeSlots = new StaticArray<i32>(activeCount);
  if (matched.length < index.maxEndpoints) matched = new StaticArray<i32>(index.maxEndpoints);
  if (routedSince.length < index.maxEndpoints) {
    routedSince = new StaticArray<f64>(index.maxEndpoints);
    routedSince.fill(clockMs - 1);
  }
  for (let slot = 0; slot < index.maxEndpoints; slot++) {
    index.setCapacity(slot, perSlot);
    for (let filled = 0; filled < perSlot; filled += chainLength) {
      for (let i = 0; i < chainLength; i++) chain[i] = mix(++uniqueCounter);
      index.record(slot, chain, min(chainLength, perSlot - filled), clockMs);
    }
  }
  indexes.push(index);
  return indexes.length - 1;
}

/**
 * Runs `ops` request-like operations on index `id`: a chain of chainLength hashes (its first half a prefix
 * shared by all requests, its second half never seen before) is matched against activeCount consecutive
 * slots starting at a random one, every entry's time checked as the plugin does, then recorded for that slot.
 * Returns the total matched length (a checksum that also keeps the work observable).
 */
export function run(id: i32, ops: i32, chainLength: i32, activeCount: i32): f64 {
  const index = indexes[id];
  fillSharedPrefix(chainLength);
  let total: f64 = 0;
  for (let op = 0; op < ops; op++) {
    const slot = prepareOp(index, chainLength, activeCount);
    index.match(chain, chainLength, activeSlots, activeCount, matched, routedSince);
    total += <f64>matched[slot];
    clockMs += 1;
    index.record(slot, chain, chainLength, clockMs);
  }
  return total;
}

// @ts-ignore: decorator
@inline function fillSharedPrefix(chainLength: i32): void {
  const shared = chainLength >> 1;
  for (let i = 0; i < shared; i++) chain[i] = mix(HOT_BASE + <u64>i);
}

/** The next operation's slot, chain and active slots (the same sequence run() makes). */
// @ts-ignore: decorator
@inline function prepareOp(index: PrefixIndex, chainLength: i32, activeCount: i32): i32 {
  const endpoints = index.maxEndpoints;
  const slot = <i32>(nextRandom() % <u32>endpoints);
  for (let i = chainLength >> 1; i < chainLength; i++) chain[i] = mix(++uniqueCounter);
  for (let a = 0; a < activeCount; a++) activeSlots[a] = (slot + a) % endpoints;
  return slot;
}

// One operation of run() in three calls, for the op-count and memory-trace bench (src-host/bench/index-op-count.ts),
// which counts what match and record each do between them: step(), then stepMatch(), then stepRecord().
let stepSlot: i32 = 0;

/** Prepares the next operation (as run() does) and returns its slot. */
export function step(id: i32, chainLength: i32, activeCount: i32): i32 {
  fillSharedPrefix(chainLength);
  stepSlot = prepareOp(indexes[id], chainLength, activeCount);
  return stepSlot;
}

/** The prepared operation's match; returns the chosen slot's matched length. */
export function stepMatch(id: i32, chainLength: i32, activeCount: i32): i32 {
  indexes[id].match(chain, chainLength, activeSlots, activeCount, matched, routedSince);
  return matched[stepSlot];
}

export function stepRecord(id: i32, chainLength: i32): void {
  clockMs += 1;
  indexes[id].record(stepSlot, chain, chainLength, clockMs);
}

/** Buckets find() reads for the prepared chain's hash at `position` in the prepared slot, negative for a miss. */
export function stepProbe(id: i32, position: i32): i32 {
  return indexes[id].probeLength(stepSlot, chain[position]);
}

/** Start of index `id`'s memory region `region` (PrefixIndex.memoryRegions: start, end pairs); -1 past the last. */
export function memoryRegion(id: i32, k: i32): f64 {
  const regions = indexes[id].memoryRegions();
  return k < regions.length ? <f64>regions[k] : -1;
}

export function totalEntries(id: i32): i32 {
  return indexes[id].totalEntries();
}

export function poolEntries(id: i32): i32 {
  return indexes[id].maxEndpoints * indexes[id].capacityPerEndpoint;
}

export function bytesPerEntry(id: i32): f64 {
  return indexes[id].bytesPerEntry();
}

export function maxDisplacement(id: i32): i32 {
  return indexes[id].maxDisplacement();
}

export function isConsistent(id: i32): bool {
  return indexes[id].isConsistent();
}
