// nextDecoded (whose SIMD build decodes long strings 64 bytes a block) against decodeJsonString (a byte at a time) on
// random long strings dense with escapes, multi-byte characters and ill-formed bytes, so that every kind of special
// byte falls at every offset of a block, next to others in the same block and across a block's end; half of them with
// long plain runs, so that whole blocks are plain too and a special comes after them at any offset; a third with runs
// of multi-byte characters longer than a block (CJK text), which the block loop follows past its block up to its bound.
// Each document lies at the very end of linear memory, so that a read past its end traps.
import { CANONICAL_ESCAPES } from "../../assembly/json/string-decoder";
import { decodesAlike } from "./support/decodes-alike";

const PIECES: string[] = [
  "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\b",
  "\\u00e9", "\\u4e2d", "\\u0001", "\\u001a", "\\u0022", "\\ud83d\\ude00", "\\ud83d", "\\ude00", "\\ud83dx",
  "\\u12", // a \u without four hex digits: the string is an error
  "\\x", // not an escape: an error
];
// Raw bytes: é, 中, an emoji, then ill-formed ones (which decode to U+FFFD), a control byte (an error).
const RAW: u8[][] = [
  [0xc3, 0xa9], [0xe4, 0xb8, 0xad], [0xf0, 0x9f, 0x98, 0x80], [0x80], [0xff], [0xc0, 0x80], [0xe4, 0xb8],
  [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x01],
];

let state: u32 = 0x9e3779b9;
function rand(n: u32): u32 {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state % n;
}

function push(bytes: u8[], s: string): void {
  for (let k = 0; k < s.length; k++) bytes.push(<u8>s.charCodeAt(k));
}

// One string of about `len` content bytes: plain runs of 0..maxRun bytes between specials; errors only when `errors`;
// when `dense`, half the specials are runs of up to 60 well-formed multi-byte characters.
function randomDoc(len: i32, errors: bool, spaces: i32, maxRun: u32, dense: bool): u8[] {
  const bytes: u8[] = [0x5b, 0x22];
  while (bytes.length < len) {
    const run = rand(3) == 0 ? rand(maxRun + 1) : rand(4);
    for (let k: u32 = 0; k < run; k++) bytes.push(<u8>(0x61 + rand(26)));
    if (dense && rand(2) == 0) {
      const chars = rand(61);
      for (let c: u32 = 0; c < chars; c++) {
        const raw = RAW[rand(3)];
        for (let k = 0; k < raw.length; k++) bytes.push(raw[k]);
      }
    } else if (rand(2) == 0) {
      const i = rand(errors ? PIECES.length : PIECES.length - 2);
      push(bytes, PIECES[i]);
    } else {
      const i = rand(errors ? RAW.length : RAW.length - 1);
      const raw = RAW[i];
      for (let k = 0; k < raw.length; k++) bytes.push(raw[k]);
    }
  }
  bytes.push(0x22);
  for (let k = 0; k < spaces; k++) bytes.push(0x20);
  bytes.push(0x2c);
  bytes.push(0x31);
  bytes.push(0x5d);
  return bytes;
}

// The page at the end of linear memory the documents go in: the allocator grows memory past it, never into it.
let ownPage: i32 = -1;
function endOfMemory(): usize {
  if (ownPage < 0 || ownPage + 1 != memory.size()) ownPage = memory.grow(1);
  return <usize>(ownPage + 1) << 16;
}


describe("nextDecoded on long strings (the block loop)", () => {
  it("decodes random strings as decodeJsonString does, at every cap mode", () => {
    const flagsList: i32[] = [0, CANONICAL_ESCAPES, 2]; // 2: ESCAPE_SEPARATOR_BYTES
    const outA = new ArrayBuffer(1200);
    const outB = new ArrayBuffer(1200);
    let failures = 0;
    let first = -1;
    for (let round = 0; round < 3000; round++) {
      const errors = round % 4 == 3;
      // The spaces after the string: the block loop stops short of the input's end, so the closing quote falls in a block
      // only when enough of them follow.
      const bytes = randomDoc(<i32>(40 + rand(300)), errors, <i32>rand(300), round % 2 == 0 ? 40 : 150, round % 3 == 2);
      // Room to spare, then a cap somewhere inside the string, then one just short of its end.
      const caps: i32[] = [1000, <i32>rand(<u32>bytes.length + 8), max(bytes.length - 30 - <i32>rand(60), 0)];
      const docPtr = endOfMemory() - <usize>bytes.length;
      for (let k = 0; k < bytes.length; k++) store<u8>(docPtr + <usize>k, bytes[k]);
      for (let f = 0; f < flagsList.length; f++) {
        for (let c = 0; c < caps.length; c++) {
          if (decodesAlike(docPtr, <usize>bytes.length, changetype<usize>(outA), changetype<usize>(outB), caps[c], flagsList[f], 1200) != 1) {
            failures++;
            if (first < 0) first = round * 100 + f * 10 + c;
          }
        }
      }
    }
    // The first failing round, mode and cap in view.
    expect(first).toBe(-1);
    expect(failures).toBe(0);
  });
});

describe("nextDecoded with one special byte near the document's end (the block loop's margin)", () => {
  it("decodes as decodeJsonString does wherever the special falls in a block and however close the end is", () => {
    // The longest escape (a surrogate pair) or a multi-byte character at every offset of a block, the string's end and
    // the document's end at every distance after it: the block loop's last block, and what it reads past the block
    // after an escape, reach furthest towards the end of memory there.
    const pieces: string[] = ["\\ud83d\\ude00", "\\u00e9", "\\n", "\\/", "\u4e2d", "\ud83d\ude00"];
    const flagsList: i32[] = [0, CANONICAL_ESCAPES, 2];
    const outA = new ArrayBuffer(1200);
    const outB = new ArrayBuffer(1200);
    let failures = 0;
    let first = -1;
    for (let k = 0; k < pieces.length; k++) {
      const piece = String.UTF8.encode(pieces[k]);
      for (let before = 0; before < 80; before++) {
        for (let after = 0; after < 160; after++) {
          const len = 2 + before + piece.byteLength + after + 4;
          const docPtr = endOfMemory() - <usize>len;
          memory.fill(docPtr, 0x61, <usize>len);
          store<u16>(docPtr, 0x225b); // ["
          memory.copy(docPtr + 2 + <usize>before, changetype<usize>(piece), <usize>piece.byteLength);
          store<u32>(docPtr + <usize>len - 4, 0x5d312c22); // ",1]
          for (let f = 0; f < flagsList.length; f++) {
            // Room to spare, and a cap inside the string.
            for (let c = 0; c < 2; c++) {
              const cap = c == 0 ? 1000 : before + (after * 7) % 150;
              if (decodesAlike(docPtr, <usize>len, changetype<usize>(outA), changetype<usize>(outB), cap, flagsList[f], 1200) != 1) {
                failures++;
                if (first < 0) first = k * 1000000 + before * 1000 + after;
              }
            }
          }
        }
      }
    }
    expect(first).toBe(-1);
    expect(failures).toBe(0);
  });
});
