import { PREFIX_INDEX_MAX_PROBE, PrefixIndex, mixKey } from "../../assembly/prefix/prefix-index";

function chain(values: Array<u64>): StaticArray<u64> {
  const out = new StaticArray<u64>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i];
  return out;
}

function slots(values: Array<i32>): StaticArray<i32> {
  const out = new StaticArray<i32>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i];
  return out;
}

function record(index: PrefixIndex, slot: i32, values: Array<u64>): void {
  const hashes = chain(values);
  index.record(slot, hashes, hashes.length, 0);
}

/** Matched length of `values` for one slot. */
function matchOne(index: PrefixIndex, slot: i32, values: Array<u64>): i32 {
  const out = new StaticArray<i32>(index.maxEndpoints);
  const hashes = chain(values);
  index.match(hashes, hashes.length, slots([slot]), 1, out);
  return out[slot];
}

/** Matched length of `values` for one slot, crediting entries recorded at or after `sinceMs` for it. */
function matchSince(index: PrefixIndex, slot: i32, values: Array<u64>, sinceMs: f64): i32 {
  const out = new StaticArray<i32>(index.maxEndpoints);
  const since = new StaticArray<f64>(index.maxEndpoints);
  since.fill(-Infinity);
  since[slot] = sinceMs;
  const hashes = chain(values);
  index.match(hashes, hashes.length, slots([slot]), 1, out, since);
  return out[slot];
}

let rngState: u64 = 0x2545f4914f6cdd1d;
function nextRandom(): u64 {
  rngState ^= rngState << 13;
  rngState ^= rngState >> 7;
  rngState ^= rngState << 17;
  return rngState;
}
function randomBelow(n: i32): i32 {
  return <i32>(nextRandom() % <u64>n);
}

/** Reference model: per slot, the recorded hashes ordered from most to least recently used. */
class ModelIndex {
  lists: Array<Array<u64>> = new Array<Array<u64>>();
  /** Per slot, the hashes it holds that were recorded first in a chain (match starts only from one of them). */
  heads: Array<Array<u64>> = new Array<Array<u64>>();
  caps: Array<i32> = new Array<i32>();
  /** Per slot, when each hash it holds was last recorded. */
  times: Array<Map<u64, f64>> = new Array<Map<u64, f64>>();

  constructor(public endpoints: i32, public capacityPerEndpoint: i32) {
    for (let s = 0; s < endpoints; s++) {
      this.times.push(new Map<u64, f64>());
      this.lists.push(new Array<u64>());
      this.heads.push(new Array<u64>());
      this.caps.push(capacityPerEndpoint);
    }
  }

  record(slot: i32, hashes: StaticArray<u64>, n: i32, atMs: f64 = 0): void {
    const list = this.lists[slot];
    const cap = this.caps[slot];
    const count = n < cap ? n : cap;
    for (let i = count - 1; i >= 0; i--) {
      const at = list.indexOf(hashes[i]);
      if (at >= 0) list.splice(at, 1);
      list.unshift(hashes[i]);
      this.times[slot].set(hashes[i], atMs);
      if (list.length > cap) this.dropHead(slot, list.pop());
    }
    if (count > 0 && !this.heads[slot].includes(hashes[0])) this.heads[slot].push(hashes[0]);
  }

  private dropHead(slot: i32, hash: u64): void {
    const at = this.heads[slot].indexOf(hash);
    if (at >= 0) this.heads[slot].splice(at, 1);
  }

  match(slot: i32, hashes: StaticArray<u64>, n: i32): i32 {
    if (n > 0 && !this.heads[slot].includes(hashes[0])) return 0;
    let matched = 0;
    while (matched < n && this.lists[slot].includes(hashes[matched])) matched++;
    return matched;
  }

  purge(slot: i32): void {
    this.lists[slot] = new Array<u64>();
    this.heads[slot] = new Array<u64>();
  }

  setCapacity(slot: i32, cap: i32): void {
    if (cap < 1) cap = 1;
    if (cap > this.capacityPerEndpoint) cap = this.capacityPerEndpoint;
    this.caps[slot] = cap;
    const list = this.lists[slot];
    while (list.length > cap) this.dropHead(slot, list.pop());
  }

  total(): i32 {
    let sum = 0;
    for (let s = 0; s < this.endpoints; s++) sum += this.lists[s].length;
    return sum;
  }
}

/** Every model key is findable in its slot and nothing else is, sizes agree, and the table is consistent. */
function expectSameAsModel(index: PrefixIndex, model: ModelIndex, universe: Array<u64>): void {
  expect<bool>(index.isConsistent()).toBe(true);
  expect<i32>(index.totalEntries()).toBe(model.total());
  for (let s = 0; s < model.endpoints; s++) {
    const list = model.lists[s];
    expect<i32>(index.size(s)).toBe(list.length);
    expect<i32>(index.capacity(s)).toBe(model.caps[s]);
    expect<bool>(index.size(s) <= index.capacity(s)).toBe(true);
    let membershipErrors = 0;
    for (let i = 0; i < universe.length; i++) {
      if (index.has(s, universe[i]) != list.includes(universe[i])) membershipErrors++;
    }
    expect<i32>(membershipErrors).toBe(0, "keys whose presence differs from the model in slot " + s.toString());
  }
}

describe("PrefixIndex match", () => {
  it("counts leading hashes per slot and stops at each slot's first miss", () => {
    const index = new PrefixIndex(4, 16);
    record(index, 0, [11, 12, 13, 14]);
    record(index, 1, [11, 12]);
    record(index, 3, [99, 12, 13]);
    const out = new StaticArray<i32>(4);
    out.fill(-1);
    const query = chain([11, 12, 13, 14, 15]);
    index.match(query, query.length, slots([0, 1, 2, 3]), 4, out);
    expect<i32>(out[0]).toBe(4);
    expect<i32>(out[1]).toBe(2);
    expect<i32>(out[2]).toBe(0);
    expect<i32>(out[3]).toBe(0); // holds 12 and 13 but not the head 11
    expect<i32>(matchOne(index, 0, [11, 12, 77, 14])).toBe(2);
    expect<i32>(matchOne(index, 0, [])).toBe(0);
  });

  it("only touches the active slots and honours n", () => {
    const index = new PrefixIndex(3, 8);
    record(index, 0, [1, 2, 3]);
    record(index, 2, [1, 2, 3]);
    const out = new StaticArray<i32>(3);
    out.fill(-7);
    const query = chain([1, 2, 3]);
    index.match(query, 2, slots([2, 0, 1]), 2, out);
    expect<i32>(out[2]).toBe(2);
    expect<i32>(out[0]).toBe(2);
    expect<i32>(out[1]).toBe(-7);
  });

  it("is read-only: matching does not refresh recency", () => {
    const index = new PrefixIndex(1, 3);
    record(index, 0, [3]);
    record(index, 0, [1, 2]); // recency 1, 2, 3 (3 least recent, recorded first in a chain)
    expect<i32>(matchOne(index, 0, [3])).toBe(1);
    record(index, 0, [4]);
    expect<bool>(index.has(0, 3)).toBe(false);
    expect<bool>(index.has(0, 2)).toBe(true);
  });

  it("ignores invalid slots, out arrays that are too short, and oversized counts", () => {
    const index = new PrefixIndex(4, 8);
    record(index, 3, [5, 6]);
    const shortOut = new StaticArray<i32>(2);
    shortOut.fill(-1);
    const query = chain([5, 6]);
    expect<i32>(index.match(query, 100, slots([-1, 4, 1000, 3, 1]), 99, shortOut)).toBe(0, "skipped slots do not count");
    expect<i32>(shortOut[0]).toBe(-1);
    expect<i32>(shortOut[1]).toBe(0);
    const out = new StaticArray<i32>(4);
    expect<i32>(index.match(query, 100, slots([3]), 1, out)).toBe(2);
    expect<i32>(out[3]).toBe(2);
    index.match(query, -3, slots([3]), 1, out);
    expect<i32>(out[3]).toBe(0);
  });
});

describe("PrefixIndex match along the recorded list", () => {
  it("matches a chain whose entries later records moved apart in the slot's list, at every junction", () => {
    const index = new PrefixIndex(2, 64);
    record(index, 0, [1, 2, 3, 4, 5, 6]);
    record(index, 0, [1, 2, 30, 40]); // list: 1 2 30 40 3 4 5 6
    record(index, 0, [50, 4, 5]); // list: 50 4 5 1 2 30 40 3 6
    // After 2 the list goes on with 30, after 3 with 6, after 5 with 1: each a find, then the list again.
    expect<i32>(matchOne(index, 0, [1, 2, 3, 4, 5, 6])).toBe(6);
    expect<i32>(matchOne(index, 0, [1, 2, 30, 40, 3, 6])).toBe(6, "the list's own order");
    expect<i32>(matchOne(index, 0, [1, 2, 30, 40, 3, 4, 5, 6])).toBe(8);
    expect<i32>(matchOne(index, 0, [1, 2, 30, 99])).toBe(3, "the list's next entry is not the next hash, nor held");
    expect<i32>(matchOne(index, 0, [50, 4, 5, 1, 2])).toBe(5, "held, whichever chain recorded them");
    expect<i32>(matchOne(index, 0, [50, 4, 5, 6])).toBe(4, "6 is held, though the list goes on with 1");
    expect<i32>(matchOne(index, 1, [1, 2, 3])).toBe(0, "another slot's list");
  });

  it("judges each entry's time whether the list or a find gives it", () => {
    const index = new PrefixIndex(1, 64);
    const at = 1.7e12;
    index.record(0, chain([1, 2, 3, 4, 5]), 5, at);
    index.record(0, chain([1, 2, 30]), 3, at + 5000); // list: 1 2 30 3 4 5
    index.record(0, chain([60, 4]), 2, at + 5000); // list: 60 4 1 2 30 3 5
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4, 5], at)).toBe(5);
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4, 5], at + 1000)).toBe(2, "3 is older");
    expect<i32>(matchSince(index, 0, [1, 2, 30, 3], at + 1000)).toBe(3, "3, next in the list, is older");
    expect<i32>(matchSince(index, 0, [60, 4, 5], at + 1000)).toBe(2, "5, found, is older");
    expect<i32>(matchSince(index, 0, [60, 4, 5], at)).toBe(3);
  });
});

describe("PrefixIndex match of many slots together", () => {
  it("gives each slot its own match, with its own time, however the slots are listed (repeated, invalid, more than the index has)", () => {
    const endpoints = 6;
    const index = new PrefixIndex(endpoints, 64);
    const at = 1.7e12;
    // Slot s holds a chain of 1..12 sharing its first s + 2 hashes with every other slot's, recorded at two times.
    for (let s = 0; s < endpoints - 1; s++) {
      const values = new Array<u64>();
      for (let i = 0; i < 12; i++) values.push(i < s + 2 ? <u64>(100 + i) : <u64>(1000 * (s + 1) + i));
      index.record(s, chain(values), 12, at);
      index.record(s, chain(values), s + 1, at + 5000); // the head again, later
    }
    const query = new Array<u64>();
    for (let i = 0; i < 12; i++) query.push(<u64>(100 + i));
    const hashes = chain(query);
    const since = new StaticArray<f64>(endpoints);
    for (let s = 0; s < endpoints; s++) since[s] = s % 2 == 0 ? at + 1000 : -Infinity;
    const listed = slots([3, 0, 3, 5, -1, 1, 3, 2, 4, 0, 99, 4, 1, 2, 3, 0]);
    const out = new StaticArray<i32>(endpoints);
    for (let count = 0; count <= listed.length; count++) {
      out.fill(-1);
      const longest = index.match(hashes, 12, listed, count, out, since);
      let expectedLongest = 0;
      for (let s = 0; s < endpoints; s++) {
        let isListed = false;
        for (let i = 0; i < count; i++) if (listed[i] == s) isListed = true;
        const alone = matchSince(index, s, query, since[s]);
        expect<i32>(out[s]).toBe(isListed ? alone : -1);
        if (isListed) expectedLongest = max(expectedLongest, alone);
      }
      expect<i32>(longest).toBe(expectedLongest);
    }
    // The expectations are not all alike: times cut the even slots' matches short.
    expect<i32>(matchSince(index, 2, query, since[2])).toBe(3);
    expect<i32>(matchSince(index, 3, query, since[3])).toBe(5);
    expect<i32>(matchSince(index, 5, query, since[5])).toBe(0);
  });
});

describe("PrefixIndex match from a chain's first hash", () => {
  it("starts a match only where the first hash was recorded first in a chain, over many slots, as long as it lives", () => {
    const endpoints = 200;
    const index = new PrefixIndex(endpoints, 4);
    const all = new StaticArray<i32>(endpoints);
    for (let s = 0; s < endpoints; s++) {
      all[s] = s;
      if (s % 7 == 0) record(index, s, [1001, 1002, 1003]);
      else if (s % 7 == 1) record(index, s, [2000 + <u64>s, 1001, 1002]); // the same hashes past the first place
      else record(index, s, [3000 + <u64>s]); // heads of other chains (some share the first hash's bucket)
    }
    const out = new StaticArray<i32>(endpoints);
    out.fill(-1);
    const query = chain([1001, 1002, 1003, 1004]);
    expect<i32>(index.match(query, 4, all, endpoints, out)).toBe(3);
    for (let s = 0; s < endpoints; s++) expect<i32>(out[s]).toBe(s % 7 == 0 ? 3 : 0, "slot " + s.toString());
    // Recorded first later on, a slot that held the hash past the first place matches from it.
    record(index, 1, [1001, 1002]);
    expect<i32>(matchOne(index, 1, [1001, 1002, 1003])).toBe(2);
    // Evicted (two newer chains fill the slot), the head no longer counts; purged, neither.
    record(index, 0, [5, 6]);
    record(index, 0, [7, 8]);
    expect<i32>(matchOne(index, 0, [1001, 1002])).toBe(0);
    record(index, 0, [1001]);
    expect<i32>(matchOne(index, 0, [1001, 1002])).toBe(1);
    index.purge(7);
    expect<i32>(matchOne(index, 7, [1001])).toBe(0);
    expect<bool>(index.isConsistent()).toBe(true);
  });
});

describe("PrefixIndex match since a time", () => {
  it("credits only entries recorded since the slot's time, stopping at the first older one", () => {
    const index = new PrefixIndex(2, 16);
    const at = 1.7e12; // wall-clock milliseconds, as a host gives them
    index.record(0, chain([1, 2, 3, 4]), 4, at);
    index.record(0, chain([1, 2]), 2, at + 5000); // the shared head again, 5 s later
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4], at)).toBe(4);
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4], at + 1000)).toBe(2, "the tail is older");
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4], at + 5000)).toBe(2);
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4], at + 6000)).toBe(0);
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4], -Infinity)).toBe(4, "no time: the LRU list alone");
    expect<i32>(matchSince(index, 0, [1, 2, 3, 4], NaN)).toBe(4, "not known: the LRU list alone");
    expect<i32>(matchOne(index, 0, [1, 2, 3, 4])).toBe(4, "no times given");
    // Each slot has its own time.
    index.record(1, chain([1, 2, 3, 4]), 4, at);
    const out = new StaticArray<i32>(2);
    const since = new StaticArray<f64>(2);
    since[0] = at + 1000;
    since[1] = at;
    const hashes = chain([1, 2, 3, 4]);
    expect<i32>(index.match(hashes, 4, slots([0, 1]), 2, out, since)).toBe(4);
    expect<i32>(out[0]).toBe(2);
    expect<i32>(out[1]).toBe(4);
    // A times array shorter than the slots leaves the rest unjudged.
    expect<i32>(index.match(hashes, 4, slots([0, 1]), 2, out, new StaticArray<f64>(0))).toBe(4);
    expect<i32>(out[0]).toBe(4);
  });

  it("compares times at 16 ms steps, across any stamp wrap-around", () => {
    const index = new PrefixIndex(1, 8);
    // 2^32 steps of 16 ms after 0: the stamp wraps here.
    const wrap = 4294967296.0 * 16;
    index.record(0, chain([7, 8]), 2, wrap - 32);
    index.record(0, chain([7]), 1, wrap + 64);
    expect<i32>(matchSince(index, 0, [7, 8], wrap - 48)).toBe(2);
    expect<i32>(matchSince(index, 0, [7, 8], wrap)).toBe(1, "recorded before the wrap: older");
    expect<i32>(matchSince(index, 0, [7, 8], wrap + 64)).toBe(1);
    expect<i32>(matchSince(index, 0, [7, 8], wrap + 80)).toBe(0);
  });
});

describe("PrefixIndex record and eviction", () => {
  it("evicts the suffix of a chain first", () => {
    const index = new PrefixIndex(1, 4);
    record(index, 0, [1, 2, 3, 4]);
    record(index, 0, [7, 8]);
    expect<i32>(index.size(0)).toBe(4);
    expect<bool>(index.has(0, 1)).toBe(true);
    expect<bool>(index.has(0, 2)).toBe(true);
    expect<bool>(index.has(0, 3)).toBe(false);
    expect<bool>(index.has(0, 4)).toBe(false);
    expect<i32>(matchOne(index, 0, [1, 2, 3, 4])).toBe(2);
  });

  it("evicts least recently recorded entries across records, refreshes on re-record", () => {
    const index = new PrefixIndex(1, 4);
    record(index, 0, [1, 2]); // 1 2
    record(index, 0, [3, 4]); // 3 4 1 2
    record(index, 0, [1]); // 1 3 4 2
    record(index, 0, [5, 6]); // 5 6 1 3
    expect<bool>(index.has(0, 5)).toBe(true);
    expect<bool>(index.has(0, 6)).toBe(true);
    expect<bool>(index.has(0, 1)).toBe(true);
    expect<bool>(index.has(0, 3)).toBe(true);
    expect<bool>(index.has(0, 2)).toBe(false);
    expect<bool>(index.has(0, 4)).toBe(false);
    expect<i32>(index.totalEntries()).toBe(4);
  });

  it("records only the first capacity hashes of a longer chain", () => {
    const index = new PrefixIndex(2, 3);
    record(index, 1, [1, 2, 3, 4, 5]);
    expect<i32>(index.size(1)).toBe(3);
    expect<i32>(matchOne(index, 1, [1, 2, 3, 4, 5])).toBe(3);
    expect<bool>(index.has(1, 4)).toBe(false);
    index.setCapacity(1, 2);
    record(index, 1, [9, 8, 7]);
    expect<i32>(matchOne(index, 1, [9, 8, 7])).toBe(2);
  });

  it("keeps slots isolated", () => {
    const index = new PrefixIndex(3, 2);
    record(index, 0, [1, 2]);
    record(index, 1, [1, 2]);
    record(index, 1, [3, 4]); // evicts 1 and 2 from slot 1 only
    expect<i32>(matchOne(index, 0, [1, 2])).toBe(2);
    expect<i32>(matchOne(index, 1, [1, 2])).toBe(0);
    expect<i32>(matchOne(index, 1, [3, 4])).toBe(2);
    expect<i32>(matchOne(index, 2, [1, 2])).toBe(0);
    index.purge(0);
    expect<i32>(matchOne(index, 0, [1, 2])).toBe(0);
    expect<i32>(matchOne(index, 1, [3, 4])).toBe(2);
    expect<bool>(index.isConsistent()).toBe(true);
  });

  it("ignores invalid slots and bad counts without trapping", () => {
    const index = new PrefixIndex(2, 4);
    const hashes = chain([1, 2, 3]);
    index.record(-1, hashes, 3, 0);
    index.record(2, hashes, 3, 0);
    index.record(0, hashes, 50, 0);
    index.record(1, hashes, -2, 0);
    expect<i32>(index.size(0)).toBe(3);
    expect<i32>(index.size(1)).toBe(0);
    expect<i32>(index.size(-1)).toBe(0);
    expect<i32>(index.size(2)).toBe(0);
    expect<i32>(index.capacity(9)).toBe(0);
    expect<bool>(index.has(7, 1)).toBe(false);
    index.purge(-5);
    index.purge(2);
    index.setCapacity(-1, 3);
    index.setCapacity(2, 3);
    expect<i32>(index.totalEntries()).toBe(3);
    expect<bool>(index.isConsistent()).toBe(true);
  });
});

describe("PrefixIndex purge and capacity", () => {
  it("purge removes every entry of the slot and the slot can be reused", () => {
    const index = new PrefixIndex(2, 8);
    record(index, 0, [1, 2, 3, 4, 5, 6, 7, 8]);
    record(index, 1, [1, 2, 3]);
    index.purge(0);
    expect<i32>(index.size(0)).toBe(0);
    expect<i32>(index.totalEntries()).toBe(3);
    for (let h: u64 = 1; h <= 8; h++) expect<bool>(index.has(0, h)).toBe(false);
    record(index, 0, [20, 21, 22, 23, 24, 25, 26, 27, 28]);
    expect<i32>(index.size(0)).toBe(8);
    expect<i32>(matchOne(index, 0, [20, 21, 22, 23, 24, 25, 26, 27])).toBe(8);
    expect<i32>(matchOne(index, 1, [1, 2, 3])).toBe(3);
    expect<bool>(index.isConsistent()).toBe(true);
  });

  it("setCapacity shrinks by evicting least recently used entries, and clamps", () => {
    const index = new PrefixIndex(2, 10);
    record(index, 0, [1, 2, 3, 4, 5, 6]);
    index.setCapacity(0, 2);
    expect<i32>(index.capacity(0)).toBe(2);
    expect<i32>(index.size(0)).toBe(2);
    expect<i32>(matchOne(index, 0, [1, 2, 3])).toBe(2);
    index.setCapacity(0, 0);
    expect<i32>(index.capacity(0)).toBe(1);
    expect<bool>(index.has(0, 1)).toBe(true);
    expect<bool>(index.has(0, 2)).toBe(false);
    index.setCapacity(0, 1000);
    expect<i32>(index.capacity(0)).toBe(10);
    record(index, 0, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect<i32>(index.size(0)).toBe(10);
    expect<i32>(index.capacity(1)).toBe(10);
    expect<bool>(index.isConsistent()).toBe(true);
  });

  it("weights endpoints: each slot holds up to its own capacity", () => {
    const index = new PrefixIndex(2, 8);
    index.setCapacity(0, 8);
    index.setCapacity(1, 3);
    const long = chain([1, 2, 3, 4, 5, 6, 7, 8]);
    index.record(0, long, 8, 0);
    index.record(1, long, 8, 0);
    const out = new StaticArray<i32>(2);
    index.match(long, 8, slots([0, 1]), 2, out);
    expect<i32>(out[0]).toBe(8);
    expect<i32>(out[1]).toBe(3);
  });
});

describe("PrefixIndex against a reference model", () => {
  it("agrees on a long random workload of records, matches, purges and capacity changes", () => {
    const endpoints = 5;
    const capacity = 24;
    const index = new PrefixIndex(endpoints, capacity);
    const model = new ModelIndex(endpoints, capacity);
    // A small universe makes refreshes, shared prefixes and cross-slot duplicates frequent.
    const universe = new Array<u64>();
    for (let i = 0; i < 96; i++) universe.push(i < 48 ? <u64>(i + 1) : nextRandom());
    const active = slots([0, 1, 2, 3, 4]);
    const out = new StaticArray<i32>(endpoints);
    const hashes = new StaticArray<u64>(40);
    for (let step = 0; step < 3000; step++) {
      const op = randomBelow(100);
      const slot = randomBelow(endpoints);
      if (op < 70) {
        const n = randomBelow(40);
        const start = randomBelow(universe.length);
        const stride = 1 + randomBelow(3);
        for (let i = 0; i < n; i++) hashes[i] = universe[(start + i * stride) % universe.length];
        index.record(slot, hashes, n, 0);
        model.record(slot, hashes, n);
      } else if (op < 90) {
        const n = randomBelow(40);
        for (let i = 0; i < n; i++) hashes[i] = universe[randomBelow(8)]; // likely heads
        const longest = index.match(hashes, n, active, endpoints, out);
        let modelLongest = 0;
        for (let s = 0; s < endpoints; s++) {
          expect<i32>(out[s]).toBe(model.match(s, hashes, n));
          modelLongest = max(modelLongest, out[s]);
        }
        expect<i32>(longest).toBe(modelLongest, "match returns the longest match");
      } else if (op < 95) {
        const cap = randomBelow(capacity + 5) - 2;
        index.setCapacity(slot, cap);
        model.setCapacity(slot, cap);
      } else {
        index.purge(slot);
        model.purge(slot);
      }
      if (step % 50 == 0) expectSameAsModel(index, model, universe);
    }
    expectSameAsModel(index, model, universe);
  });

  it("agrees on chains longer than record's first-pass lookups, their members evicted and re-recorded mid-chain", () => {
    // Full slots whose chains (up to 130 hashes, record keeps the first 64 lookups of its first pass) repeat and
    // overlap: a chain member found by the first pass is often the tail that an earlier-processed new hash evicts.
    const endpoints = 2;
    const capacity = 100;
    const index = new PrefixIndex(endpoints, capacity);
    const model = new ModelIndex(endpoints, capacity);
    const universe = new Array<u64>();
    for (let i = 0; i < 260; i++) universe.push(nextRandom());
    const hashes = new StaticArray<u64>(130);
    for (let step = 0; step < 600; step++) {
      const slot = randomBelow(endpoints);
      const n = randomBelow(131);
      const start = randomBelow(universe.length);
      const stride = 1 + randomBelow(3);
      for (let i = 0; i < n; i++) hashes[i] = universe[(start + i * stride) % universe.length];
      index.record(slot, hashes, n, 0);
      model.record(slot, hashes, n);
      if (step % 25 == 0) expectSameAsModel(index, model, universe);
    }
    expectSameAsModel(index, model, universe);
  });

  it("agrees on chains that begin with the slot's most recent entries, their rest evicting or repeating them", () => {
    const endpoints = 2;
    const capacity = 10;
    const index = new PrefixIndex(endpoints, capacity);
    const model = new ModelIndex(endpoints, capacity);
    // A small universe: a chain's rest often repeats one of its beginning's hashes, and evictions reach them.
    const universe = new Array<u64>();
    for (let i = 0; i < 24; i++) universe.push(<u64>(i + 1));
    const previous = new Array<StaticArray<u64>>();
    const previousLength = new Array<i32>();
    for (let s = 0; s < endpoints; s++) {
      previous.push(new StaticArray<u64>(16));
      previousLength.push(0);
    }
    const hashes = new StaticArray<u64>(16);
    for (let step = 0; step < 3000; step++) {
      const slot = randomBelow(endpoints);
      const kept = randomBelow(previousLength[slot] + 1);
      const n = kept + randomBelow(16 - kept);
      for (let i = 0; i < n; i++) hashes[i] = i < kept ? previous[slot][i] : universe[randomBelow(universe.length)];
      index.record(slot, hashes, n, 0);
      model.record(slot, hashes, n);
      for (let i = 0; i < n; i++) previous[slot][i] = hashes[i];
      previousLength[slot] = n;
      if (step % 7 == 0) index.setCapacity(slot, step % 14 == 0 ? capacity : capacity - 3), model.setCapacity(slot, step % 14 == 0 ? capacity : capacity - 3);
      expectSameAsModel(index, model, universe);
    }
  });

  it("agrees on when each entry was recorded, for chains held at the front, linked further back, or scattered", () => {
    // Chains often repeat an earlier one of their slot whole or in part, so record meets their entries at the list's
    // front (the run moved whole), linked in order behind other chains (taken from the list), or apart; capacities
    // change so that the rest of a chain evicts some of them. Every entry must carry its last record's time.
    const endpoints = 3;
    const capacity = 40;
    const index = new PrefixIndex(endpoints, capacity);
    const model = new ModelIndex(endpoints, capacity);
    const universe = new Array<u64>();
    for (let i = 0; i < 90; i++) universe.push(nextRandom());
    const earlier = new Array<StaticArray<u64>>();
    const earlierLength = new Array<i32>();
    for (let c = 0; c < 6; c++) {
      earlier.push(new StaticArray<u64>(30));
      earlierLength.push(0);
    }
    const hashes = new StaticArray<u64>(30);
    for (let step = 1; step <= 1500; step++) {
      const slot = randomBelow(endpoints);
      const source = randomBelow(earlier.length);
      const kept = randomBelow(earlierLength[source] + 1);
      const n = kept + randomBelow(31 - kept);
      const scattered = randomBelow(4) == 0;
      for (let i = 0; i < n; i++) {
        hashes[i] = i < kept && !scattered ? earlier[source][i] : universe[randomBelow(universe.length)];
      }
      const atMs = <f64>step * 16;
      index.record(slot, hashes, n, atMs);
      model.record(slot, hashes, n, atMs);
      for (let i = 0; i < n; i++) earlier[source][i] = hashes[i];
      earlierLength[source] = n;
      if (step % 11 == 0) {
        const cap = 8 + randomBelow(capacity - 7);
        index.setCapacity(slot, cap);
        model.setCapacity(slot, cap);
      }
      if (step % 5 != 0) continue;
      expectSameAsModel(index, model, universe);
      let stampErrors = 0;
      for (let s = 0; s < endpoints; s++) {
        const list = model.lists[s];
        for (let k = 0; k < list.length; k++) {
          const at = model.times[s].get(list[k]);
          if (!index.recordedSince(s, list[k], at) || index.recordedSince(s, list[k], at + 16)) stampErrors++;
        }
      }
      expect<i32>(stampErrors).toBe(0, "entries whose recording time differs from the model");
    }
  });

  it("agrees on long chains holding a hash twice, on both sides of the first pass's lookups, while they evict", () => {
    // record()'s second pass skips the find for a hash its first pass did not find unless it inserted one with the same
    // mark itself: a chain holding a hash twice, the later copy (recorded first) past the lookups the first pass keeps
    // or within them, the chain beginning with the slot's most recent entries or not, its new hashes evicting.
    const endpoints = 2;
    const capacity = 120;
    const index = new PrefixIndex(endpoints, capacity);
    const model = new ModelIndex(endpoints, capacity);
    const universe = new Array<u64>();
    for (let i = 0; i < 300; i++) universe.push(nextRandom());
    const previous = new Array<StaticArray<u64>>();
    const previousLength = new Array<i32>();
    for (let s = 0; s < endpoints; s++) {
      previous.push(new StaticArray<u64>(150));
      previousLength.push(0);
    }
    const hashes = new StaticArray<u64>(150);
    for (let step = 0; step < 800; step++) {
      const slot = randomBelow(endpoints);
      const kept = randomBelow(3) == 0 ? randomBelow(previousLength[slot] + 1) : 0;
      const n = kept + randomBelow(151 - kept);
      for (let i = 0; i < n; i++) {
        if (i < kept) hashes[i] = previous[slot][i];
        else hashes[i] = i > 0 && randomBelow(5) == 0 ? hashes[randomBelow(i)] : universe[randomBelow(universe.length)];
      }
      index.record(slot, hashes, n, 0);
      model.record(slot, hashes, n);
      for (let i = 0; i < n; i++) previous[slot][i] = hashes[i];
      previousLength[slot] = n;
      if (step % 9 == 0) {
        const cap = 60 + randomBelow(capacity - 59);
        index.setCapacity(slot, cap);
        model.setCapacity(slot, cap);
      }
      expectSameAsModel(index, model, universe);
    }
  });

  it("stays consistent under heavy churn at full load (backward-shift deletion)", () => {
    // A full pool puts the table at its maximum load factor of 0.25, so probe runs are longest and every eviction
    // shifts entries. Keys from every slot share values to collide on hash while differing by slot.
    const endpoints = 4;
    const capacity = 64;
    const index = new PrefixIndex(endpoints, capacity);
    const model = new ModelIndex(endpoints, capacity);
    const universe = new Array<u64>();
    for (let i = 0; i < 400; i++) universe.push(nextRandom());
    const hashes = new StaticArray<u64>(16);
    for (let step = 0; step < 4000; step++) {
      const slot = randomBelow(endpoints);
      if (randomBelow(200) == 0) {
        index.purge(slot);
        model.purge(slot);
      } else {
        const n = 1 + randomBelow(16);
        for (let i = 0; i < n; i++) hashes[i] = universe[randomBelow(universe.length)];
        index.record(slot, hashes, n, 0);
        model.record(slot, hashes, n);
      }
      if (step % 400 == 0) expectSameAsModel(index, model, universe);
    }
    expectSameAsModel(index, model, universe);
  });
});

describe("PrefixIndex table layout", () => {
  it("spreads a prefix shared by every endpoint over the table instead of one probe run", () => {
    const endpoints = 64;
    const index = new PrefixIndex(endpoints, 64);
    const shared = new StaticArray<u64>(64);
    for (let i = 0; i < 64; i++) shared[i] = <u64>(i + 1) * 0x100000001b3;
    for (let s = 0; s < endpoints; s++) index.record(s, shared, 64, 0);
    expect<i32>(index.totalEntries()).toBe(endpoints * 64);
    // Keyed on the hash alone, the 64 copies of each hash would share a home bucket: displacement >= 63.
    expect<bool>(index.maxDisplacement() < 40).toBe(true);
    expect<bool>(index.isConsistent()).toBe(true);
  });
});

describe("PrefixIndex probe bound", () => {
  it("keeps every bucket within the probe bound when completely full, with eviction order unchanged", () => {
    const index = new PrefixIndex(8, 512);
    let x: u64 = 0x243f6a8885a308d3;
    const hashes = new StaticArray<u64>(64);
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 64; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        hashes[i] = x;
      }
      index.record(round & 7, hashes, 64, 0);
    }
    expect<i32>(index.totalEntries()).toBe(8 * 512);
    expect<bool>(index.maxDisplacement() <= <i32>PREFIX_INDEX_MAX_PROBE).toBe(true);
    expect<bool>(index.isConsistent()).toBe(true);
    // The last chain recorded is fully present, head first.
    const active = slots([7]);
    const out = new StaticArray<i32>(8);
    index.match(hashes, 64, active, 1, out);
    expect<i32>(out[7]).toBe(64);
  });

  it("skips a hash whose insertion would exceed the probe bound, and stays correct for the rest", () => {
    // One endpoint x 64 entries: a 256-bucket table, home = the top 8 bits of the mixed key.
    const index = new PrefixIndex(1, 64);
    const colliding = new StaticArray<u64>(40);
    let found = 0;
    for (let h: u64 = 1; found < 40; h++) {
      if ((mixKey(h, 0) >> 56) == 5) colliding[found++] = h;
    }
    // Recorded one by one (each its own one-hash chain), so the probe run from bucket 5 only grows.
    let recorded = 0;
    for (let i = 0; i < 40; i++) {
      const one = new StaticArray<u64>(1);
      one[0] = colliding[i];
      index.record(0, one, 1, 0);
      if (index.has(0, colliding[i])) recorded++;
    }
    expect<i32>(recorded).toBe(<i32>PREFIX_INDEX_MAX_PROBE + 1);
    expect<i32>(index.skipped).toBe(40 - recorded);
    expect<bool>(index.maxDisplacement() <= <i32>PREFIX_INDEX_MAX_PROBE).toBe(true);
    expect<bool>(index.isConsistent()).toBe(true);
    for (let i = 0; i < recorded; i++) expect<bool>(index.has(0, colliding[i])).toBe(true);
  });
});

describe("PrefixIndex record of a chain whose member is evicted before its turn", () => {
  it("records the member anew when the entry it had was evicted and left free (its successor skipped at the bound)", () => {
    // One endpoint x 64 entries: a 256-bucket table, home = the top 8 bits of the mixed key.
    const index = new PrefixIndex(1, 64);
    const withHome = (home: u64, from: u64): u64 => {
      let h = from;
      while ((mixKey(h, 0) >> 56) != home) h++;
      return h;
    };
    const a = withHome(200, 1);
    const one = new StaticArray<u64>(1);
    one[0] = a;
    index.record(0, one, 1, 0); // the least recently used entry from here on
    let h: u64 = 1;
    for (let i = 0; i <= <i32>PREFIX_INDEX_MAX_PROBE; i++) {
      h = withHome(5, h + 1); // a run from bucket 5 up to the probe bound
      one[0] = h;
      index.record(0, one, 1, 0);
    }
    for (let home: u64 = 100; index.size(0) < 64; home++) {
      one[0] = withHome(home, 1);
      index.record(0, one, 1, 0);
    }
    const b = withHome(5, h + 1); // would sit past the bound
    const ab = new StaticArray<u64>(2);
    ab[0] = a;
    ab[1] = b;
    // b comes first: it evicts a (the tail), then is skipped; a, found before that, must be recorded anew.
    index.record(0, ab, 2, 0);
    expect<i32>(index.skipped).toBe(1);
    expect<bool>(index.has(0, a)).toBe(true);
    expect<bool>(index.has(0, b)).toBe(false);
    expect<i32>(index.size(0)).toBe(64);
    expect<bool>(index.isConsistent()).toBe(true);
  });
});

describe("PrefixIndex memory", () => {
  it("clamps degenerate sizes to a usable index", () => {
    const index = new PrefixIndex(0, -4);
    expect<i32>(index.maxEndpoints).toBe(1);
    expect<i32>(index.capacityPerEndpoint).toBe(1);
    record(index, 0, [3, 4]);
    expect<i32>(index.size(0)).toBe(1);
    expect<bool>(index.has(0, 3)).toBe(true);
  });

  it("stays within about 36 bytes per entry, including the table", () => {
    const endpointCounts: i32[] = [1, 3, 8, 17, 64];
    const capacities: i32[] = [64, 100, 1000, 1025, 4096];
    for (let i = 0; i < endpointCounts.length; i++) {
      for (let j = 0; j < capacities.length; j++) {
        const entries = <u64>(endpointCounts[i] * capacities[j]);
        const bytes = PrefixIndex.bytesFor(endpointCounts[i], capacities[j]);
        // At least the 16-byte entry, its 4-byte stamp and four 4-byte table buckets per entry (load factor
        // <= 0.25), and fewer than eight buckets (the table is the next power of two); a slot's 128 B of head counts
        // add 2 B per entry at 64 per slot.
        expect<bool>(bytes >= entries * 36).toBe(true);
        expect<bool>(<f64>bytes / <f64>entries <= 54.75).toBe(true);
      }
    }
    const index = new PrefixIndex(16, 4096);
    expect<f64>(index.bytesPerEntry()).toBe(<f64>PrefixIndex.bytesFor(16, 4096) / <f64>(16 * 4096));
    // A power-of-two pool needs exactly 4 buckets per entry; the head counts add a bit per entry and 128 B per slot.
    expect<bool>(index.bytesPerEntry() <= 36.2).toBe(true);
  });
});

/** Multiplicative inverse of an odd u64 modulo 2^64 (Newton's iteration doubles the correct bits each step). */
function inverseOdd(a: u64): u64 {
  let x = a;
  for (let i = 0; i < 6; i++) x *= 2 - a * x;
  return x;
}

/** The hash whose mixKey(hash, slot) is `mixed`: mixKey xors in a slot constant, then multiplies by an odd one. */
function hashWithMixedKey(mixed: u64, slot: i32): u64 {
  const step = mixKey(1, slot) - mixKey(0, slot); // +- the multiplier, depending on the slot constant's low bit
  for (let sign = 0; sign < 2; sign++) {
    const inverse = inverseOdd(sign == 0 ? step : 0 - step);
    const slotConstant = mixKey(0, slot) * inverse;
    const hash = (mixed * inverse) ^ slotConstant;
    if (mixKey(hash, slot) == mixed) return hash;
  }
  return 0;
}

describe("PrefixIndex crafted collisions", () => {
  it("never matches a hash that shares its home bucket and tag with recorded ones", () => {
    // Two endpoints x 64 entries: a 512-bucket table; home and tag are the top bits of the mixed key. Every key
    // below has the same 32 top bits for slot 0, so the same home and the same tag, whatever the tag width.
    const index = new PrefixIndex(2, 64);
    const colliding = new StaticArray<u64>(40);
    for (let i = 0; i < 40; i++) {
      colliding[i] = hashWithMixedKey((<u64>0x5a5a5a5a << 32) | <u64>(i * 0x9e37 + 1), 0);
      expect<u64>(mixKey(colliding[i], 0) >> 32).toBe(0x5a5a5a5a);
    }
    // Even ones recorded for slot 0 (a 20-bucket run from one home), odd ones for slot 1.
    for (let i = 0; i < 40; i += 2) record(index, 0, [colliding[i]]);
    for (let i = 1; i < 40; i += 2) record(index, 1, [colliding[i]]);
    expect<i32>(index.skipped).toBe(0);
    expect<bool>(index.isConsistent()).toBe(true);
    for (let i = 0; i < 40; i++) {
      expect<bool>(index.has(0, colliding[i])).toBe(i % 2 == 0);
      expect<bool>(index.has(1, colliding[i])).toBe(i % 2 == 1);
    }
    // A chain stops at its first colliding hash that slot 0 does not hold.
    expect<i32>(matchOne(index, 0, [colliding[0], colliding[2], colliding[38], colliding[3], colliding[4]])).toBe(3);
    expect<i32>(matchOne(index, 1, [colliding[1], colliding[39], colliding[2]])).toBe(2);
    // Evicting some of the run shifts the rest back; the survivors still match and the evicted ones do not.
    index.setCapacity(0, 5);
    let present = 0;
    for (let i = 0; i < 40; i += 2) if (index.has(0, colliding[i])) present++;
    expect<i32>(present).toBe(5);
    for (let i = 30; i < 40; i += 2) expect<bool>(index.has(0, colliding[i])).toBe(true); // the 5 most recent
    expect<bool>(index.isConsistent()).toBe(true);
  });
});

describe("PrefixIndex at a completely full pool", () => {
  it("keeps probes within the bound and evicts least recently used first", () => {
    // 16 x 1,024 entries in a 65,536-bucket table: the maximum load factor of 0.25 once every slot is full.
    const endpoints = 16;
    const capacity = 1024;
    const index = new PrefixIndex(endpoints, capacity);
    const hashes = new StaticArray<u64>(capacity);
    for (let round = 0; round < 3; round++) {
      for (let s = 0; s < endpoints; s++) {
        for (let i = 0; i < capacity; i++) hashes[i] = nextRandom();
        index.record(s, hashes, capacity, 0);
      }
    }
    expect<i32>(index.totalEntries()).toBe(endpoints * capacity);
    expect<i32>(index.skipped).toBe(0);
    expect<bool>(index.maxDisplacement() <= <i32>PREFIX_INDEX_MAX_PROBE).toBe(true);
    expect<bool>(index.isConsistent()).toBe(true);
    // hashes now fills slot 15, head most recent: hashes[capacity - 1] is the least recently used.
    const slot = endpoints - 1;
    const one = new StaticArray<u64>(1);
    one[0] = hashes[capacity - 3];
    index.record(slot, one, 1, 0); // refreshed: no longer among the oldest
    const fresh = new StaticArray<u64>(3);
    for (let i = 0; i < 3; i++) fresh[i] = nextRandom();
    index.record(slot, fresh, 3, 0);
    expect<i32>(index.size(slot)).toBe(capacity);
    expect<bool>(index.has(slot, hashes[capacity - 1])).toBe(false);
    expect<bool>(index.has(slot, hashes[capacity - 2])).toBe(false);
    expect<bool>(index.has(slot, hashes[capacity - 3])).toBe(true);
    expect<bool>(index.has(slot, hashes[capacity - 4])).toBe(false);
    expect<bool>(index.has(slot, hashes[capacity - 5])).toBe(true);
    for (let i = 0; i < 3; i++) expect<bool>(index.has(slot, fresh[i])).toBe(true);
    // The other slots are untouched: their last chains are whole.
    expect<i32>(index.totalEntries()).toBe(endpoints * capacity);
    expect<i32>(matchOne(index, slot, [hashes[0], hashes[1], hashes[2]])).toBe(3);
    expect<bool>(index.isConsistent()).toBe(true);
  });
});

describe("PrefixIndex probe bound after deletions", () => {
  it("admits a colliding hash again once deletion has shifted the run below the bound, and never past it", () => {
    // One endpoint x 64 entries: a 256-bucket table; all 40 keys have home bucket 10 (the top 8 bits).
    const index = new PrefixIndex(1, 64);
    const colliding = new StaticArray<u64>(40);
    for (let i = 0; i < 40; i++) colliding[i] = hashWithMixedKey((<u64>5 << 57) | <u64>(i * 0x10001 + 7), 0);
    const bound = <i32>PREFIX_INDEX_MAX_PROBE;
    for (let i = 0; i <= bound + 1; i++) record(index, 0, [colliding[i]]);
    expect<i32>(index.size(0)).toBe(bound + 1); // distances 0..MAX_PROBE; the next one was skipped
    expect<i32>(index.skipped).toBe(1);
    expect<i32>(index.maxDisplacement()).toBe(bound);
    // Evicting the least recent shifts the run back: nothing sits at the bound any more.
    index.setCapacity(0, bound);
    expect<bool>(index.has(0, colliding[0])).toBe(false);
    expect<i32>(index.maxDisplacement()).toBe(bound - 1);
    expect<bool>(index.isConsistent()).toBe(true);
    index.setCapacity(0, 64);
    record(index, 0, [colliding[bound + 2]]);
    expect<bool>(index.has(0, colliding[bound + 2])).toBe(true);
    expect<i32>(index.maxDisplacement()).toBe(bound);
    record(index, 0, [colliding[bound + 3]]);
    expect<bool>(index.has(0, colliding[bound + 3])).toBe(false);
    expect<i32>(index.skipped).toBe(2);
    expect<i32>(index.maxDisplacement()).toBe(bound);
    expect<bool>(index.isConsistent()).toBe(true);
    for (let i = 1; i <= bound; i++) expect<bool>(index.has(0, colliding[i])).toBe(true);
  });
});

describe("PrefixIndex probe length (bench diagnostics)", () => {
  it("counts the buckets a lookup reads: the run up to the key, or up to the run's end for a missing key", () => {
    // One endpoint x 64 entries: a 256-bucket table; the keys all have home bucket 10, so the i-th recorded sits at
    // distance i (equal distances do not displace each other).
    const index = new PrefixIndex(1, 64);
    const colliding = new StaticArray<u64>(6);
    for (let i = 0; i < 6; i++) colliding[i] = hashWithMixedKey((<u64>5 << 57) | <u64>(i * 0x10001 + 7), 0);
    for (let i = 0; i < 5; i++) record(index, 0, [colliding[i]]);
    for (let i = 0; i < 5; i++) expect<i32>(index.probeLength(0, colliding[i])).toBe(i + 1);
    // Not held: the five buckets of the run, then the empty one after it.
    expect<i32>(index.probeLength(0, colliding[5])).toBe(-6);
    // A hash whose home is empty reads that bucket alone.
    expect<i32>(index.probeLength(0, hashWithMixedKey(<u64>200 << 56, 0))).toBe(-1);
    expect<i32>(index.probeLength(1, colliding[0])).toBe(0, "invalid slot");
  });

  it("names the index's memory regions, disjoint, in construction order", () => {
    const index = new PrefixIndex(4, 100);
    const regions = index.memoryRegions();
    expect<i32>(regions.length).toBe(10);
    // table: 4 buckets per entry, rounded up to a power of two (400 entries -> 2,048 buckets).
    expect<usize>(regions[1] - regions[0]).toBe(2048 * 4);
    expect<usize>(regions[3] - regions[2]).toBe(400 * 16); // records
    expect<usize>(regions[5] - regions[4]).toBe(400 * 4); // stamps
    expect<usize>(regions[7] - regions[6]).toBe(64 * 4 * 2); // head counts
    expect<usize>(regions[9] - regions[8]).toBe(((400 + 31) >> 5) * 4); // head flags
    for (let r = 0; r < 5; r++) {
      for (let q = 0; q < 5; q++) {
        if (q != r) expect<bool>(regions[2 * r + 1] <= regions[2 * q] || regions[2 * q + 1] <= regions[2 * r]).toBe(true);
      }
    }
  });
});

// Deterministic xorshift for the fuzz cases.
let fuzzState: u64 = 1;
function next(): u64 {
  fuzzState ^= fuzzState << 13;
  fuzzState ^= fuzzState >> 7;
  fuzzState ^= fuzzState << 17;
  return fuzzState;
}

describe("PrefixIndex matchFirstSlots", () => {
  it("gives match()'s matches and longest for slots 0 to count - 1, random chains, stamps and counts", () => {
    fuzzState = 0x9e3779b97f4a7c15;
    const endpoints = 23; // not a multiple of four: the last slots come one at a time
    const index = new PrefixIndex(endpoints, 64);
    // Chains sharing beginnings: a few roots, each continued differently per record.
    const roots: Array<u64> = [next(), next(), next()];
    const hashes = new StaticArray<u64>(8);
    const all = new StaticArray<i32>(endpoints);
    for (let s = 0; s < endpoints; s++) all[s] = s;
    const expected = new StaticArray<i32>(endpoints);
    const got = new StaticArray<i32>(endpoints);
    const since = new StaticArray<f64>(endpoints);
    let matchedRounds = 0;
    for (let round = 0; round < 300; round++) {
      const n = <i32>(next() % 9);
      hashes[0] = roots[<i32>(next() % 3)];
      for (let k = 1; k < 8; k++) hashes[k] = hashes[k - 1] * 31 + (next() % 3);
      if (n > 0) index.record(<i32>(next() % <u64>endpoints), hashes, n, <f64>(round * 20));
      for (let s = 0; s < endpoints; s++) since[s] = next() % 4 == 0 ? <f64>(<i32>(next() % 300) * 20) : -Infinity;
      const count = <i32>(next() % <u64>(endpoints + 1));
      const m = <i32>(next() % 9);
      const withSince = round % 2 == 0;
      for (let s = 0; s < endpoints; s++) {
        expected[s] = -7;
        got[s] = -7;
      }
      const longest = index.match(hashes, m, all, count, expected, withSince ? since : null);
      expect<i32>(index.matchFirstSlots(hashes, m, count, got, withSince ? since : null)).toBe(longest);
      for (let s = 0; s < endpoints; s++) expect<i32>(got[s]).toBe(expected[s]);
      if (longest > 1) matchedRounds++;
    }
    expect<i32>(matchedRounds).toBeGreaterThan(50, "rounds with a match of two chunks or more");
  });
});
