// XXH64 over raw linear memory, bit-exact with the reference algorithm described in the xxHash
// specification, doc/xxhash_spec.md ("XXH64 algorithm description"), of github.com/Cyan4973/xxHash.
// All input is read as little-endian, which is wasm's native byte order, so lanes are plain loads.
// Unaligned loads are legal in wasm and cost the same as aligned ones on current engines.

// @ts-ignore: decorator
@inline const PRIME64_1: u64 = 0x9E3779B185EBCA87;
// @ts-ignore: decorator
@inline const PRIME64_2: u64 = 0xC2B2AE3D27D4EB4F;
// @ts-ignore: decorator
@inline const PRIME64_3: u64 = 0x165667B19E3779F9;
// @ts-ignore: decorator
@inline const PRIME64_4: u64 = 0x85EBCA77C2B2AE63;
// @ts-ignore: decorator
@inline const PRIME64_5: u64 = 0x27D4EB2F165667C5;

// The pieces of xxh64 for a caller that reads the stripes itself (prefix/chunk-hash.ts): the four lane accumulators'
// start values for a seed, one round per 8-byte lane of a 32-byte stripe, and the end (xxh64LongEnd).
// @ts-ignore: decorator
@inline export function xxh64Acc1Start(seed: u64): u64 {
  return seed + PRIME64_1 + PRIME64_2;
}
// @ts-ignore: decorator
@inline export function xxh64Acc2Start(seed: u64): u64 {
  return seed + PRIME64_2;
}
// @ts-ignore: decorator
@inline export function xxh64Acc4Start(seed: u64): u64 {
  return seed - PRIME64_1;
}
// @ts-ignore: decorator
@inline export function xxh64Round(acc: u64, lane: u64): u64 {
  return rotl<u64>(acc + lane * PRIME64_2, 31) * PRIME64_1;
}

// @ts-ignore: decorator
@inline function mergeAccumulator(acc: u64, lane: u64): u64 {
  return (acc ^ xxh64Round(0, lane)) * PRIME64_1 + PRIME64_4;
}

/** The 1..31 bytes after the last stripe (or the whole input under 32 bytes), then the avalanche. */
// @ts-ignore: decorator
@inline function finishTail(acc: u64, p: usize, end: usize): u64 {
  // 8-byte lanes, then at most one 4-byte lane, then single bytes.
  while (p + 8 <= end) {
    acc ^= xxh64Round(0, load<u64>(p));
    acc = rotl<u64>(acc, 27) * PRIME64_1 + PRIME64_4;
    p += 8;
  }
  if (p + 4 <= end) {
    acc ^= <u64>load<u32>(p) * PRIME64_1;
    acc = rotl<u64>(acc, 23) * PRIME64_2 + PRIME64_3;
    p += 4;
  }
  while (p < end) {
    acc ^= <u64>load<u8>(p) * PRIME64_5;
    acc = rotl<u64>(acc, 11) * PRIME64_1;
    p++;
  }
  acc ^= acc >> 33;
  acc *= PRIME64_2;
  acc ^= acc >> 29;
  acc *= PRIME64_3;
  acc ^= acc >> 32;
  return acc;
}

/** XXH64 of [ptr, end), end - ptr >= 32, from the lane accumulators' start values: stripes, then the tail. */
// @ts-ignore: decorator
@inline function longInput(ptr: usize, end: usize, acc1: u64, acc2: u64, acc3: u64, acc4: u64): u64 {
  let p = ptr;
  const lastStripe = end - 32;
  while (p <= lastStripe) {
    acc1 = xxh64Round(acc1, load<u64>(p));
    acc2 = xxh64Round(acc2, load<u64>(p, 8));
    acc3 = xxh64Round(acc3, load<u64>(p, 16));
    acc4 = xxh64Round(acc4, load<u64>(p, 24));
    p += 32;
  }
  return xxh64LongEnd(acc1, acc2, acc3, acc4, end - ptr, p, end);
}

/**
 * The end of the XXH64 of `len` >= 32 bytes whose whole stripes left the lane accumulators acc1..acc4: they converge,
 * then the length and the 0..31 bytes [p, end) after the last stripe go in.
 */
// @ts-ignore: decorator
@inline export function xxh64LongEnd(acc1: u64, acc2: u64, acc3: u64, acc4: u64, len: usize, p: usize, end: usize): u64 {
  let acc = rotl<u64>(acc1, 1) + rotl<u64>(acc2, 7) + rotl<u64>(acc3, 12) + rotl<u64>(acc4, 18);
  acc = mergeAccumulator(acc, acc1);
  acc = mergeAccumulator(acc, acc2);
  acc = mergeAccumulator(acc, acc3);
  acc = mergeAccumulator(acc, acc4);
  return finishTail(acc + <u64>len, p, end);
}

// Two inlined halves, the length recomputed after the stripe loop: in V8 about 1.2x the throughput of the earlier
// single body that kept the length live across the loop (CPU-time A/B on chat text, SIMD and scalar builds).
/** XXH64 of the `len` bytes at `ptr`. The caller guarantees that [ptr, ptr + len) is readable. */
export function xxh64(ptr: usize, len: usize, seed: u64): u64 {
  const end = ptr + len;
  if (len >= 32) return longInput(ptr, end, xxh64Acc1Start(seed), xxh64Acc2Start(seed), seed, xxh64Acc4Start(seed));
  return xxh64Short(ptr, len, seed);
}

/** XXH64 of the `len` < 32 bytes at `ptr`. */
// @ts-ignore: decorator
@inline export function xxh64Short(ptr: usize, len: usize, seed: u64): u64 {
  return finishTail(seed + PRIME64_5 + <u64>len, ptr, ptr + len);
}

/** XXH64 of a whole byte array (tests, configuration time). */
export function xxh64Bytes(buf: Uint8Array, seed: u64): u64 {
  return xxh64(buf.dataStart, <usize>buf.length, seed);
}
