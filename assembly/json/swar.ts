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

/** High bit set for bytes that end a plain run inside a JSON string: '"', '\\' or a control byte. */
// @ts-ignore: decorator
@inline export function stringStopBytes(x: u64): u64 {
  const q = x ^ 0x2222222222222222;
  const b = x ^ 0x5c5c5c5c5c5c5c5c;
  return ((q - LOW_BITS) & ~q | (b - LOW_BITS) & ~b | (x - 0x2020202020202020) & ~x) & HIGH_BITS;
}

/** Index (0..7) of the first flagged byte of a non-zero mask. */
// @ts-ignore: decorator
@inline export function firstFlagged(mask: u64): usize {
  return <usize>(ctz(mask) >> 3);
}
