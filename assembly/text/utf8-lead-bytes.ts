// Counting the UTF-8 lead bytes (every byte that is not a continuation byte 10xxxxxx, so one per character
// of well-formed text) in fixed-size blocks of 64 or 32 bytes, and where they are in 32. With WebAssembly SIMD (asc
// --enable simd, ASC_FEATURE_SIMD) 16-byte vectors; without it, 64-bit words. The caller keeps the block inside its input.

export const LEAD_BLOCK_BYTES: usize = 64;

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/** High bit set in each continuation byte of a little-endian 8-byte word. */
// @ts-ignore: decorator
@inline function continuationBits(word: u64): u64 {
  return word & ~(word << 1) & HIGH_BITS;
}

/** Bitmask of the continuation bytes of 16 bytes: signed, 0x80..0xBF are exactly the bytes below -64. */
// @ts-ignore: decorator
@inline function continuationMask(x: v128): u64 {
  return <u64>i8x16.bitmask(i8x16.lt_s(x, i8x16.splat(-64)));
}

/** Lead bytes among the LEAD_BLOCK_BYTES bytes at p. */
// @ts-ignore: decorator
@inline export function leadBytesInBlock(p: usize): usize {
  let continuations: u64;
  if (ASC_FEATURE_SIMD) {
    const a = v128.load(p);
    const b = v128.load(p, 16);
    const c = v128.load(p, 32);
    const d = v128.load(p, 48);
    // Mostly ASCII text: a block without a byte >= 0x80 is 64 characters, found with one mask.
    if (i8x16.bitmask(v128.or(v128.or(a, b), v128.or(c, d))) == 0) return LEAD_BLOCK_BYTES;
    continuations = popcnt<u64>(
      continuationMask(a) | (continuationMask(b) << 16) | (continuationMask(c) << 32) | (continuationMask(d) << 48),
    );
  } else {
    const w0 = load<u64>(p);
    const w1 = load<u64>(p, 8);
    const w2 = load<u64>(p, 16);
    const w3 = load<u64>(p, 24);
    const w4 = load<u64>(p, 32);
    const w5 = load<u64>(p, 40);
    const w6 = load<u64>(p, 48);
    const w7 = load<u64>(p, 56);
    if (((w0 | w1 | w2 | w3 | w4 | w5 | w6 | w7) & HIGH_BITS) == 0) return LEAD_BLOCK_BYTES;
    // Each word's flags sit at bit 7 of its bytes; shifted by 0..3 the flags of four words do not overlap.
    const a = continuationBits(w0) | (continuationBits(w1) >> 1) |
      (continuationBits(w2) >> 2) | (continuationBits(w3) >> 3);
    const b = continuationBits(w4) | (continuationBits(w5) >> 1) |
      (continuationBits(w6) >> 2) | (continuationBits(w7) >> 3);
    continuations = popcnt<u64>(a) + popcnt<u64>(b);
  }
  return LEAD_BLOCK_BYTES - <usize>continuations;
}

/** The most blocks one tally holds: each adds at most 4 to a lane's count, which stays below 128. */
export const TALLY_MAX_BLOCKS: usize = 31;

/**
 * SIMD builds only: `tally` with the continuation bytes among the LEAD_BLOCK_BYTES bytes at p added, each as -1 in
 * its 16-byte vector's lane; tallyTotal reads the count. No test, no branch: for blocks the caller knows it takes whole.
 */
// @ts-ignore: decorator
@inline export function tallyContinuations(tally: v128, p: usize): v128 {
  const below = i8x16.splat(-64);
  const ab = i8x16.add(i8x16.lt_s(v128.load(p), below), i8x16.lt_s(v128.load(p, 16), below));
  const cd = i8x16.add(i8x16.lt_s(v128.load(p, 32), below), i8x16.lt_s(v128.load(p, 48), below));
  return i8x16.add(tally, i8x16.add(ab, cd));
}

/** The continuation bytes a tally of at most TALLY_MAX_BLOCKS blocks counted. */
// @ts-ignore: decorator
@inline export function tallyTotal(tally: v128): usize {
  const quads = i32x4.extadd_pairwise_i16x8_s(i16x8.extadd_pairwise_i8x16_s(tally));
  return <usize>-(i32x4.extract_lane(quads, 0) + i32x4.extract_lane(quads, 1) +
    i32x4.extract_lane(quads, 2) + i32x4.extract_lane(quads, 3));
}

/** Lead bytes among the 32 bytes at p (one xxh64 stripe). */
// @ts-ignore: decorator
@inline export function leadBytesIn32(p: usize): usize {
  if (ASC_FEATURE_SIMD) {
    const a = v128.load(p);
    const b = v128.load(p, 16);
    if (i8x16.bitmask(v128.or(a, b)) == 0) return 32;
    return 32 - <usize>popcnt<u32>(<u32>continuationMask(a) | (<u32>continuationMask(b) << 16));
  }
  const w0 = load<u64>(p);
  const w1 = load<u64>(p, 8);
  const w2 = load<u64>(p, 16);
  const w3 = load<u64>(p, 24);
  if (((w0 | w1 | w2 | w3) & HIGH_BITS) == 0) return 32;
  return 32 - <usize>popcnt<u64>(
    continuationBits(w0) | (continuationBits(w1) >> 1) | (continuationBits(w2) >> 2) | (continuationBits(w3) >> 3),
  );
}

/** The 8 flags at bit 7 of each byte of a word, packed into bits 0..7 (the flags of distinct bytes never carry). */
// @ts-ignore: decorator
@inline function packFlags(flags: u64): u32 {
  return <u32>(((flags >> 7) * 0x0102040810204080) >> 56);
}

/** Bit i set when byte i of the 32 bytes at p is a lead byte. */
// @ts-ignore: decorator
@inline export function leadMaskIn32(p: usize): u32 {
  if (ASC_FEATURE_SIMD) {
    return ~(<u32>continuationMask(v128.load(p)) | (<u32>continuationMask(v128.load(p, 16)) << 16));
  }
  return ~(
    packFlags(continuationBits(load<u64>(p))) | (packFlags(continuationBits(load<u64>(p, 8))) << 8) |
    (packFlags(continuationBits(load<u64>(p, 16))) << 16) | (packFlags(continuationBits(load<u64>(p, 24))) << 24)
  );
}

