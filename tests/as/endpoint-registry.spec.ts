import { EndpointRegistry, MAX_ADDRESS_BYTES, addressHash } from "../../assembly/endpoints/endpoint-registry";
import { xxh64Bytes } from "../../assembly/prefix/xxh64";

function bytes(s: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(s));
}

// When set, addresses hash to one of 3 values, so every probe run is long and deletions shift entries.
let collidingHashes = false;

function hashOf(b: Uint8Array): u64 {
  const h = addressHash(b.dataStart, <usize>b.length);
  return collidingHashes ? h % 3 : h;
}

function see(r: EndpointRegistry, address: string): i32 {
  const b = bytes(address);
  return r.see(b.dataStart, <usize>b.length, hashOf(b));
}

function lookup(r: EndpointRegistry, address: string): i32 {
  const b = bytes(address);
  return r.lookup(hashOf(b), b.dataStart, <usize>b.length);
}

/** Runs one refresh that sees exactly `addresses`; returns the evicted slots. */
function refresh(r: EndpointRegistry, addresses: Array<string>): Array<i32> {
  r.beginRefresh();
  for (let i = 0; i < addresses.length; i++) see(r, addresses[i]);
  const evicted = new StaticArray<i32>(r.capacity);
  const n = r.endRefresh(evicted);
  const out = new Array<i32>();
  for (let i = 0; i < n; i++) out.push(evicted[i]);
  return out;
}

function activeList(r: EndpointRegistry): Array<i32> {
  const out = new Array<i32>();
  for (let i = 0; i < r.activeCount; i++) out.push(r.activeSlots[i]);
  return out;
}

function address(i: i32): string {
  return "10.0." + (i >> 8).toString() + "." + (i & 255).toString() + ":8000";
}

describe("EndpointRegistry slots", () => {
  it("keeps an address on the same slot across refreshes", () => {
    const r = new EndpointRegistry(4);
    const a = see(r, "10.0.0.1:8000");
    const b = see(r, "10.0.0.2:8000");
    expect<bool>(a >= 0 && b >= 0 && a != b).toBe(true);
    expect<i32>(refresh(r, ["10.0.0.2:8000", "10.0.0.1:8000"]).length).toBe(0);
    expect<i32>(lookup(r, "10.0.0.1:8000")).toBe(a);
    expect<i32>(lookup(r, "10.0.0.2:8000")).toBe(b);
    expect<i32>(r.count).toBe(2);
    // Seeing an address twice in one refresh gives its slot both times.
    r.beginRefresh();
    expect<i32>(see(r, "10.0.0.1:8000")).toBe(a);
    expect<i32>(see(r, "10.0.0.1:8000")).toBe(a);
  });

  it("stores the address bytes", () => {
    const r = new EndpointRegistry(2);
    const s = see(r, "[fd00::1]:8000");
    expect<string>(r.addressString(s)).toBe("[fd00::1]:8000");
    expect<i32>(r.addressLen(s)).toBe(14);
    const copy = String.UTF8.decodeUnsafe(r.addressPtr(s), <usize>r.addressLen(s));
    expect<string>(copy).toBe("[fd00::1]:8000");
    expect<i32>(lookup(r, "[fd00::1]:8001")).toBe(-1);
  });

  it("evicts endpoints not seen in a refresh and bumps their generation", () => {
    const r = new EndpointRegistry(4);
    const a = see(r, "a:1");
    const b = see(r, "b:1");
    const c = see(r, "c:1");
    const genB = r.generation(b);
    const genA = r.generation(a);
    const evicted = refresh(r, ["a:1", "c:1"]);
    expect<i32>(evicted.length).toBe(1);
    expect<i32>(evicted[0]).toBe(b);
    expect<bool>(r.isActive(b)).toBe(false);
    expect<u32>(r.generation(b)).not.toBe(genB);
    expect<u32>(r.generation(a)).toBe(genA);
    expect<i32>(lookup(r, "b:1")).toBe(-1);
    expect<i32>(lookup(r, "c:1")).toBe(c);
    expect<string>(r.addressString(b)).toBe("");
    expect<i32>(r.count).toBe(2);
  });

  it("reuses a freed slot for a new address with a new generation and cleared state", () => {
    const r = new EndpointRegistry(2);
    const a = see(r, "a:1");
    see(r, "b:1");
    r.writableMetrics(a).waiting = 7;
    r.writableMetrics(a).hasWaiting = true;
    r.setFingerprint(a, 1234);
    r.setHealthy(a, true);
    r.setUpdatedMs(a, 99);
    const leaseGeneration = r.generation(a);
    refresh(r, ["b:1"]);
    r.beginRefresh();
    see(r, "b:1");
    const c = see(r, "c:1");
    expect<i32>(c).toBe(a);
    expect<u32>(r.generation(c)).not.toBe(leaseGeneration);
    expect<string>(r.addressString(c)).toBe("c:1");
    expect<bool>(r.metricsBySlot[c].hasWaiting).toBe(false);
    expect<f64>(r.metricsBySlot[c].waiting).toBe(0);
    expect<u64>(r.fingerprint(c)).toBe(0);
    expect<bool>(r.healthy(c)).toBe(false);
    expect<f64>(r.updatedMs(c)).toBe(0);
  });

  it("refuses new addresses when full and accepts known ones", () => {
    const r = new EndpointRegistry(2);
    see(r, "a:1");
    const b = see(r, "b:1");
    expect<i32>(see(r, "c:1")).toBe(-1);
    expect<i32>(see(r, "b:1")).toBe(b);
    expect<i32>(r.count).toBe(2);
  });

  it("refuses empty addresses and addresses longer than MAX_ADDRESS_BYTES", () => {
    const r = new EndpointRegistry(4);
    let longest = "";
    while (longest.length < MAX_ADDRESS_BYTES) longest += "x";
    const tooLong = longest + "y";
    expect<i32>(see(r, "")).toBe(-1);
    expect<i32>(see(r, tooLong)).toBe(-1);
    expect<i32>(lookup(r, tooLong)).toBe(-1);
    const s = see(r, longest);
    expect<bool>(s >= 0).toBe(true);
    expect<string>(r.addressString(s)).toBe(longest);
    expect<i32>(r.count).toBe(1);
  });

  it("tells addresses with equal hashes apart by their bytes", () => {
    const r = new EndpointRegistry(4);
    const a = bytes("a:1");
    const b = bytes("b:1");
    const sa = r.see(a.dataStart, 3, 42);
    const sb = r.see(b.dataStart, 3, 42);
    expect<bool>(sa != sb && sa >= 0 && sb >= 0).toBe(true);
    expect<i32>(r.lookup(42, b.dataStart, 3)).toBe(sb);
    refresh(r, []);
    expect<i32>(r.lookup(42, a.dataStart, 3)).toBe(-1);
  });

  it("uses XXH64 with seed 0 as the address hash", () => {
    const b = bytes("10.1.2.3:8000");
    expect<u64>(addressHash(b.dataStart, <usize>b.length)).toBe(xxh64Bytes(b, 0));
  });

  it("keeps active slots in first-seen order, dropping the evicted", () => {
    const r = new EndpointRegistry(8);
    see(r, "a:1");
    see(r, "b:1");
    see(r, "c:1");
    refresh(r, ["c:1", "a:1"]);
    see(r, "d:1");
    const list = activeList(r);
    expect<i32>(list.length).toBe(3);
    expect<string>(r.addressString(list[0])).toBe("a:1");
    expect<string>(r.addressString(list[1])).toBe("c:1");
    expect<string>(r.addressString(list[2])).toBe("d:1");
  });

  it("frees at most evicted.length slots per endRefresh", () => {
    const r = new EndpointRegistry(4);
    see(r, "a:1");
    see(r, "b:1");
    see(r, "c:1");
    r.beginRefresh();
    const small = new StaticArray<i32>(2);
    expect<i32>(r.endRefresh(small)).toBe(2);
    expect<i32>(r.count).toBe(1);
    const rest = new StaticArray<i32>(4);
    expect<i32>(r.endRefresh(rest)).toBe(1);
    expect<i32>(r.count).toBe(0);
  });

  it("answers out-of-range slots without trapping", () => {
    const r = new EndpointRegistry(2);
    expect<bool>(r.isActive(-1)).toBe(false);
    expect<bool>(r.isActive(2)).toBe(false);
    expect<u32>(r.generation(5)).toBe(0);
    expect<usize>(r.addressPtr(-3)).toBe(0);
    expect<string>(r.addressString(9)).toBe("");
    r.writableMetrics(7).waiting = 3;
    expect<f64>(r.writableMetrics(8).waiting).toBe(0);
    r.setFingerprint(-1, 5);
    expect<u64>(r.fingerprint(-1)).toBe(0);
  });
});

// Reference model: address -> slot map plus per-slot generation counters, checked after random refreshes.
describe("EndpointRegistry against a model", () => {
  it("agrees over random refreshes of a pool larger than the registry", () => {
    collidingHashes = false;
    checkAgainstModel(12345);
  });

  it("agrees when addresses share hash values", () => {
    collidingHashes = true;
    checkAgainstModel(777);
    collidingHashes = false;
  });
});

function checkAgainstModel(seed: u32): void {
  const capacity = 24;
  const pool = 64;
  const r = new EndpointRegistry(capacity);
  const modelSlot = new Map<string, i32>();
  const modelGeneration = new StaticArray<u32>(capacity);
  for (let s = 0; s < capacity; s++) modelGeneration[s] = r.generation(s);
  let state: u32 = seed;
  for (let round = 0; round < 80; round++) {
    r.beginRefresh();
    const seen = new Set<string>();
    const wanted = <i32>((state = state * 1103515245 + 12345) >> 16) % 30;
    for (let k = 0; k < wanted; k++) {
      state = state * 1103515245 + 12345;
      const addr = address(<i32>((state >> 16) % <u32>pool));
      const slot = see(r, addr);
      if (modelSlot.has(addr)) {
        expect<i32>(slot).toBe(modelSlot.get(addr));
        seen.add(addr);
      } else if (modelSlot.size < capacity) {
        expect<bool>(slot >= 0 && slot < capacity).toBe(true);
        // A free slot: no other address holds it.
        const keys = modelSlot.keys();
        for (let j = 0; j < keys.length; j++) expect<i32>(modelSlot.get(keys[j])).not.toBe(slot);
        modelSlot.set(addr, slot);
        seen.add(addr);
      } else {
        expect<i32>(slot).toBe(-1);
      }
    }
    const evicted = new StaticArray<i32>(capacity);
    const n = r.endRefresh(evicted);
    const keys = modelSlot.keys();
    let expectedEvictions = 0;
    for (let j = 0; j < keys.length; j++) {
      const addr = keys[j];
      if (seen.has(addr)) continue;
      const slot = modelSlot.get(addr);
      let found = false;
      for (let e = 0; e < n; e++) if (evicted[e] == slot) found = true;
      expect<bool>(found).toBe(true);
      modelGeneration[slot] = modelGeneration[slot] + 1;
      modelSlot.delete(addr);
      expectedEvictions++;
    }
    expect<i32>(n).toBe(expectedEvictions);
    expect<i32>(r.count).toBe(modelSlot.size);
    for (let p = 0; p < pool; p++) {
      const addr = address(p);
      expect<i32>(lookup(r, addr)).toBe(modelSlot.has(addr) ? modelSlot.get(addr) : -1);
    }
    for (let s = 0; s < capacity; s++) expect<u32>(r.generation(s)).toBe(modelGeneration[s]);
    // activeSlots holds exactly the occupied slots.
    const active = activeList(r);
    expect<i32>(active.length).toBe(modelSlot.size);
    for (let j = 0; j < active.length; j++) {
      expect<bool>(r.isActive(active[j])).toBe(true);
      expect<string>(modelSlot.has(r.addressString(active[j])) ? "held" : "stray").toBe("held");
    }
  }
}

// Deterministic xorshift for the random refreshes.
let orderState: u64 = 0x2545f4914f6cdd1d;
function nextRandom(): u64 {
  orderState ^= orderState << 13;
  orderState ^= orderState >> 7;
  orderState ^= orderState << 17;
  return orderState;
}

describe("EndpointRegistry activeInOrder", () => {
  it("says whether every active slot sits at its own index, over random refreshes that add and drop endpoints", () => {
    const r = new EndpointRegistry(12);
    let inOrder = 0;
    let outOfOrder = 0;
    for (let round = 0; round < 400; round++) {
      // Mostly the same few addresses (a stable fleet), sometimes others joining or some leaving.
      const addresses = new Array<string>();
      const fleet = round % 50 < 25 ? 6 : 12;
      for (let a = 0; a < fleet; a++) if (nextRandom() % 8 != 0 || round % 7 != 0) addresses.push("10.0.0." + a.toString());
      refresh(r, addresses);
      let expected = true;
      for (let i = 0; i < r.activeCount; i++) expected = expected && r.activeSlots[i] == i;
      expect<bool>(r.activeInOrder).toBe(expected);
      if (expected) inOrder++;
      else outOfOrder++;
    }
    expect<i32>(inOrder).toBeGreaterThan(0);
    expect<i32>(outOfOrder).toBeGreaterThan(0);
  });

  it("is in order again once the endpoints out of place leave", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["a", "b", "c", "d"]);
    expect<bool>(r.activeInOrder).toBe(true);
    refresh(r, ["a", "b", "d"]); // slots 0, 1, 3
    expect<bool>(r.activeInOrder).toBe(false);
    // e takes c's slot 2, after 3: out of order as soon as it is seen, before the refresh ends.
    r.beginRefresh();
    see(r, "a");
    see(r, "b");
    see(r, "d");
    refresh(r, ["a", "b"]);
    expect<bool>(r.activeInOrder).toBe(true);
    r.beginRefresh();
    see(r, "a");
    see(r, "b");
    see(r, "d");
    expect<bool>(r.activeInOrder).toBe(activeList(r)[2] == 2);
    see(r, "e");
    expect<bool>(r.activeInOrder).toBe(activeList(r)[2] == 2 && activeList(r)[3] == 3);
    r.endRefresh(new StaticArray<i32>(8));
    expect<bool>(r.activeInOrder).toBe(activeList(r)[2] == 2 && activeList(r)[3] == 3);
    refresh(r, ["a", "b"]);
    expect<bool>(r.activeInOrder).toBe(true);
    refresh(r, ["a", "b", "f"]);
    expect<bool>(activeList(r)[2] == 2).toBe(r.activeInOrder);
  });
});
