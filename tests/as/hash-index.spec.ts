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
});
