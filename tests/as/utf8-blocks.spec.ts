// wellFormedLength (SIMD builds) against the byte-by-byte definition (multiByteSequenceLength), and nextDecoded, whose
// block loop keeps a 64-byte block of well-formed sequences as copied (up to the lead of one cut at its end), against
// decodeJsonString on long strings rich in 2-, 3- and 4-byte characters with ill-formed ones (overlongs, surrogates,
// above U+10FFFF, stray continuations, truncated sequences) at every offset of a block, across its end and at the
// string's end.
import { wellFormedLength } from "../../assembly/json/utf8-blocks";
import { highBytesOfFourBlocks } from "../../assembly/json/string-runs";
import { multiByteSequenceLength } from "../../assembly/json/utf8";
import { CANONICAL_ESCAPES } from "../../assembly/json/string-decoder";
import { decodesAlike } from "./support/decodes-alike";

// Well-formed characters, the bounds of each length and range among them.
const GOOD: u8[][] = [
  [0xc3, 0xa9], [0xc2, 0x80], [0xdf, 0xbf], [0xe4, 0xb8, 0xad], [0xe0, 0xa0, 0x80], [0xef, 0xbf, 0xbf],
  [0xed, 0x9f, 0xbf], [0xee, 0x80, 0x80], [0xe2, 0x80, 0x94], [0xf0, 0x9f, 0x98, 0x80], [0xf0, 0x90, 0x80, 0x80],
  [0xf4, 0x8f, 0xbf, 0xbf], [0xf3, 0xbf, 0xbf, 0xbf], [0xf1, 0x80, 0x80, 0x80],
];
// Ill-formed bytes: overlongs, surrogates, above U+10FFFF, stray continuations, truncated sequences, a lead before a lead.
const BAD: u8[][] = [
  [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xe0, 0x9f, 0xbf], [0xf0, 0x80, 0x80, 0x80], [0xf0, 0x8f, 0xbf, 0xbf],
  [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xff], [0xfe], [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80], [0xbf], [0xc3, 0xa9, 0xa9], [0xe4, 0xb8, 0xad, 0x80], [0xc3], [0xe4, 0xb8], [0xf0, 0x9f, 0x98], [0xe4], [0xf0],
  [0xc3, 0xc3, 0xa9], [0xe4, 0xe4, 0xb8, 0xad], [0xf0, 0x9f, 0xe4, 0xb8, 0xad],
];

let state: u32 = 0x2545f491;
function rand(n: u32): u32 {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state % n;
}

function pushAll(bytes: u8[], piece: u8[]): void {
  for (let k = 0; k < piece.length; k++) bytes.push(piece[k]);
}

// A valid start of a sequence: the `have` bytes at p (lead first) and continuations after them make one for some choice
// of continuations (the second byte's range depends on the lead: 0x80, 0x90, 0xa0 or 0xbf falls in each).
function validStart(p: usize, have: i32): bool {
  const tmp = memory.data(8);
  const seconds: u8[] = [0x80, 0x90, 0xa0, 0xbf];
  for (let s = 0; s < seconds.length; s++) {
    store<u32>(tmp, 0x80808080);
    store<u8>(tmp, seconds[s], 1);
    for (let k = 0; k < have; k++) store<u8>(tmp + <usize>k, load<u8>(p + <usize>k));
    if (multiByteSequenceLength(tmp, tmp + 4) > have) return true;
  }
  return false;
}

// The definition: 64 when every byte >= 0x80 in [p, p + 64) starts or continues a well-formed sequence that ends by
// p + 64; the offset of the last sequence's lead when it is a valid start that does not end by then; 0 otherwise.
function lengthByBytes(p: usize): usize {
  const end = p + 64;
  let q = p;
  while (q < end) {
    if (load<u8>(q) < 0x80) {
      q++;
      continue;
    }
    const n = multiByteSequenceLength(q, end);
    if (n <= 0) {
      const have = <i32>(end - q);
      // Cut by the block's end: a byte after the lead that failed, or a lead that can not start one, is an error.
      return have < 4 && -n == have && validStart(q, have) ? q - p : 0;
    }
    q += <usize>n;
  }
  return 64;
}

// Mostly well-formed characters between short ASCII runs, an ill-formed piece at a rate of 1 in `badOneIn`; with
// `only`, that one character of GOOD and rarer ASCII runs (text in one script, CJK: blocks cut a character mostly).
function mixedText(len: i32, badOneIn: u32, bytes: u8[], only: i32 = -1): void {
  const start = bytes.length;
  while (bytes.length - start < len) {
    const run = rand(only >= 0 ? 40 : 3) == 0 ? rand(6) : 0;
    for (let k: u32 = 0; k < run; k++) bytes.push(<u8>(0x61 + rand(26)));
    if (badOneIn > 0 && rand(badOneIn) == 0) pushAll(bytes, BAD[rand(BAD.length)]);
    else pushAll(bytes, GOOD[only >= 0 ? only : rand(GOOD.length)]);
  }
}

describe("wellFormedLength", () => {
  it("agrees with the byte-by-byte definition on random blocks of characters and ill-formed bytes", () => {
    if (!ASC_FEATURE_SIMD) return;
    const buf = new Uint8Array(256);
    const p = buf.dataStart;
    let failures = 0;
    let accepted = 0;
    let cut = 0;
    for (let round = 0; round < 20000; round++) {
      const bytes: u8[] = [];
      // Where the block starts in the text (so that a character crosses its start or end), and how often a piece is bad.
      mixedText(140, round % 3 == 0 ? 0 : 1 + rand(40), bytes);
      const at = rand(64);
      for (let k = 0; k < 64; k++) buf[k] = bytes[at + <u32>k];
      const want = lengthByBytes(p);
      if (wellFormedLength(p, highBytesOfFourBlocks(p)) != want) failures++;
      if (want == 64) accepted++;
      else if (want != 0) cut++;
    }
    expect(failures).toBe(0);
    // Each answer was asked for many times.
    expect(accepted).toBeGreaterThan(1000);
    expect(cut).toBeGreaterThan(1000);
    expect(accepted + cut).toBeLessThan(18000);
  });

  it("agrees with it on every byte pair, and on bounding triples and quadruples, at every offset", () => {
    if (!ASC_FEATURE_SIMD) return;
    const buf = new Uint8Array(64);
    const p = buf.dataStart;
    const edges: u8[] = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf7, 0xf8, 0xff];
    let failures = 0;
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        const at = (a * 7 + b) & 63;
        buf.fill(0x61);
        buf[at] = <u8>a;
        if (at < 63) buf[at + 1] = <u8>b;
        if (wellFormedLength(p, highBytesOfFourBlocks(p)) != lengthByBytes(p)) failures++;
      }
    }
    for (let a = 0; a < edges.length; a++) {
      for (let b = 0; b < edges.length; b++) {
        for (let c = 0; c < edges.length; c++) {
          for (let e = 0; e < edges.length; e += 3) {
            const at = (a + b * 3 + c * 5 + e) & 63;
            buf.fill(0x61);
            buf[at] = edges[a];
            if (at + 1 < 64) buf[at + 1] = edges[b];
            if (at + 2 < 64) buf[at + 2] = edges[c];
            if (at + 3 < 64) buf[at + 3] = edges[e];
            if (wellFormedLength(p, highBytesOfFourBlocks(p)) != lengthByBytes(p)) failures++;
          }
        }
      }
    }
    expect(failures).toBe(0);
  });
});

describe("wellFormedLength on blocks of 3-byte characters", () => {
  it("agrees with the byte-by-byte definition with one or two bytes of a CJK block changed", () => {
    if (!ASC_FEATURE_SIMD) return;
    const buf = new Uint8Array(64);
    const p = buf.dataStart;
    // Leads E0..EF (E0 and ED have a second-byte rule), the continuations' edges, ASCII, other leads.
    const swaps: u8[] = [0x41, 0x80, 0x9f, 0xa0, 0xbf, 0xc2, 0xdf, 0xe0, 0xe1, 0xe4, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf4, 0xff];
    let failures = 0;
    let accepted = 0;
    let cut = 0;
    for (let round = 0; round < 20000; round++) {
      // Characters U+1000..U+FFFF without surrogates; the block then ends with ASCII or with a character cut short
      // (and, one round in eight, starts inside a character).
      const skip = round % 8 == 7 ? 1 + rand(2) : 0;
      const cutShort = rand(2) == 0;
      let k = 0;
      let n: i32 = -<i32>skip;
      while (k < 64) {
        let cp = 0x1000 + rand(0xf000);
        if (cp >= 0xd800 && cp < 0xe000) cp -= 0x1000;
        const seq: u8[] = [<u8>(0xe0 | (cp >> 12)), <u8>(0x80 | ((cp >> 6) & 0x3f)), <u8>(0x80 | (cp & 0x3f))];
        if (n >= 0 && k + 3 > 64 && !cutShort) {
          buf[k++] = 0x61;
          continue;
        }
        for (let j = 0; j < 3; j++, n++) if (n >= 0 && k < 64) buf[k++] = seq[j];
      }
      const changes: u32 = round % 4 == 0 ? 0 : 1 + rand(2);
      for (let c: u32 = 0; c < changes; c++) buf[rand(64)] = swaps[rand(<u32>swaps.length)];
      const want = lengthByBytes(p);
      if (wellFormedLength(p, highBytesOfFourBlocks(p)) != want) failures++;
      if (want == 64) accepted++;
      else if (want != 0) cut++;
    }
    expect(failures).toBe(0);
    expect(accepted).toBeGreaterThan(1000);
    expect(cut).toBeGreaterThan(1000);
  });
});

describe("wellFormedLength at a block's end", () => {
  it("keeps the block up to the lead of a valid sequence that 1, 2 or 3 of its bytes end it with", () => {
    if (!ASC_FEATURE_SIMD) return;
    const buf = new Uint8Array(64);
    const p = buf.dataStart;
    let checked = 0;
    for (let g = 0; g < GOOD.length; g++) {
      const c = GOOD[g];
      for (let have = 1; have <= c.length; have++) {
        // Twelve CJK characters, plain bytes, then the first `have` bytes of c.
        buf.fill(0x61);
        for (let k = 0; k < 36; k++) buf[k] = GOOD[3][k % 3];
        for (let k = 0; k < have; k++) buf[64 - have + k] = c[k];
        expect(wellFormedLength(p, highBytesOfFourBlocks(p))).toBe(have == c.length ? 64 : <usize>(64 - have));
        checked++;
      }
    }
    expect(checked).toBe(44);
  });

  it("keeps none of a block that ends with an ill-formed start of a sequence", () => {
    if (!ASC_FEATURE_SIMD) return;
    const buf = new Uint8Array(64);
    const p = buf.dataStart;
    // Overlong, surrogate and too-large starts, leads that start nothing, a lead then ASCII or another lead, a stray
    // continuation, a 4-byte start cut after a bad second byte.
    const tails: u8[][] = [
      [0xc0], [0xc1], [0xe0, 0x80], [0xe0, 0x9f], [0xed, 0xa0], [0xf0, 0x80], [0xf0, 0x8f], [0xf4, 0x90], [0xf5],
      [0xf8], [0xff], [0xf5, 0x80, 0x80], [0xe4, 0x41], [0xf0, 0x9f, 0x41], [0xe4, 0xc3], [0xc3, 0xe4], [0x80],
      [0xc3, 0xa9, 0xa9], [0xf0, 0x9f, 0xe4], [0xe0, 0x80, 0x80], [0xf4, 0x90, 0x80],
    ];
    for (let t = 0; t < tails.length; t++) {
      buf.fill(0x61);
      for (let k = 0; k < 36; k++) buf[k] = GOOD[3][k % 3];
      const tail = tails[t];
      for (let k = 0; k < tail.length; k++) buf[64 - tail.length + k] = tail[k];
      expect(wellFormedLength(p, highBytesOfFourBlocks(p))).toBe(0);
    }
  });
});


describe("nextDecoded on long strings of multi-byte characters", () => {
  it("decodes them as decodeJsonString does, ill-formed bytes anywhere included", () => {
    const flagsList: i32[] = [0, CANONICAL_ESCAPES];
    const outA = new ArrayBuffer(2400);
    const outB = new ArrayBuffer(2400);
    let failures = 0;
    let first = -1;
    for (let round = 0; round < 2000; round++) {
      const bytes: u8[] = [0x5b, 0x22];
      // A plain lead of any length, so the blocks fall at every offset of the characters.
      const lead = rand(80);
      for (let k: u32 = 0; k < lead; k++) bytes.push(<u8>(0x61 + rand(26)));
      // Clean text, or a bad piece in every few blocks, or (rarely) an escape among the characters; the same in one
      // script of 2-, 3- or 4-byte characters.
      const kind = round % 4;
      const only: i32 = round % 8 < 4 ? -1 : [0, 3, 3, 9][rand(4)];
      mixedText(<i32>(150 + rand(1200)), kind == 0 ? 0 : kind == 1 ? 400 : 60, bytes, only);
      if (kind == 3) {
        // A backslash in place of a byte (an error unless the next byte makes an escape), or "\\n" in place of two.
        const at = 2 + <i32>rand(<u32>bytes.length - 3);
        bytes[at] = 0x5c;
        if (rand(2) == 0) bytes[at + 1] = 0x6e;
      }
      // A truncated character at the string's end, sometimes.
      if (rand(4) == 0) pushAll(bytes, BAD[17 + rand(5)]);
      bytes.push(0x22);
      const spaces = rand(200);
      for (let k: u32 = 0; k < spaces; k++) bytes.push(0x20);
      bytes.push(0x2c);
      bytes.push(0x31);
      bytes.push(0x5d);
      const doc = new ArrayBuffer(bytes.length);
      const docPtr = changetype<usize>(doc);
      for (let k = 0; k < bytes.length; k++) store<u8>(docPtr + <usize>k, bytes[k]);
      for (let f = 0; f < flagsList.length; f++) {
        const caps: i32[] = [2000, <i32>rand(<u32>bytes.length + 8), max(bytes.length - 30 - <i32>rand(60), 0)];
        for (let c = 0; c < caps.length; c++) {
          if (decodesAlike(docPtr, <usize>bytes.length, changetype<usize>(outA), changetype<usize>(outB), caps[c], flagsList[f], 2400) != 1) {
            failures++;
            if (first < 0) first = round * 100 + f * 10 + c;
          }
        }
      }
    }
    expect(first).toBe(-1);
    expect(failures).toBe(0);
  });
});
