// Candidate flags (bool arrays, one byte per candidate) as SIMD lane masks, for the scoring loops that take two
// candidates per step: a lane is all ones when its candidate's flag is set, all zeros otherwise, so v128.and keeps
// a value for flagged candidates and leaves +0 for the others, and v128.bitselect chooses per candidate.
// Only compiled into the SIMD build (callers test ASC_FEATURE_SIMD).

/** The flags at `flags` and `flags + 1` as two 64-bit lanes. */
// @ts-ignore: decorator
@inline
export function flagPair64(flags: usize): v128 {
  const bytes = v128.load16_splat(flags);
  return i8x16.ne(i8x16.shuffle(bytes, bytes, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), i8x16.splat(0));
}

/** The flags at `flags` and `flags + 1` as the low two 32-bit lanes; the high two lanes are zeros. */
// @ts-ignore: decorator
@inline
export function flagPair32(flags: usize): v128 {
  const bytes = v128.load16_splat(flags);
  const zero = i8x16.splat(0);
  return i8x16.ne(i8x16.shuffle(bytes, zero, 0, 0, 0, 0, 1, 1, 1, 1, 16, 16, 16, 16, 16, 16, 16, 16), zero);
}

/** The smaller lane of two f64 lanes (neither NaN). */
// @ts-ignore: decorator
@inline
export function lowestLane(v: v128): f64 {
  return min<f64>(f64x2.extract_lane(v, 0), f64x2.extract_lane(v, 1));
}

/** The larger lane of two f64 lanes (neither NaN). */
// @ts-ignore: decorator
@inline
export function highestLane(v: v128): f64 {
  return max<f64>(f64x2.extract_lane(v, 0), f64x2.extract_lane(v, 1));
}
