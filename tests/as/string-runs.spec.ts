import { copyPlainAscii, plainRunLength } from "../../assembly/json/string-runs";
import { LEAD_BLOCK_BYTES, leadBytesIn8, leadBytesInBlock } from "../../assembly/text/utf8-lead-bytes";

// Run lengths cover whole 32-, 16- and 8-byte steps and every tail.
const MAX_LEN = 80;

function isStop(c: u32): bool {
  return c == 0x22 || c == 0x5c || c < 0x20;
}

function isPlainAscii(c: u32): bool {
  return !isStop(c) && c < 0x80;
}

/** A buffer of plain bytes 'a'..'z' with room on both sides. */
function plainBuffer(n: i32): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = <u8>(0x61 + (i % 26));
  return b;
}

describe("plainRunLength", () => {
  it("finds each stop byte at every position of inputs of every length", () => {
    const stops: u8[] = [0x22, 0x5c, 0x00, 0x0a, 0x1f];
    const buf = plainBuffer(MAX_LEN + 64);
    const p = buf.dataStart;
    let failures = 0;
    for (let len = 0; len <= MAX_LEN; len++) {
      if (plainRunLength(p, p + <usize>len) != <usize>len) failures++; // no stop: the whole input
      for (let at = 0; at < len; at++) {
        for (let s = 0; s < stops.length; s++) {
          buf[at] = stops[s];
          if (plainRunLength(p, p + <usize>len) != <usize>at) failures++;
          buf[at] = 0x61;
        }
      }
    }
    expect(failures).toBe(0);
  });

  it("passes bytes >= 0x80 and 0x7f (they are not stops)", () => {
    const buf = plainBuffer(MAX_LEN);
    for (let i = 0; i < MAX_LEN; i += 3) buf[i] = <u8>(0x7f + i);
    buf[MAX_LEN - 1] = 0x22;
    expect(plainRunLength(buf.dataStart, buf.dataStart + <usize>MAX_LEN)).toBe(<usize>(MAX_LEN - 1));
  });

  it("never looks past the limit: a stop just after it is not seen", () => {
    for (let len = 0; len <= MAX_LEN; len++) {
      const buf = plainBuffer(len + 64);
      for (let i = len; i < len + 64; i++) buf[i] = 0x22;
      expect(plainRunLength(buf.dataStart, buf.dataStart + <usize>len)).toBe(<usize>len);
    }
  });
});

describe("copyPlainAscii", () => {
  it("copies exactly the plain ASCII run, for every length, stop position and destination room", () => {
    const specials: u8[] = [0x22, 0x5c, 0x01, 0x80, 0xc3, 0xff];
    const src = new Uint8Array(MAX_LEN + 64);
    const dst = new Uint8Array(MAX_LEN + 64);
    let cases = 0;
    let failures = 0;
    for (let len = 0; len <= MAX_LEN; len++) {
      for (let at = 0; at <= len; at++) {
        for (let i = 0; i < src.length; i++) src[i] = <u8>(0x61 + (i % 26));
        if (at < len) src[at] = specials[(len + at) % specials.length];
        for (let room = 0; room <= len + 2; room += len < 20 ? 1 : 7) {
          dst.fill(0xee);
          const n = copyPlainAscii(src.dataStart, src.dataStart + <usize>len, dst.dataStart, dst.dataStart + <usize>room);
          const want = min(at, room);
          let ok = n == <usize>want;
          for (let i = 0; i < want; i++) ok = ok && dst[i] == src[i];
          for (let i = room; i < dst.length; i++) ok = ok && dst[i] == 0xee; // nothing written past the room
          cases++;
          if (!ok) failures++;
        }
      }
    }
    expect(cases).toBeGreaterThan(10000);
    expect(failures).toBe(0);
  });

  it("stops at every byte that is not plain ASCII", () => {
    for (let c = 0; c < 256; c++) {
      const src = plainBuffer(40);
      src[21] = <u8>c;
      const dst = new Uint8Array(40);
      const n = copyPlainAscii(src.dataStart, src.dataStart + 40, dst.dataStart, dst.dataStart + 40);
      expect(n).toBe(isPlainAscii(<u32>c) ? 40 : 21);
    }
  });
});

describe("UTF-8 lead bytes", () => {
  it("counts every byte value in every lane of a block", () => {
    const buf = new Uint8Array(<i32>LEAD_BLOCK_BYTES);
    let failures = 0;
    for (let c = 0; c < 256; c++) {
      for (let lane = 0; lane < <i32>LEAD_BLOCK_BYTES; lane++) {
        buf.fill(0x41);
        buf[lane] = <u8>c;
        const lead: usize = (c & 0xc0) == 0x80 ? 0 : 1;
        if (leadBytesInBlock(buf.dataStart) != LEAD_BLOCK_BYTES - 1 + lead) failures++;
        if (lane < 8 && leadBytesIn8(buf.dataStart) != 7 + lead) failures++;
      }
    }
    expect(failures).toBe(0);
  });

  it("counts mixed text like a byte-by-byte count", () => {
    const text = Uint8Array.wrap(String.UTF8.encode("naïve café — 中文 日本語 🙂 über ~ plain ascii words and more"));
    const buf = new Uint8Array(<i32>LEAD_BLOCK_BYTES);
    for (let off = 0; off + <i32>LEAD_BLOCK_BYTES <= text.length; off++) {
      let want: usize = 0;
      for (let i = 0; i < <i32>LEAD_BLOCK_BYTES; i++) {
        buf[i] = text[off + i];
        if ((text[off + i] & 0xc0) != 0x80) want++;
      }
      expect(leadBytesInBlock(buf.dataStart)).toBe(want);
    }
  });
});
