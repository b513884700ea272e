import { HashIndex, hashBucket } from "../../assembly/core/hash-index";

describe("HashIndex", () => {
  it("finds every index put since the last clear, and nothing else", () => {
    const index = new HashIndex(7);
    for (let round = 0; round < 2; round++) {
      index.clear();
      // 64 hashes in 128 buckets, many sharing a bucket (the same top bits after the multiply).
      for (let i = 0; i < 64; i++) index.put((<u64>i * 0x10000000000) + <u64>round, i);
      for (let i = 0; i < 64; i++) expect(index.get((<u64>i * 0x10000000000) + <u64>round)).toBe(i);
      expect(index.get(<u64>1 << 63)).toBe(-1);
      if (round == 1) expect(index.get(0)).toBe(-1, "cleared: round 0's hashes are gone");
    }
  });

  it("takes a bucket from a hash's top bits", () => {
    expect(hashBucket(0, 7)).toBe(0);
    for (let i: u64 = 1; i < 1000; i++) {
      const b = hashBucket(i * 0x2545f4914f6cdd1d, 7);
      expect(b >= 0 && b < 128).toBe(true);
    }
  });
});

// A reference: the live (hash, index) pairs, each index at most once.
class Entry {
  constructor(public hash: u64, public index: i32) {}
}

/** The indices put under `hash`, in the order a walk with seek finds them. */
function walk(index: HashIndex, hash: u64): i32[] {
  const found: i32[] = [];
  let b = index.seek(hash, index.start(hash));
  while (b >= 0) {
    found.push(index.indexAt(b));
    b = index.seek(hash, index.next(b));
  }
  return found;
}

function sorted(a: i32[]): i32[] {
  const c = a.slice(0);
  c.sort((x: i32, y: i32): i32 => x - y);
  return c;
}

function expected(live: Entry[], hash: u64): i32[] {
  const out: i32[] = [];
  for (let i = 0; i < live.length; i++) if (live[i].hash == hash) out.push(live[i].index);
  return sorted(out);
}

describe("HashIndex probe past a hash match", () => {
  it("walks every entry put under a hash, whoever else shares its buckets, and nothing else", () => {
    const index = new HashIndex(4);
    index.clear();
    // Three entries under one hash, two under another that starts in the same bucket, across the table's end.
    let a: u64 = 1;
    while (index.start(a) != 15) a++;
    let b: u64 = a + 1;
    while (index.start(b) != 15) b++;
    index.put(a, 0);
    index.put(b, 1);
    index.put(a, 2);
    index.put(b, 3);
    index.put(a, 4);
    expect(walk(index, a)).toStrictEqual([0, 2, 4]);
    expect(walk(index, b)).toStrictEqual([1, 3]);
    expect(index.get(a)).toBe(0, "get stops at the first");
    expect(walk(index, 12345).length).toBe(0);
  });

  it("agrees with a reference map over puts and removals, with colliding hashes and wrap-around", () => {
    const bits: u64 = 6;
    const index = new HashIndex(bits);
    index.clear();
    const live: Entry[] = [];
    // Eight hashes, all starting in the last buckets (top bits), so probes wrap to bucket 0.
    const hashes: u64[] = [];
    for (let h: u64 = 0; hashes.length < 8; h++) if (hashBucket(h, bits) >= 60) hashes.push(h);
    let rng: u32 = 12345;
    let nextIndex = 0;
    for (let step = 0; step < 4000; step++) {
      rng = rng * 1664525 + 1013904223;
      const hash = hashes[<i32>(rng >> 8) % hashes.length];
      // At most 32 live entries in 64 buckets: half full, as the table requires.
      if (live.length < 32 && ((rng >> 20) & 1) == 0) {
        index.put(hash, nextIndex);
        live.push(new Entry(hash, nextIndex));
        nextIndex++;
      } else if (live.length > 0) {
        const k = <i32>(rng >> 4) % live.length;
        const gone = live[k];
        let bucket = index.seek(gone.hash, index.start(gone.hash));
        while (bucket >= 0 && index.indexAt(bucket) != gone.index) bucket = index.seek(gone.hash, index.next(bucket));
        expect(bucket >= 0).toBe(true, "a live entry is found");
        index.removeAt(bucket);
        live.splice(k, 1);
      }
      for (let i = 0; i < hashes.length; i++) expect(sorted(walk(index, hashes[i]))).toStrictEqual(expected(live, hashes[i]));
    }
  });
});
