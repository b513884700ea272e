// UTF-8 validation of a 64-byte block with SIMD (builds with ASC_FEATURE_SIMD only), after the lookup-table method of
// Keiser and Lemire ("Validating UTF-8 in less than one instruction per byte"): each byte and the one before it are
// classified by three 16-entry tables (the previous byte's high nibble, its low nibble, this byte's high nibble); a
// bit left set in all three names an error. The one rule a pair cannot see, that the second and third bytes after a
// 3- or 4-byte lead are continuations, is checked from the bytes two and three back.

import { signMaskOfFour } from "./string-runs";

// The error each bit stands for, as (previous byte, this byte).
const TOO_SHORT: u8 = 1 << 0; // a lead, then no continuation
const TOO_LONG: u8 = 1 << 1; // ASCII, then a continuation
const OVERLONG_3: u8 = 1 << 2; // E0, then 80..9F
const TOO_LARGE: u8 = 1 << 3; // F4, then 90..BF; F5..FF, then 90..BF
const SURROGATE: u8 = 1 << 4; // ED, then A0..BF
const OVERLONG_2: u8 = 1 << 5; // C0 or C1, then a continuation
const OVERLONG_4_OR_LARGE_80: u8 = 1 << 6; // F0, then 80..8F; F5..FF, then 80..8F
const TWO_CONTINUATIONS: u8 = 1 << 7; // a continuation, then another (an error unless a 3/4-byte lead wants it)

// The ASCII/lead/continuation classes first, then the bits a lead's nibble narrows.
const ANY_PREVIOUS: u8 = TOO_SHORT | TOO_LONG | TWO_CONTINUATIONS;
const LARGE: u8 = TOO_LARGE | OVERLONG_4_OR_LARGE_80;
const CONTINUATION_8: u8 = TOO_LONG | TWO_CONTINUATIONS | OVERLONG_2 | OVERLONG_3 | OVERLONG_4_OR_LARGE_80;
const CONTINUATION_9: u8 = TOO_LONG | TWO_CONTINUATIONS | OVERLONG_2 | OVERLONG_3 | TOO_LARGE;
const CONTINUATION_AB: u8 = TOO_LONG | TWO_CONTINUATIONS | OVERLONG_2 | TOO_LARGE | SURROGATE;

// @ts-ignore: decorator
@inline function lanes(a: u8, b: u8, c: u8, d: u8, e: u8, f: u8, g: u8, h: u8, i: u8, j: u8, k: u8, l: u8, m: u8, n: u8, o: u8, p: u8): v128 {
  return i8x16(<i8>a, <i8>b, <i8>c, <i8>d, <i8>e, <i8>f, <i8>g, <i8>h, <i8>i, <i8>j, <i8>k, <i8>l, <i8>m, <i8>n, <i8>o, <i8>p);
}

/** Error bits of a byte and the one before it (prev1), with a 0x80 bit for two continuations in a row. */
// @ts-ignore: decorator
@inline function pairErrors(cur: v128, prev1: v128): v128 {
  const low = i8x16.splat(0x0f);
  const previousHigh = i8x16.swizzle(
    lanes(TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
      TWO_CONTINUATIONS, TWO_CONTINUATIONS, TWO_CONTINUATIONS, TWO_CONTINUATIONS,
      TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE, TOO_SHORT | LARGE),
    i8x16.shr_u(prev1, 4),
  );
  const previousLow = i8x16.swizzle(
    lanes(ANY_PREVIOUS | OVERLONG_2 | OVERLONG_3 | OVERLONG_4_OR_LARGE_80, ANY_PREVIOUS | OVERLONG_2, ANY_PREVIOUS, ANY_PREVIOUS,
      ANY_PREVIOUS | TOO_LARGE, ANY_PREVIOUS | LARGE, ANY_PREVIOUS | LARGE, ANY_PREVIOUS | LARGE,
      ANY_PREVIOUS | LARGE, ANY_PREVIOUS | LARGE, ANY_PREVIOUS | LARGE, ANY_PREVIOUS | LARGE,
      ANY_PREVIOUS | LARGE, ANY_PREVIOUS | LARGE | SURROGATE, ANY_PREVIOUS | LARGE, ANY_PREVIOUS | LARGE),
    v128.and(prev1, low),
  );
  const currentHigh = i8x16.swizzle(
    lanes(TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
      CONTINUATION_8, CONTINUATION_9, CONTINUATION_AB, CONTINUATION_AB,
      TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT),
    i8x16.shr_u(cur, 4),
  );
  return v128.and(v128.and(previousHigh, previousLow), currentHigh);
}

/** Errors of the 16 bytes cur, whose 16 bytes before are before: 0 in every lane when they are well-formed so far. */
// @ts-ignore: decorator
@inline function vectorErrors(cur: v128, before: v128): v128 {
  const prev1 = i8x16.shuffle(before, cur, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const prev2 = i8x16.shuffle(before, cur, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
  const prev3 = i8x16.shuffle(before, cur, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
  // 0x80 where a continuation is required: 2 after a 3/4-byte lead, 3 after a 4-byte lead (a pair saw TWO_CONTINUATIONS
  // there when it is one, which this cancels; a lone 0x80 left is a missing continuation).
  const third = i8x16.ge_u(prev2, i8x16.splat(<i8>0xe0));
  const fourth = i8x16.ge_u(prev3, i8x16.splat(<i8>0xf0));
  const required = v128.and(v128.or(third, fourth), i8x16.splat(<i8>0x80));
  return v128.xor(pairErrors(cur, prev1), required);
}

/** 0xFF in the lanes of a 3-byte lead that any two continuations complete: E1..EC, EE, EF (not E0 or ED). */
// @ts-ignore: decorator
@inline function plainLead3(v: v128): v128 {
  const e1ToEf = i8x16.lt_u(i8x16.add(v, i8x16.splat(0x1f)), i8x16.splat(0x0f));
  return v128.andnot(e1ToEf, i8x16.eq(v, i8x16.splat(<i8>0xed)));
}

/**
 * The bytes of the 64 at p that are well-formed UTF-8 on their own (the bytes before p taken as ASCII), as whole
 * sequences: 64 when they all are; the offset of the last sequence's lead (61-63) when the block is well-formed but
 * ends inside that sequence (its bytes in the block a valid start of one); 0 otherwise. Each multi-byte sequence
 * before the returned offset decodes to itself.
 * `highs` is the mask of the block's bytes >= 0x80 (highBytesOfFourBlocks), which the decoder's loop has at hand.
 * Not inlined: in the decoder's loop its vectors made V8 spill the loop's own (16 KiB extract 1.3x slower inlined).
 */
export function wellFormedLength(p: usize, highs: u64): usize {
  const w = v128.load(p);
  const x = v128.load(p, 16);
  const y = v128.load(p, 32);
  const z = v128.load(p, 48);
  // ASCII, continuations and the 3-byte leads without a second-byte rule (E1..EC, EE, EF: most of CJK) only: the block
  // is well-formed when the continuations are exactly the two bytes after each lead (a Chinese body's blocks 2.3x faster).
  const continuations = signMaskOfFour(i8x16.lt_s(w, i8x16.splat(<i8>0xc0)), i8x16.lt_s(x, i8x16.splat(<i8>0xc0)),
    i8x16.lt_s(y, i8x16.splat(<i8>0xc0)), i8x16.lt_s(z, i8x16.splat(<i8>0xc0)));
  const leads = signMaskOfFour(plainLead3(w), plainLead3(x), plainLead3(y), plainLead3(z));
  if ((highs & ~(continuations | leads)) == 0) {
    if (continuations != ((leads << 1) | (leads << 2))) return 0;
    const cut = leads >> 62;
    return cut == 0 ? 64 : 62 + <usize>ctz(cut);
  }
  const zero = i8x16.splat(0);
  let errors = v128.or(vectorErrors(w, zero), vectorErrors(x, w));
  errors = v128.or(errors, v128.or(vectorErrors(y, x), vectorErrors(z, y)));
  if (v128.any_true(errors)) return 0;
  // A lead in the last three bytes whose sequence would go past the block: C0.. last, E0.. second last, F0.. third
  // last. With no error there is at most one (the bytes after such a lead are its continuations).
  const cut = i8x16.bitmask(i8x16.gt_u(z, lanes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0xdf, 0xbf)));
  if (cut == 0) return 64;
  // A last byte that starts nothing (C0, C1, F5..) has no byte after it for a pair to flag.
  const last = <u32>load<u8>(p, 63);
  if (cut == 0x8000 && (last < 0xc2 || last > 0xf4)) return 0;
  return 48 + <usize>ctz(cut);
}
