import { equalsLowerAscii, equalsLowerWord32, equalsLowerWord64, lowerAscii32, lowerAscii64 } from "../../assembly/text/ascii-fold";
import { equalsIgnoreCase } from "../../assembly/text/ascii";

/** The byte-at-a-time reference: 'A'..'Z' lowered, every other byte as it is. */
function lowerByte(c: u32): u32 {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

describe("lowerAscii64 / lowerAscii32", () => {
  it("lower each byte as the byte-at-a-time reference does, for every byte value in every lane", () => {
    let wrong = 0;
    for (let lane = 0; lane < 8; lane++) {
      for (let b: u32 = 0; b < 256; b++) {
        // The other lanes hold neighbours of the case range, so a carry or borrow between lanes would show.
        const fill: u64 = 0x5a41405b607a7b61;
        const x = (fill & ~(<u64>0xff << (<u64>lane * 8))) | (<u64>b << (<u64>lane * 8));
        let expected: u64 = 0;
        for (let k = 0; k < 8; k++) expected |= <u64>lowerByte(<u32>((x >> (<u64>k * 8)) & 0xff)) << (<u64>k * 8);
        if (lowerAscii64(x) != expected) wrong++;
        if (lane < 4 && <u64>lowerAscii32(<u32>x) != (expected & 0xffffffff)) wrong++;
      }
    }
    expect(wrong).toBe(0);
  });
});

describe("equalsLowerWord64 / equalsLowerWord32", () => {
  it("agree with folding then comparing, for every byte value in every lane against lower-case words", () => {
    // Words the gate compares names with, and ones one case bit or one other bit away from them.
    const lowers: u64[] = [0x2d746e65746e6f63, 0x646f6874656d3a00, 0x7461726770752d00, 0x6e6f69746365];
    let wrong = 0;
    let exact = 0;
    let folded = 0;
    for (let w = 0; w < lowers.length; w++) {
      const lower = lowers[w];
      for (let lane = 0; lane < 8; lane++) {
        for (let b: u64 = 0; b < 256; b++) {
          const x = (lower & ~(<u64>0xff << (<u64>lane * 8))) | (b << (<u64>lane * 8));
          const upper = x & ~(<u64>0x20 << (<u64>((lane + 1) & 7) * 8)); // another lane's case bit cleared too
          const candidates: u64[] = [x, upper];
          for (let k = 0; k < candidates.length; k++) {
            const y = candidates[k];
            const expected = lowerAscii64(y) == lower;
            if (equalsLowerWord64(y, lower) != expected) wrong++;
            if (lane < 4 && equalsLowerWord32(<u32>y, <u32>lower) != (lowerAscii32(<u32>y) == <u32>lower)) wrong++;
            if (expected && y == lower) exact++;
            if (expected && y != lower) folded++;
          }
        }
      }
    }
    expect(wrong).toBe(0);
    // Both ways to equal were taken.
    expect(exact).toBeGreaterThan(0);
    expect(folded).toBeGreaterThan(0);
  });
});

describe("equalsLowerAscii", () => {
  it("agrees with equalsIgnoreCase for one byte changed to any value at any position, at every length to 40", () => {
    const text = "x-gateway-destination-endpoint:0123456789";
    const buf = new ArrayBuffer(48);
    const p = changetype<usize>(buf);
    let disagreements = 0;
    for (let len = 0; len <= 40; len++) {
      const lit = text.substring(0, len);
      const bytes = String.UTF8.encode(lit);
      for (let i = 0; i < len; i++) store<u8>(p + <usize>i, <u8>lit.charCodeAt(i));
      expect(equalsLowerAscii(p, <usize>len, bytes)).toBe(true);
      expect(equalsLowerAscii(p, <usize>len + 1, bytes)).toBe(false, "another length");
      for (let i = 0; i < len; i++) {
        const kept = load<u8>(p + <usize>i);
        for (let b = 0; b < 256; b++) {
          store<u8>(p + <usize>i, <u8>b);
          if (equalsLowerAscii(p, <usize>len, bytes) != equalsIgnoreCase(p, <usize>len, lit)) disagreements++;
        }
        store<u8>(p + <usize>i, kept);
      }
    }
    expect(disagreements).toBe(0);
  });

  it("ignores the case of letters only", () => {
    const name = String.UTF8.encode("content-type");
    const upper = String.UTF8.encode("CONTENT-TYPE");
    const mixed = String.UTF8.encode("Content-Type");
    expect(equalsLowerAscii(changetype<usize>(upper), 12, name)).toBe(true);
    expect(equalsLowerAscii(changetype<usize>(mixed), 12, name)).toBe(true);
    // '\r' | 0x20 is '-': a fold by OR alone would take it for one.
    const cr = String.UTF8.encode("content\rtype");
    expect(equalsLowerAscii(changetype<usize>(cr), 12, name)).toBe(false);
  });
});
