import { hintPositions } from "../../assembly/prefix/shared-hints";
import { extendsTail, tailCarriers } from "../../assembly/prefix/conversation-tail";

function positions(n: i32): Array<i32> {
  const out = new StaticArray<i32>(8);
  const count = hintPositions(n, out);
  const result = new Array<i32>();
  for (let i = 0; i < count; i++) result.push(out[i]);
  return result;
}

function isPowerLandmark(p: i32): bool {
  return ((p + 1) & p) == 0;
}

describe("shared prefix hint positions", () => {
  it("are the two longest 16k - 1 positions, then the 2^k - 1 positions below them, longest first, at most 8", () => {
    expect(positions(0).length).toBe(0);
    const one = positions(1);
    expect(one.length).toBe(1);
    expect(one[0]).toBe(0);
    const ten = positions(10); // below one stride: powers only
    expect(ten.toString()).toBe("7,3,1,0");
    const forty = positions(40);
    expect(forty.toString()).toBe("31,15,7,3,1,0");
    const long = positions(1024);
    expect(long.toString()).toBe("1023,1007,511,255,127,63,31,15");
  });

  it("are strictly decreasing, inside the chain, and never more than 8", () => {
    for (let n = 1; n <= 3000; n += 7) {
      const p = positions(n);
      expect(p.length <= 8).toBe(true);
      for (let i = 0; i < p.length; i++) {
        expect(p[i] < n).toBe(true);
        if (i > 0) expect(p[i] < p[i - 1]).toBe(true);
      }
    }
  });

  it("a next turn that grows by up to one stride meets the previous turn's longest position", () => {
    for (let n = 16; n <= 1000; n += 3) {
      const top = positions(n)[0];
      for (let grow = 1; grow <= 16; grow++) expect(positions(n + grow).includes(top)).toBe(true);
    }
  });

  it("two chains sharing a long prefix share a power-of-two position inside it", () => {
    for (let shared = 16; shared <= 512; shared += 5) {
      const a = positions(shared + 3);
      const b = positions(shared + 200);
      let common = -1;
      for (let i = 0; i < a.length; i++) if (isPowerLandmark(a[i]) && a[i] < shared && b.includes(a[i])) common = max(common, a[i]);
      expect(common >= 0).toBe(true);
      expect(common + 1 > shared / 2).toBe(true);
    }
  });
});

describe("conversation tails", () => {
  it("a chain extends a tail exactly when it holds the tail's last hash at the tail's last position", () => {
    const hashes = new StaticArray<u64>(10);
    for (let i = 0; i < 10; i++) hashes[i] = <u64>(1000 + i);
    expect(extendsTail(hashes, 10, 6, 1005)).toBe(true);
    expect(extendsTail(hashes, 10, 10, 1009)).toBe(true);
    expect(extendsTail(hashes, 10, 6, 1006)).toBe(false);
    expect(extendsTail(hashes, 5, 6, 1005)).toBe(false, "a tail longer than the chain");
    expect(extendsTail(hashes, 10, 0, 1000)).toBe(false);
  });

  it("are carried by the longest landmark and the longest power-of-two landmark", () => {
    const out = new StaticArray<i32>(8);
    for (let n = 12; n <= 3000; n += 11) {
      const count = hintPositions(n, out);
      const mask = tailCarriers(out, count);
      expect(mask & 1).toBe(1);
      let firstPower = -1;
      for (let i = 0; i < count; i++) if (isPowerLandmark(out[i])) { firstPower = i; break; }
      for (let i = 1; i < count; i++) expect((mask >> <u32>i) & 1).toBe(i == firstPower ? 1 : 0);
      // Every longer chain probes the power-of-two carrier, however much it grew (past a one-chunk chain, whose
      // position 0 falls off the end of a long chain's eight positions).
      const carrier = out[firstPower];
      for (let grow = 1; grow <= 200; grow += 37) expect(positions(n + grow).includes(carrier)).toBe(true);
    }
  });
});
