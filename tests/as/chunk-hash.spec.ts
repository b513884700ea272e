// ChunkHash.find against its definition: the chunk from `start` ends just before the lead byte that follows `chars`
// lead bytes (or at `end` when the input holds exactly that many), and its hash is xxh64 over its bytes. Random inputs
// mixing ASCII, multi-byte characters, runs of stray continuation bytes and 0xff, at unaligned starts, with the
// boundary falling at every offset of the 64-byte blocks and 32-byte stripes the find reads, and bytes past `end`
// that must not matter.
import { ChunkHash } from "../../assembly/prefix/chunk-hash";
import { xxh64 } from "../../assembly/prefix/xxh64";

let state: u64 = 0x2545f4914f6cdd1d;
function rand(n: i32): i32 {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return <i32>(state % <u64>n);
}

// The definition: returns the boundary (0: fewer than `chars` lead bytes) and leaves the hash in refHash.
let refHash: u64 = 0;
function referenceFind(start: usize, end: usize, chars: usize, seed: u64): usize {
  let leads: usize = 0;
  for (let p = start; p < end; p++) {
    if ((load<u8>(p) & 0xc0) != 0x80) {
      if (leads == chars) {
        refHash = xxh64(start, p - start, seed);
        return p;
      }
      leads++;
    }
  }
  if (leads != chars) return 0;
  refHash = xxh64(start, end - start, seed);
  return end;
}

function randomText(buf: Uint8Array, from: i32, to: i32): void {
  let i = from;
  // Mostly one kind per input, so that long ASCII stretches (whole blocks skipped) occur as well as dense ones.
  const kind = rand(4);
  while (i < to) {
    const r = kind == 0 ? rand(40) : rand(10);
    if (r == 0 && i + 2 <= to) {
      buf[i++] = 0xc3;
      buf[i++] = 0xa9;
    } else if (r == 1 && i + 3 <= to) {
      buf[i++] = 0xe4;
      buf[i++] = 0xb8;
      buf[i++] = 0xad;
    } else if (r == 2 && i + 4 <= to) {
      buf[i++] = 0xf0;
      buf[i++] = 0x9f;
      buf[i++] = 0x98;
      buf[i++] = 0x80;
    } else if (r == 3) {
      const run = kind == 3 ? rand(70) : 1 + rand(3); // stray continuation bytes, sometimes a block's worth
      for (let k = 0; k < run && i < to; k++) buf[i++] = <u8>(0x80 | rand(64));
    } else if (r == 4) {
      buf[i++] = 0xff;
    } else {
      buf[i++] = <u8>(0x20 + rand(95));
    }
  }
}

describe("ChunkHash.find", () => {
  it("finds and hashes the chunk as its definition does, on random inputs", () => {
    const chunk = new ChunkHash();
    const buf = new Uint8Array(700);
    let mismatches = 0;
    let first = -1;
    let found = 0;
    for (let round = 0; round < 20000; round++) {
      const offset = rand(40);
      const len = rand(round % 3 == 0 ? 40 : 600);
      randomText(buf, 0, buf.length);
      const start = buf.dataStart + <usize>offset;
      const end = start + <usize>len;
      const chars = <usize>(rand(3) == 0 ? 1 + rand(8) : rand(2) == 0 ? 1 + rand(200) : 32 * (1 + rand(6)) + rand(3) - 1);
      const seed = <u64>rand(1000000);
      const want = referenceFind(start, end, chars, seed);
      const wantHash = refHash;
      // The bytes past the end, lead or continuation: never read.
      for (let k = offset + len; k < buf.length; k++) buf[k] = round % 2 == 0 ? 0x61 : 0x80;
      const got = chunk.find(start, end, chars, seed);
      let ok = got == want && (want == 0 || chunk.hash == wantHash);
      for (let k = offset + len; k < buf.length; k++) buf[k] = round % 2 == 0 ? 0x80 : 0x61;
      const again = chunk.find(start, end, chars, seed);
      ok = ok && again == want && (want == 0 || chunk.hash == wantHash);
      if (want != 0) found++;
      if (!ok) {
        mismatches++;
        if (first < 0) first = round;
      }
    }
    expect(first).toBe(-1);
    expect(mismatches).toBe(0);
    // Most rounds find a chunk: the comparison is not only of the "no chunk" answers.
    expect(found > 10000).toBe(true);
  });
});
