import { xxh64, xxh64Bytes } from "../../assembly/prefix/xxh64";

// Published vectors from the xxHash reference sanity check (xxhsum, tests/sanity_test_vectors / xsum_sanity_check.c):
// the input is a pseudo-random buffer whose bytes are the top byte of a generator that starts at PRIME32 and is
// multiplied by PRIME64 after each byte. The bit-exactness proof over many inputs is tests/integration/xxh64-oracle.test.ts.
const PRIME32: u64 = 2654435761;
const PRIME64: u64 = 11400714785074694797;

function sanityBuffer(len: i32): Uint8Array {
  const buf = new Uint8Array(len);
  let generator: u64 = PRIME32;
  for (let i = 0; i < len; i++) {
    buf[i] = <u8>(generator >> 56);
    generator *= PRIME64;
  }
  return buf;
}

function asciiBytes(s: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(s));
}

describe("xxh64 reference vectors", () => {
  it("empty input, seed 0", () => {
    expect<u64>(xxh64(0, 0, 0)).toBe(0xef46db3751d8e999);
    expect<u64>(xxh64Bytes(new Uint8Array(0), 0)).toBe(0xef46db3751d8e999);
  });

  it("sanity buffer prefixes of 0, 1, 14 and 222 bytes with seeds 0 and PRIME32", () => {
    const buf = sanityBuffer(222);
    expect<u64>(xxh64Bytes(buf.subarray(0, 0), PRIME32)).toBe(0xac75fda2929b17ef);
    expect<u64>(xxh64Bytes(buf.subarray(0, 1), 0)).toBe(0xe934a84adb052768);
    expect<u64>(xxh64Bytes(buf.subarray(0, 1), PRIME32)).toBe(0x5014607643a9b4c3);
    expect<u64>(xxh64Bytes(buf.subarray(0, 14), 0)).toBe(0x8282dcc4994e35c8);
    expect<u64>(xxh64Bytes(buf.subarray(0, 14), PRIME32)).toBe(0xc3bd6bf63deb6df0);
    expect<u64>(xxh64Bytes(buf, 0)).toBe(0xb641ae8cb691c174);
    expect<u64>(xxh64Bytes(buf, PRIME32)).toBe(0x20cb8ab7ae10c14a);
  });

  it("short ASCII strings", () => {
    expect<u64>(xxh64Bytes(asciiBytes("a"), 0)).toBe(0xd24ec4f1a98c6e5b);
    expect<u64>(xxh64Bytes(asciiBytes("abc"), 0)).toBe(0x44bc2cf5ad770999);
  });
});

describe("xxh64 over raw memory", () => {
  it("reads exactly [ptr, ptr + len): surrounding bytes and alignment do not matter", () => {
    const data = sanityBuffer(100);
    const expected = xxh64Bytes(data, 7);
    const arena = new Uint8Array(100 + 32);
    for (let offset = 0; offset < 16; offset++) {
      for (let i = 0; i < arena.length; i++) arena[i] = <u8>(i * 37 + offset);
      for (let i = 0; i < 100; i++) arena[offset + i] = data[i];
      expect<u64>(xxh64(arena.dataStart + offset, 100, 7)).toBe(expected);
    }
  });

  it("a single flipped bit changes the hash, at every position of a 70-byte input", () => {
    const buf = sanityBuffer(70);
    const base = xxh64Bytes(buf, 0);
    for (let i = 0; i < 70; i++) {
      buf[i] ^= 0x10;
      expect<u64>(xxh64Bytes(buf, 0)).not.toBe(base);
      buf[i] ^= 0x10;
    }
    expect<u64>(xxh64Bytes(buf, 0)).toBe(base);
  });

  it("the seed changes the hash", () => {
    const buf = sanityBuffer(40);
    expect<u64>(xxh64Bytes(buf, 1)).not.toBe(xxh64Bytes(buf, 2));
  });
});
