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

  it("agrees with its definition on long chunks: blocks taken whole in runs of up to 31, several runs per chunk", () => {
    const chunk = new ChunkHash();
    const buf = new Uint8Array(5200);
    let mismatches = 0;
    let found = 0;
    for (let round = 0; round < 400; round++) {
      randomText(buf, 0, buf.length);
      const offset = rand(64);
      const len = 1000 + rand(4100);
      const start = buf.dataStart + <usize>offset;
      const end = start + <usize>len;
      // Up to 64 blocks of ASCII; dense multi-byte text needs several runs, each taking need / 64 blocks.
      const chars = <usize>(round % 4 == 0 ? 64 * (1 + rand(len / 128)) : 500 + rand(len / 2 - 400));
      const seed = <u64>rand(1000000);
      const want = referenceFind(start, end, chars, seed);
      const got = chunk.find(start, end, chars, seed);
      if (got != want || (want != 0 && chunk.hash != refHash)) mismatches++;
      if (want != 0) found++;
    }
    expect(mismatches).toBe(0);
    expect(found > 150).toBe(true);
  });

  it("agrees with its definition where a chunk ends at a block's edge or a character crosses one", () => {
    const chunk = new ChunkHash();
    const buf = new Uint8Array(1200);
    let cases = 0;
    let mismatches = 0;
    // ASCII but for one 2-, 3- or 4-byte character placed across each byte position near the 64-byte edges.
    for (let width = 1; width <= 4; width++) {
      for (let at = 0; at < 200; at++) {
        for (let i = 0; i < buf.length; i++) buf[i] = <u8>(0x61 + (i % 26));
        if (width > 1) {
          buf[at] = width == 2 ? 0xc3 : width == 3 ? 0xe4 : 0xf0;
          for (let k = 1; k < width; k++) buf[at + k] = <u8>(0x80 + k);
        }
        for (let chars = 62; chars <= 130; chars += 1) {
          // The input ends at the chunk's end, one byte after it, and much later.
          for (let tail = 0; tail < 3; tail++) {
            const start = buf.dataStart;
            const len = tail == 2 ? 1000 : <i32>chars + (width - 1) * <i32>(at < <i32>chars) + tail;
            const end = start + <usize>len;
            const seed = <u64>(at * 131 + chars);
            const want = referenceFind(start, end, chars, seed);
            const got = chunk.find(start, end, chars, seed);
            if (got != want || (want != 0 && chunk.hash != refHash)) mismatches++;
            cases++;
          }
        }
      }
    }
    // All ASCII: chunks of exactly 64 and 512 characters end at a block's edge.
    for (let i = 0; i < buf.length; i++) buf[i] = <u8>(0x20 + (i % 90));
    for (let chars: usize = 64; chars <= 1024; chars += 64) {
      const want = referenceFind(buf.dataStart, buf.dataStart + <usize>buf.length, chars, 7);
      const got = chunk.find(buf.dataStart, buf.dataStart + <usize>buf.length, chars, 7);
      expect(got).toBe(buf.dataStart + chars);
      if (got != want || chunk.hash != refHash) mismatches++;
      // The input ends exactly at the chunk's end.
      expect(chunk.find(buf.dataStart, buf.dataStart + chars, chars, 7)).toBe(buf.dataStart + chars);
      expect(chunk.hash).toBe(refHash);
      cases++;
    }
    expect(mismatches).toBe(0);
    expect(cases > 50000).toBe(true);
  });

  it("agrees with its definition on long chunks of three-byte characters (two continuation bytes in three)", () => {
    const chunk = new ChunkHash();
    const buf = new Uint8Array(14000);
    let mismatches = 0;
    for (let round = 0; round < 24; round++) {
      for (let i = 0; i + 3 <= buf.length; i += 3) {
        buf[i] = 0xe4;
        buf[i + 1] = <u8>(0x80 + rand(64));
        buf[i + 2] = <u8>(0x80 + rand(64));
      }
      const offset = <usize>rand(3);
      const chars = <usize>(4096 + rand(500));
      const start = buf.dataStart + offset;
      const end = buf.dataStart + <usize>buf.length;
      const want = referenceFind(start, end, chars, 3);
      expect(want).toBeGreaterThan(0);
      const got = chunk.find(start, end, chars, 3);
      if (got != want || chunk.hash != refHash) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});
