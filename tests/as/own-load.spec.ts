import { OwnLoad } from "../../assembly/core/own-load";

// The counts OwnLoad holds for a hash, found by visiting every bucket.
function countsOf(own: OwnLoad, hash: u64): i32[] {
  for (let b = 0; b < own.buckets; b++) {
    if (own.hashAt(b) == hash) return [own.inflightAtBucket(b), own.pendingAtBucket(b)];
  }
  return [-1, -1];
}

function hashOf(i: i32): u64 {
  return (<u64>i + 1) * 0x9e3779b97f4a7c15 + 12345;
}

describe("OwnLoad", () => {
  it("keeps per-endpoint counts that never go below zero, pending never above in flight", () => {
    const own = new OwnLoad();
    own.change(hashOf(1), 1, 1);
    own.change(hashOf(1), 1, 1);
    own.change(hashOf(1), 0, -1);
    expect(countsOf(own, hashOf(1))).toStrictEqual([2, 1]);
    expect(own.live).toBe(1);
    own.change(hashOf(1), -3, -3);
    expect(countsOf(own, hashOf(1))).toStrictEqual([0, 0]);
    expect(own.live).toBe(0);
    own.change(hashOf(2), -1, 0);
    expect(countsOf(own, hashOf(2))).toStrictEqual([-1, -1], "nothing outstanding to take back: no entry");
    own.change(0, 1, 1);
    expect(own.live).toBe(0, "hash 0 marks an empty bucket");
  });

  it("drops endpoints with nothing outstanding when full, keeping every live one", () => {
    const own = new OwnLoad();
    // 1,000 endpoints come and go; 24 stay busy.
    for (let i = 0; i < 1024; i++) own.change(hashOf(i), 1, 1);
    for (let i = 24; i < 1024; i++) own.change(hashOf(i), -1, -1);
    expect(own.live).toBe(24);
    // Another 2,000 endpoints come and go: the table must make room again and again.
    for (let i = 2000; i < 4000; i++) {
      own.change(hashOf(i), 1, 0);
      expect(countsOf(own, hashOf(i))[0]).toBe(1, "a new endpoint finds room");
      own.change(hashOf(i), -1, 0);
    }
    expect(own.live).toBe(24);
    for (let i = 0; i < 24; i++) expect(countsOf(own, hashOf(i))).toStrictEqual([1, 1], "a busy endpoint keeps its counts");
    // And each live entry is still found by its own probe: another change reaches it.
    for (let i = 0; i < 24; i++) own.change(hashOf(i), 1, 0);
    for (let i = 0; i < 24; i++) expect(countsOf(own, hashOf(i))).toStrictEqual([2, 1]);
    expect(own.live).toBe(24);
  });
});
