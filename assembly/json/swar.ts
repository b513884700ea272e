// SWAR (SIMD within a register) byte tests over 8 bytes loaded little-endian as u64.
// Only whether some byte matches is exact; the lowest flagged byte is always a real match,
// which is all the callers use (ctz of the mask).

export const LOW_BITS: u64 = 0x0101010101010101;
export const HIGH_BITS: u64 = 0x8080808080808080;

/** High bit set in each byte of x that is zero (exact for the lowest such byte). */
// @ts-ignore: decorator
@inline export function zeroBytes(x: u64): u64 {
  return (x - LOW_BITS) & ~x & HIGH_BITS;
}

/** High bit set for bytes equal to b (exact for the lowest such byte). */
// @ts-ignore: decorator
@inline export function bytesEqual(x: u64, b: u8): u64 {
  return zeroBytes(x ^ (LOW_BITS * <u64>b));
}

/** High bit set for bytes below 0x20 (exact for the lowest such byte). */
// @ts-ignore: decorator
@inline export function controlBytes(x: u64): u64 {
  return (x - 0x2020202020202020) & ~x & HIGH_BITS;
}

// Bytes 0x00..0x1F and 0x22 are exactly those whose value XOR 0x02 is below 0x21, so one "below" test
// covers both the quote and control bytes. XOR with 0x02 or 0x5C keeps the high bit, so the "& ~y" of the
// usual tests is "& ~x" for both and can be shared.

/** High bit set for bytes that end a plain run inside a JSON string: '"', '\\' or a control byte. */
// @ts-ignore: decorator
@inline export function stringStopBytes(x: u64): u64 {
  return (((x ^ 0x0202020202020202) - 0x2121212121212121) | ((x ^ 0x5c5c5c5c5c5c5c5c) - LOW_BITS)) & ~x & HIGH_BITS;
}

/** stringStopBytes plus every byte >= 0x80 (which a decoder must check as UTF-8). */
// @ts-ignore: decorator
@inline export function stringStopOrHighBytes(x: u64): u64 {
  return (((x ^ 0x0202020202020202) - 0x2121212121212121) | ((x ^ 0x5c5c5c5c5c5c5c5c) - LOW_BITS) | x) & HIGH_BITS;
}

/** Index (0..7) of the first flagged byte of a non-zero mask. */
// @ts-ignore: decorator
@inline export function firstFlagged(mask: u64): usize {
  return <usize>(ctz(mask) >> 3);
}
