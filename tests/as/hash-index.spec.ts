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
