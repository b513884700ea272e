import { EndpointRegistry, addressHash } from "../../assembly/endpoints/endpoint-registry";
import { LoadView } from "../../assembly/core/load-view";
import { MAX_DEFERRED, MAX_LOAD_RECORDS, SharedLoad } from "../../assembly/core/shared-load";

// The view from scratch, as LoadView read it before it followed the load's changes: the records on their active
// slots (the last record of a slot counts), then every unwritten change added in list order, neither below 0.
function rebuild(load: SharedLoad, registry: EndpointRegistry, slots: i32, inflight: StaticArray<i32>, pending: StaticArray<i32>): void {
  for (let s = 0; s < slots; s++) {
    inflight[s] = 0;
    pending[s] = 0;
  }
  const records = min<i32>(load.records, MAX_LOAD_RECORDS);
  for (let i = 0; i < records; i++) {
    const slot = activeSlot(registry, load.addressHash(i));
    if (slot < 0 || slot >= slots) continue;
    inflight[slot] = load.inflight(i);
    pending[slot] = load.pending(i);
  }
  const unwritten = min<i32>(load.unwritten, MAX_DEFERRED);
  for (let k = 0; k < unwritten; k++) {
    const slot = activeSlot(registry, load.unwrittenHash(k));
    if (slot < 0 || slot >= slots) continue;
    inflight[slot] = max<i32>(inflight[slot] + load.unwrittenInflight(k), 0);
    pending[slot] = max<i32>(pending[slot] + load.unwrittenPending(k), 0);
  }
}

function activeSlot(registry: EndpointRegistry, hash: u64): i32 {
  const slot = registry.slotForHash(hash);
  return slot >= 0 && registry.isActive(slot) ? slot : -1;
}

// Whether the view equals the rebuild at every slot, lists each slot at most once, and every slot it does not list
// reads 0 (the fill reads only the listed ones).
function viewMatches(view: LoadView, load: SharedLoad, registry: EndpointRegistry, slots: i32): bool {
  const inflight = new StaticArray<i32>(slots);
  const pending = new StaticArray<i32>(slots);
  rebuild(load, registry, slots, inflight, pending);
  const listed = new StaticArray<bool>(slots);
  for (let i = 0; i < view.writtenCount; i++) {
    const slot = view.written[i];
    if (slot < 0 || slot >= slots || listed[slot]) return false;
    listed[slot] = true;
  }
  for (let s = 0; s < slots; s++) {
    if (view.inflight[s] != inflight[s] || view.pending[s] != pending[s]) return false;
    if (!listed[s] && (view.inflight[s] != 0 || view.pending[s] != 0)) return false;
  }
  return true;
}

let seed: u64 = 0x243f6a8885a308d3;
function random(n: i32): i32 {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return <i32>((seed >> 16) % <u64>n);
}

const ADDRESSES = 12;
const SLOTS = 8;

function addressBytes(i: i32): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode("10.1.0." + i.toString() + ":8000"));
}

function hashOf(i: i32): u64 {
  const b = addressBytes(i);
  return addressHash(b.dataStart, <usize>b.length);
}

// A refresh that sees a random set of the addresses (at most the registry's capacity).
function refreshRandomly(registry: EndpointRegistry): void {
  registry.beginRefresh();
  let seen = 0;
  for (let i = 0; i < ADDRESSES && seen < SLOTS; i++) {
    if (random(3) == 0) continue;
    const b = addressBytes(i);
    if (registry.see(b.dataStart, <usize>b.length, addressHash(b.dataStart, <usize>b.length)) >= 0) seen++;
  }
  registry.endRefresh(new StaticArray<i32>(SLOTS));
}

function refreshWith(registry: EndpointRegistry, a: StaticArray<i32>): void {
  registry.beginRefresh();
  for (let i = 0; i < a.length; i++) {
    const b = addressBytes(a[i]);
    registry.see(b.dataStart, <usize>b.length, addressHash(b.dataStart, <usize>b.length));
  }
  registry.endRefresh(new StaticArray<i32>(4));
}

describe("LoadView", () => {
  it("equals a rebuild from scratch at every read, through changes, writes, re-reads and endpoint-set changes", () => {
    const registry = new EndpointRegistry(SLOTS);
    refreshRandomly(registry);
    const load = new SharedLoad();
    const view = new LoadView(SLOTS);
    // Another configuration's view of the same load, read seldom: it lags more than the change log holds.
    const seldom = new LoadView(SLOTS);
    // Requests outstanding per address: in flight, and of those awaiting their first byte.
    const inflight = new StaticArray<i32>(ADDRESSES);
    const awaiting = new StaticArray<i32>(ADDRESSES);
    let now: f64 = 1000;
    let reads = 0;
    let mismatches = 0;
    for (let step = 0; step < 20000; step++) {
      const a = random(ADDRESSES);
      const op = random(100);
      if (op < 30) {
        load.change(hashOf(a), 1, 1, now); // a lease taken
        inflight[a]++;
        awaiting[a]++;
      } else if (op < 45) {
        if (awaiting[a] > 0) {
          load.change(hashOf(a), 0, -1, now); // its first byte
          awaiting[a]--;
        }
      } else if (op < 70) {
        if (inflight[a] > 0) {
          const first = awaiting[a] > 0 && random(2) == 0;
          load.change(hashOf(a), -1, first ? -1 : 0, now); // a lease given back
          inflight[a]--;
          if (first) awaiting[a]--;
        }
      } else if (op < 73) {
        load.change(hashOf(a), random(5) - 2, random(5) - 2, now); // counts out of step, clamped at 0
      } else if (op < 75) {
        load.flush(now);
      } else if (op < 77) {
        refreshRandomly(registry);
      } else if (op < 80) {
        // Many changes at once: more than the log holds, places past the list's room.
        for (let j = 0; j < 70; j++) load.change(hashOf(random(ADDRESSES)) + <u64>random(2) * 7, 1, random(2), now);
      } else if (op < 90) {
        now += <f64>random(30) / 10; // re-reads every 2 ms, writes every 5 ms
      } else {
        view.read(load, registry, now);
        reads++;
        if (!viewMatches(view, load, registry, SLOTS)) mismatches++;
        if (random(20) == 0) {
          seldom.read(load, registry, now);
          if (!viewMatches(seldom, load, registry, SLOTS)) mismatches++;
        }
      }
    }
    expect(reads).toBeGreaterThan(1000);
    expect(mismatches).toBe(0);
  });

  it("reads an own change at once, and a write or a re-read leaves the same counts", () => {
    const registry = new EndpointRegistry(SLOTS);
    registry.beginRefresh();
    for (let i = 0; i < 4; i++) {
      const b = addressBytes(i);
      registry.see(b.dataStart, <usize>b.length, hashOf(i));
    }
    registry.endRefresh(new StaticArray<i32>(SLOTS));
    const slot = registry.slotForHash(hashOf(2));
    const load = new SharedLoad();
    const view = new LoadView(SLOTS);
    load.change(hashOf(2), 1, 1, 1000); // written at once: nothing written for FLUSH_MS
    view.read(load, registry, 1000);
    expect(view.inflight[slot]).toBe(1);
    load.change(hashOf(2), 1, 1, 1001); // held back
    view.read(load, registry, 1001);
    expect(view.inflight[slot]).toBe(2);
    expect(view.pending[slot]).toBe(2);
    load.change(hashOf(2), 0, -1, 1001.5);
    view.read(load, registry, 1001.5);
    expect(view.pending[slot]).toBe(1);
    expect(viewMatches(view, load, registry, SLOTS)).toBe(true);
    load.change(hashOf(2), -2, -1, 1001.5);
    view.read(load, registry, 1001.5);
    expect(view.inflight[slot]).toBe(0);
    expect(view.pending[slot]).toBe(0);
  });
});

// The registry changed while nothing was outstanding (the build's early return): the places' cached slots must not
// survive it.
describe("LoadView stale unwritten slot", () => {
  it("an address's cached slot is not used after the registry changed under an empty build", () => {
    const A = 0, B = 1, C = 2;
    const registry = new EndpointRegistry(4);
    refreshWith(registry, [A, B]);
    const slotA = registry.slotForHash(hashOf(A));
    const load = new SharedLoad();
    const view = new LoadView(4);
    load.change(hashOf(A), 1, 1, 1000);   // first change: written at once
    load.change(hashOf(A), 0, -1, 1001);  // deferred at place 0
    view.read(load, registry, 1001);      // a build with place 0 = A: caches A's slot
    expect(viewMatches(view, load, registry, 4)).toBe(true);
    load.flush(1006);                     // written, nothing deferred
    refreshWith(registry, [B]);           // A leaves
    refreshWith(registry, [B, C]);        // C takes A's old slot
    expect(registry.slotForHash(hashOf(C))).toBe(slotA);
    view.read(load, registry, 1010);      // re-read: nothing outstanding (stub reads NotFound): the empty build
    expect(viewMatches(view, load, registry, 4)).toBe(true);
    load.change(hashOf(A), 1, 1, 1010);   // another picker of the VM (or a late release) changes A: place 0 again
    view.read(load, registry, 1011);      // incremental: place 0's slot from the cache
    // A is not in this registry: nothing on any slot; the view puts A's request on C.
    expect(view.inflight[slotA]).toBe(0, "C carries A's request");
    expect(viewMatches(view, load, registry, 4)).toBe(true);
  });

  it("a returning address's new slot is used (one picker: A leaves, C takes its slot, A comes back)", () => {
    const A = 0, B = 1, C = 2;
    const registry = new EndpointRegistry(4);
    refreshWith(registry, [A, B]);
    const slotA = registry.slotForHash(hashOf(A));
    const load = new SharedLoad();
    const view = new LoadView(4);
    load.change(hashOf(A), 1, 1, 1000);
    load.change(hashOf(A), 0, -1, 1001);
    view.read(load, registry, 1001);
    load.change(hashOf(A), -1, 0, 1002);  // the request ends
    load.flush(1006);                     // written: no record left, nothing deferred
    refreshWith(registry, [B]);
    refreshWith(registry, [B, C]);
    refreshWith(registry, [A, B, C]);     // A is back, on another slot
    const newA = registry.slotForHash(hashOf(A));
    expect(newA).not.toBe(slotA);
    view.read(load, registry, 1010);      // empty build
    load.change(hashOf(A), 1, 1, 1010);   // this picker sends a request to A
    view.read(load, registry, 1011);
    expect(view.inflight[newA]).toBe(1, "A's request is not on A's slot");
    expect(view.inflight[slotA]).toBe(0, "C carries A's request");
  });
});
