// Lanes for the scoring loops that take two candidates per step. Candidate flags (bool arrays, one byte per
// candidate) become lane masks: a lane is all ones when its candidate's flag is set, all zeros otherwise, so v128.and
// keeps a value for flagged candidates and leaves +0 for the others, and v128.bitselect chooses per candidate.
// Only compiled into the SIMD build (callers test ASC_FEATURE_SIMD).
import { Candidates } from "./candidates";

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

/** The smallest of four i32 lanes. */
// @ts-ignore: decorator
@inline
export function lowestI32Lane(v: v128): i32 {
  return min<i32>(min<i32>(i32x4.extract_lane(v, 0), i32x4.extract_lane(v, 1)),
    min<i32>(i32x4.extract_lane(v, 2), i32x4.extract_lane(v, 3)));
}

/** The largest of four i32 lanes. */
// @ts-ignore: decorator
@inline
export function highestI32Lane(v: v128): i32 {
  return max<i32>(max<i32>(i32x4.extract_lane(v, 0), i32x4.extract_lane(v, 1)),
    max<i32>(i32x4.extract_lane(v, 2), i32x4.extract_lane(v, 3)));
}

/** A count: anything but a finite count >= 0 (NaN, negative, Infinity) as 0. */
// @ts-ignore: decorator
@inline
export function countOrZero(x: f64): f64 {
  return x >= 0 && x < Infinity ? x : 0;
}

/** Two f64 lanes with anything but a finite count >= 0 (NaN, negative, Infinity) as +0. */
// @ts-ignore: decorator
@inline
export function countsOrZero(x: v128): v128 {
  return v128.and(x, v128.and(f64x2.ge(x, f64x2.splat(0)), f64x2.lt(x, f64x2.splat(Infinity))));
}

/** The two i32 counts at `at`, a negative one as 0, as f64 lanes (exact). */
// @ts-ignore: decorator
@inline
export function countPairAsF64(at: usize): v128 {
  return f64x2.convert_low_i32x4_s(i32x4.max_s(v128.load64_zero(at), i32x4.splat(0)));
}

/** Candidates i and i + 1's flags as two 64-bit lanes: read from `lanes` (Candidates' lane masks, when current: not
 *  0), else made from the flags at `flags`. */
// @ts-ignore: decorator
@inline
export function flagLanes64(lanes: usize, flags: usize, i: i32): v128 {
  return lanes != 0 ? v128.load(lanes + (<usize>i << 3)) : flagPair64(flags + <usize>i);
}

/** flagLanes64 as the low two 32-bit lanes (the high two are zeros), from 32-bit lane masks. */
// @ts-ignore: decorator
@inline
export function flagLanes32(lanes: usize, flags: usize, i: i32): v128 {
  return lanes != 0 ? v128.load64_zero(lanes + (<usize>i << 2)) : flagPair32(flags + <usize>i);
}

/** Where `lanes` (one of c's lane masks) starts when c's lane masks are current, else 0 (flagLanes64 and 32 then
 *  make the masks from the flags). */
// @ts-ignore: decorator
@inline
export function currentLanes<T>(c: Candidates, lanes: StaticArray<T>): usize {
  return c.lanesCurrent ? changetype<usize>(lanes) : 0;
}
