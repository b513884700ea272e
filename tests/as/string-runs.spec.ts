import { FIRST_BLOCK, copyFirstPlainBlock, copyPlainAscii, copyWellFormed, plainRunLength, stopInFirstBlock } from "../../assembly/json/string-runs";
import { multiByteSequenceLength } from "../../assembly/json/utf8";
import { LEAD_BLOCK_BYTES, leadBytesIn32, leadBytesInBlock, leadMaskIn32 } from "../../assembly/text/utf8-lead-bytes";

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

describe("one-block runs", () => {
  it("stopInFirstBlock is plainRunLength within the first block, -1 when the block passes the limit", () => {
    const specials: u8[] = [0x22, 0x5c, 0x00, 0x1f, 0x80, 0xff];
    const buf = plainBuffer(MAX_LEN + 64);
    const p = buf.dataStart;
    let failures = 0;
    for (let len = 0; len <= MAX_LEN; len++) {
      for (let at = -1; at < len; at++) {
        for (let s = 0; s < specials.length; s++) {
          if (at >= 0) buf[at] = specials[s];
          const run = <i32>plainRunLength(p, p + <usize>len);
          const expected = len < FIRST_BLOCK ? -1 : min(run, FIRST_BLOCK);
          if (stopInFirstBlock(p, p + <usize>len) != expected) failures++;
          if (at >= 0) buf[at] = 0x61;
        }
      }
    }
    expect(failures).toBe(0);
  });

  it("copyFirstPlainBlock is copyPlainAscii within the first block, and copies the block or nothing", () => {
    const specials: u8[] = [0x22, 0x5c, 0x00, 0x1f, 0x80, 0xff];
    const src = plainBuffer(MAX_LEN + 64);
    const dst = new Uint8Array(MAX_LEN + 64);
    let failures = 0;
    for (let len = 0; len <= 2 * FIRST_BLOCK; len++) {
      for (let room = 0; room <= 2 * FIRST_BLOCK; room++) {
        for (let at = -1; at < len; at++) {
          for (let s = 0; s < specials.length; s++) {
            if (at >= 0) src[at] = specials[s];
            dst.fill(0x2e);
            const got = copyFirstPlainBlock(src.dataStart, src.dataStart + <usize>len, dst.dataStart, dst.dataStart + <usize>room);
            let run = 0;
            while (run < len && isPlainAscii(<u32>src[run])) run++;
            const expected = len < FIRST_BLOCK || room < FIRST_BLOCK ? -1 : min(run, FIRST_BLOCK);
            if (got != expected) failures++;
            const copied = got < 0 ? 0 : FIRST_BLOCK;
            for (let i = 0; i < dst.length; i++) {
              if (dst[i] != (i < copied ? src[i] : 0x2e)) {
                failures++;
                break;
              }
            }
            if (at >= 0) src[at] = 0x61;
          }
        }
      }
    }
    expect(failures).toBe(0);
  });
});

/** Bytes copied by one of the bulk copies from [src, limit) to [dst, dEnd). */
type BulkCopy = (src: usize, limit: usize, dst: usize, dEnd: usize) => usize;

function plainCopy(src: usize, limit: usize, dst: usize, dEnd: usize): usize {
  return copyPlainAscii(src, limit, dst, dEnd);
}

function wellFormedCopy(src: usize, limit: usize, dst: usize, dEnd: usize): usize {
  return copyWellFormed(src, limit, dst, dEnd);
}

/**
 * Plain text with one byte that ends every run ('"', '\\', a control byte, a lone continuation byte, a lead byte
 * followed by ASCII, 0xFF) at every position of every length, copied into every room: the copy must take exactly
 * the bytes before it that fit, and write nothing past the room. Returns the failures (after checking there were
 * enough cases).
 */
function sweepStops(copy: BulkCopy): i32 {
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
        const n = copy(src.dataStart, src.dataStart + <usize>len, dst.dataStart, dst.dataStart + <usize>room);
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
  return failures;
}

/** Every byte value at position 21 of 40 plain letters: the copy passes it when plain ASCII, else stops there.
 *  Returns the byte values it got wrong. */
function bytesNotPassed(copy: BulkCopy): i32 {
  let wrong = 0;
  for (let c = 0; c < 256; c++) {
    const src = plainBuffer(40);
    src[21] = <u8>c;
    const dst = new Uint8Array(40);
    const n = copy(src.dataStart, src.dataStart + 40, dst.dataStart, dst.dataStart + 40);
    if (n != (isPlainAscii(<u32>c) ? 40 : 21)) wrong++;
  }
  return wrong;
}

describe("copyPlainAscii", () => {
  it("copies exactly the plain ASCII run, for every length, stop position and destination room", () => {
    expect(sweepStops(plainCopy)).toBe(0);
  });

  it("stops at every byte that is not plain ASCII", () => {
    expect(bytesNotPassed(plainCopy)).toBe(0);
  });
});

/**
 * What copyWellFormed may copy, one character at a time: plain ASCII and whole well-formed sequences that fit. Returns
 * the whole run's length; `n` (what copyWellFormed returned) must be the end of one of its characters, and where it is
 * short of the whole run, the start of a multi-byte character (the early return in dense multi-byte text).
 */
function wellFormedRun(src: usize, len: i32, room: i32, n: i32): i32 {
  let s = 0;
  let d = 0;
  let nAtBoundary = n == 0;
  while (s < len && d < room) {
    const c = <u32>load<u8>(src + <usize>s);
    let step = 1;
    if (!isPlainAscii(c)) {
      if (c < 0x80) break;
      step = multiByteSequenceLength(src + <usize>s, src + <usize>len);
      if (step <= 0 || d + step > room) break;
    }
    if (s == n && c >= 0x80) nAtBoundary = true;
    s += step;
    d += step;
  }
  if (n == s) nAtBoundary = true;
  return nAtBoundary ? s : -1;
}

// Pieces text is made of: plain ASCII, stops ('"', '\\', controls), well-formed sequences of every length, and
// ill-formed ones (a lone continuation byte, a truncated sequence, an overlong lead, a surrogate, a byte that starts
// no sequence, a truncated 4-byte sequence).
const PIECES: u8[][] = [
  [0x61], [0x62, 0x63], [0x7f], [0x22], [0x5c], [0x0a], [0x01],
  [0xc3, 0xa9], [0xe2, 0x80, 0x94], [0xe4, 0xb8, 0xad], [0xf0, 0x9f, 0x99, 0x82],
  [0x80], [0xe4, 0xb8], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf5], [0xf0, 0x9f, 0x99],
];

/** Checks copyWellFormed over [p, p + len) into `room` bytes against wellFormedRun; returns 1 on a failure, else 0.
 *  With `exact`, the copy must take the whole run (no early return). */
function checkCopy(p: usize, len: i32, room: i32, dst: Uint8Array, exact: bool): i32 {
  dst.fill(0xee);
  const n = <i32>copyWellFormed(p, p + <usize>len, dst.dataStart, dst.dataStart + <usize>room);
  const whole = wellFormedRun(p, len, room, n);
  let ok = whole >= 0 && n <= whole && (!exact || n == whole);
  for (let i = 0; i < n; i++) ok = ok && dst[i] == load<u8>(p + <usize>i);
  for (let i = room; i < dst.length; i++) ok = ok && dst[i] == 0xee; // nothing written past the room
  return ok ? 0 : 1;
}

describe("copyWellFormed", () => {
  it("copies exactly the plain ASCII run, for every length, stop position and destination room", () => {
    expect(sweepStops(wellFormedCopy)).toBe(0);
  });

  it("copies mixed text like a character-by-character copy, at every offset, length and room", () => {
    // Deterministic text of every piece in shifting orders, with long enough plain stretches for whole blocks.
    const bytes: u8[] = [];
    let x: u32 = 12345;
    while (bytes.length < 600) {
      x = x * 1103515245 + 12345;
      const pick = <i32>((x >>> 16) % <u32>(PIECES.length + 6));
      const piece = PIECES[pick < PIECES.length ? pick : 0];
      const repeat = pick < PIECES.length ? 1 : max(<i32>((x >>> 8) % 24), 1);
      for (let r = 0; r < repeat; r++) for (let k = 0; k < piece.length; k++) bytes.push(piece[k]);
    }
    const src = new Uint8Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) src[i] = bytes[i];
    const dst = new Uint8Array(bytes.length + 16);
    let cases = 0;
    let failures = 0;
    for (let off = 0; off < 96; off++) {
      const rest = src.length - off;
      for (let len = 0; len <= rest; len = len < rest ? min(len + 1 + (len >> 3), rest) : rest + 1) {
        // Every room for the whole rest (a sequence cut by the room at every position), fewer otherwise.
        for (let room = 0; room <= len + 1; room += len == rest ? 1 : 1 + (room >> 2)) {
          failures += checkCopy(src.dataStart + <usize>off, len, room, dst, false);
          cases++;
        }
      }
    }
    expect(cases).toBeGreaterThan(20000);
    expect(failures).toBe(0);
  });

  it("copies Latin-script text with accents whole, up to the first stop, at every offset and room", () => {
    const text = Uint8Array.wrap(String.UTF8.encode(
      "Les élèves étudient déjà la théorie; die Größe der Übersetzung hängt ab, façon, naïve, ñandú, są. ".repeat(3) + "\"end",
    ));
    const dst = new Uint8Array(text.length + 16);
    let failures = 0;
    for (let off = 0; off < 40; off++) {
      if ((text[off] & 0xc0) == 0x80) continue; // not a character's start
      for (let room = 0; room <= text.length - off + 1; room++) {
        failures += checkCopy(text.dataStart + <usize>off, text.length - off, room, dst, true);
      }
    }
    expect(failures).toBe(0);
  });

  it("stops at every byte that is neither plain ASCII nor the start of a well-formed sequence", () => {
    // Followed by plain letters, no byte >= 0x80 starts a well-formed sequence.
    expect(bytesNotPassed(wellFormedCopy)).toBe(0);
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
        if (lane < 32 && leadBytesIn32(buf.dataStart) != 31 + lead) failures++;
        if (lane < 32 && leadMaskIn32(buf.dataStart) != (lead ? 0xffff_ffff : ~(<u32>1 << <u32>lane))) failures++;
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
      let want32: usize = 0;
      let mask: u32 = 0;
      for (let i = 0; i < 32; i++) {
        if ((buf[i] & 0xc0) != 0x80) {
          want32++;
          mask |= <u32>1 << <u32>i;
        }
      }
      expect(leadBytesIn32(buf.dataStart)).toBe(want32);
      expect(leadMaskIn32(buf.dataStart)).toBe(mask);
    }
  });
});
