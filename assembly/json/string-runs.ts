// Bulk scans of the plain runs inside JSON strings: the bytes a scanner or decoder can pass (or copy) without
// looking at them one by one. With WebAssembly SIMD (asc --enable simd, ASC_FEATURE_SIMD) 16 bytes are tested
// per step; without it 8 bytes per step in a 64-bit register (swar.ts). Both give the same results: every
// function returns an exact byte count, and loads never reach past `limit` (the tail is read byte by byte).
import { HIGH_BITS, firstFlagged, stringStopBytes, stringStopOrHighBytes } from "./swar";
import { copySequence, sequenceLength } from "./utf8";

// @ts-ignore: decorator
@inline function isStringStop(c: u32): bool {
  return c == 0x22 || c == 0x5c || c < 0x20;
}

// @ts-ignore: decorator
@inline function isPlainAscii(c: u32): bool {
  return c - 0x20 < 0x60 && c != 0x22 && c != 0x5c;
}

/** Lanes that end a plain run: '"', '\\' or a control byte. */
// @ts-ignore: decorator
@inline function stopLanes(x: v128): v128 {
  const control = i8x16.lt_u(x, i8x16.splat(0x20));
  const quote = i8x16.eq(x, i8x16.splat(0x22));
  const backslash = i8x16.eq(x, i8x16.splat(0x5c));
  return v128.or(v128.or(control, quote), backslash);
}

/**
 * stopLanes plus bytes >= 0x80. XOR 0x02 maps '"' to 0x20 and keeps the control bytes below 0x20 and the high bytes
 * negative, so one signed "below 0x21" finds all three (as stringStopOrHighBytes does in swar.ts).
 */
// @ts-ignore: decorator
@inline function stopOrHighLanes(x: v128): v128 {
  const quoteLowOrHigh = i8x16.lt_s(v128.xor(x, i8x16.splat(0x02)), i8x16.splat(0x21));
  const backslash = i8x16.eq(x, i8x16.splat(0x5c));
  return v128.or(quoteLowOrHigh, backslash);
}

/** Bytes from p before the first '"', '\\' or control byte in [p, limit), or limit - p if there is none. */
export function plainRunLength(p: usize, limit: usize): usize {
  let q = p;
  if (ASC_FEATURE_SIMD) {
    while (q + 32 <= limit) {
      const a = stopLanes(v128.load(q));
      const b = stopLanes(v128.load(q, 16));
      const m = <u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16);
      if (m) return q + <usize>ctz(m) - p;
      q += 32;
    }
    if (q + 16 <= limit) {
      const m = <u32>i8x16.bitmask(stopLanes(v128.load(q)));
      if (m) return q + <usize>ctz(m) - p;
      q += 16;
    }
  }
  while (q + 8 <= limit) {
    const stop = stringStopBytes(load<u64>(q));
    if (stop) return q + firstFlagged(stop) - p;
    q += 8;
  }
  while (q < limit && !isStringStop(<u32>load<u8>(q))) q++;
  return q - p;
}

/** Bytes of the one-block functions below: one SIMD vector, or two 64-bit words without SIMD. */
export const FIRST_BLOCK: i32 = 16;

/**
 * Index of the first '"', '\\' or control byte among the FIRST_BLOCK bytes at p, FIRST_BLOCK when there is none
 * there, or -1 when the block would reach past limit: the one-block case of plainRunLength, for the short strings
 * (keys, roles, types) a call and its loop setup cost more than the scan.
 */
// @ts-ignore: decorator
@inline export function stopInFirstBlock(p: usize, limit: usize): i32 {
  if (ASC_FEATURE_SIMD) {
    if (p + 16 > limit) return -1;
    const m = <u32>i8x16.bitmask(stopLanes(v128.load(p)));
    return m ? <i32>ctz(m) : 16;
  }
  if (p + 16 > limit) return -1;
  const stop = stringStopBytes(load<u64>(p));
  if (stop) return <i32>firstFlagged(stop);
  const stop2 = stringStopBytes(load<u64>(p, 8));
  return stop2 ? 8 + <i32>firstFlagged(stop2) : 16;
}

/**
 * Copies the FIRST_BLOCK bytes at src to dst and returns the index of the first byte among them that is not plain
 * ASCII ('"', '\\', a control byte or >= 0x80), FIRST_BLOCK when there is none there, or -1 when the block would
 * reach past limit or dEnd (nothing copied then): the one-block case of copyPlainAscii.
 */
// @ts-ignore: decorator
@inline export function copyFirstPlainBlock(src: usize, limit: usize, dst: usize, dEnd: usize): i32 {
  if (ASC_FEATURE_SIMD) {
    if (src + 16 > limit || dst + 16 > dEnd) return -1;
    const x = v128.load(src);
    v128.store(dst, x);
    const m = <u32>i8x16.bitmask(stopOrHighLanes(x));
    return m ? <i32>ctz(m) : 16;
  }
  if (src + 16 > limit || dst + 16 > dEnd) return -1;
  const x = load<u64>(src);
  const y = load<u64>(src, 8);
  store<u64>(dst, x);
  store<u64>(dst, y, 8);
  const stop = stringStopOrHighBytes(x);
  if (stop) return <i32>firstFlagged(stop);
  const stop2 = stringStopOrHighBytes(y);
  return stop2 ? 8 + <i32>firstFlagged(stop2) : 16;
}

/**
 * Copies the 32 bytes at src to dst (SIMD builds only) and returns the mask of those that are not plain ASCII (bit i:
 * byte i), 0 when all are.
 */
// @ts-ignore: decorator
@inline export function copyTwoBlocks(src: usize, dst: usize): u32 {
  const x = v128.load(src);
  const y = v128.load(src, 16);
  v128.store(dst, x);
  v128.store(dst, y, 16);
  const a = stopOrHighLanes(x);
  const b = stopOrHighLanes(y);
  if (!v128.any_true(v128.or(a, b))) return 0;
  return <u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16);
}

/**
 * Copies the 64 bytes at src to dst (SIMD builds only) and returns the mask of those that are not plain ASCII (bit i:
 * byte i), 0 when all are: copyTwoBlocks over twice the bytes, with one test.
 */
// @ts-ignore: decorator
@inline export function copyFourBlocks(src: usize, dst: usize): u64 {
  const w = v128.load(src);
  const x = v128.load(src, 16);
  const y = v128.load(src, 32);
  const z = v128.load(src, 48);
  v128.store(dst, w);
  v128.store(dst, x, 16);
  v128.store(dst, y, 32);
  v128.store(dst, z, 48);
  const a = stopOrHighLanes(w);
  const b = stopOrHighLanes(x);
  const c = stopOrHighLanes(y);
  const e = stopOrHighLanes(z);
  if (!v128.any_true(v128.or(v128.or(a, b), v128.or(c, e)))) return 0;
  return signMaskOfFour(a, b, c, e);
}

/** The mask of the bytes >= 0x80 among the 64 at p (SIMD builds only; bit i: byte i), as copyFourBlocks numbers them. */
// @ts-ignore: decorator
@inline export function highBytesOfFourBlocks(p: usize): u64 {
  return signMaskOfFour(v128.load(p), v128.load(p, 16), v128.load(p, 32), v128.load(p, 48));
}

/** The sign bits of the 64 lanes of four vectors as one mask, a's first (bit i: byte i of a 64-byte block). */
// @ts-ignore: decorator
@inline export function signMaskOfFour(a: v128, b: v128, c: v128, d: v128): u64 {
  const lo = <u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16);
  const hi = <u32>i8x16.bitmask(c) | (<u32>i8x16.bitmask(d) << 16);
  return <u64>lo | (<u64>hi << 32);
}

/**
 * Copies the run of plain ASCII bytes at src (not '"', '\\', a control byte or >= 0x80) to dst, at most
 * limit - src bytes and at most dEnd - dst. Returns the bytes of the run copied. Bytes of [dst, dEnd) past the
 * run may be overwritten.
 */
// @ts-ignore: decorator
@inline export function copyPlainAscii(src: usize, limit: usize, dst: usize, dEnd: usize): usize {
  let s = src;
  let d = dst;
  // One bound for both: the bytes that fit in the destination.
  const sEnd = src + min(limit - src, dEnd - dst);
  if (ASC_FEATURE_SIMD) {
    // The stop's offset is worked out once, after the loop, not set up in every round of it.
    let m: u32 = 0;
    while (s + 32 <= sEnd) {
      m = copyTwoBlocks(s, d);
      if (m) break;
      s += 32;
      d += 32;
    }
    if (m) return s + <usize>ctz(m) - src;
    if (s + 16 <= sEnd) {
      const x = v128.load(s);
      v128.store(d, x);
      const m = <u32>i8x16.bitmask(stopOrHighLanes(x));
      if (m) return s + <usize>ctz(m) - src;
      s += 16;
      d += 16;
    }
  }
  while (s + 8 <= sEnd) {
    const x = load<u64>(s);
    store<u64>(d, x);
    const stop = stringStopOrHighBytes(x);
    if (stop) return s + firstFlagged(stop) - src;
    s += 8;
    d += 8;
  }
  if (s < sEnd && d + 8 <= dEnd && s + 8 <= (<usize>memory.size() << 16)) {
    // The last (under 8) bytes as one block: the bytes past sEnd are read and written (within dEnd) but not counted.
    const x = load<u64>(s);
    store<u64>(d, x);
    const past = HIGH_BITS << (<u64>(sEnd - s) << 3);
    return s + firstFlagged(stringStopOrHighBytes(x) | past) - src;
  }
  while (s < sEnd) {
    const c = <u32>load<u8>(s);
    if (!isPlainAscii(c)) break;
    store<u8>(d, <u8>c);
    s++;
    d++;
  }
  return s - src;
}

/**
 * Copies the well-formed sequence at s (whose first byte is >= 0x80) to d when it fits before dEnd; returns its
 * length, or 0 when it is ill-formed or does not fit (nothing copied).
 */
// @ts-ignore: decorator
@inline function copySequenceThatFits(s: usize, limit: usize, d: usize, dEnd: usize): usize {
  const n = sequenceLength(s, limit);
  if (n <= 0 || d + <usize>n > dEnd) return 0;
  copySequence(d, s, <usize>n);
  return <usize>n;
}

/** More bytes >= 0x80 than this in 16 bytes is dense multi-byte text (CJK), which the caller copies a character at a
 *  time faster than a block check does. A few accents in Latin-script text stay below it. */
const DENSE_HIGH_BYTES: i32 = 6;

/**
 * Copies the run at src of plain ASCII bytes and well-formed UTF-8 sequences (which decode to themselves) to dst.
 * The run ends before the first '"', '\\', control byte or ill-formed sequence in [src, limit), before a sequence
 * that would not fit whole before dEnd (or an ASCII byte that does not fit), or, with SIMD, early at the start of a
 * sequence in dense multi-byte text. Returns the bytes copied; bytes of [dst, dEnd) past the run may be overwritten.
 * Latin-script text with accents goes through in one call, where copyPlainAscii returns at each accent.
 */
export function copyWellFormed(src: usize, limit: usize, dst: usize, dEnd: usize): usize {
  let s = src;
  let d = dst;
  // [s, checkedEnd): continuation bytes of a sequence the SIMD path already checked (and knows to fit).
  let checkedEnd = src;
  // One bound for both runs of plain bytes: the bytes that fit in the destination.
  const sEnd = src + min(limit - src, dEnd - dst);
  if (ASC_FEATURE_SIMD) {
    while (true) {
      // Whole blocks of plain ASCII, two at a time, then the first block with something else in it.
      let special: u32 = 0;
      while (s + 32 <= sEnd) {
        const m = copyTwoBlocks(s, d);
        if (m) {
          special = m & 0xffff;
          if (special == 0) {
            special = m >>> 16;
            s += 16;
            d += 16;
          }
          break;
        }
        s += 32;
        d += 32;
      }
      if (special == 0 && s + 16 <= sEnd) {
        const x = v128.load(s);
        v128.store(d, x);
        special = <u32>i8x16.bitmask(stopOrHighLanes(x));
        if (special == 0) {
          s += 16;
          d += 16;
        }
      }
      if (special == 0) break;
      const first = s + <usize>ctz(special);
      if (load<u8>(first) < 0x80) return first - src; // a stop comes first
      let high = <u32>i8x16.bitmask(v128.load(s)); // bytes >= 0x80
      const stop = special & ~high;
      if (stop) high &= (stop & (0 - stop)) - 1; // only those before the first stop
      if (checkedEnd > s) high &= ~((1 << <u32>(checkedEnd - s)) - 1);
      if (<i32>popcnt(high) > DENSE_HIGH_BYTES) return s + <usize>ctz(high) - src;
      while (high) {
        const k = <usize>ctz(high);
        const q = s + k;
        const n = sequenceLength(q, limit);
        if (n <= 0 || d + k + <usize>n > dEnd) return q - src;
        checkedEnd = q + <usize>n;
        high &= ~((1 << <u32>(k + <usize>n)) - 1);
      }
      if (stop) return s + <usize>ctz(stop) - src;
      s += 16;
      d += 16;
    }
  } else {
    while (s + 8 <= sEnd) {
      const x = load<u64>(s);
      store<u64>(d, x);
      const special = stringStopOrHighBytes(x);
      if (special == 0) {
        s += 8;
        d += 8;
        continue;
      }
      // The plain bytes before the first special one, then that one.
      const k = firstFlagged(special);
      s += k;
      d += k;
      if (load<u8>(s) < 0x80) return s - src;
      const n = copySequenceThatFits(s, limit, d, dEnd);
      if (n == 0) return s - src;
      s += n;
      d += n;
    }
  }
  while (s < sEnd) {
    const c = <u32>load<u8>(s);
    if (s < checkedEnd || isPlainAscii(c)) {
      store<u8>(d, <u8>c);
      s++;
      d++;
      continue;
    }
    if (c < 0x80) break;
    const n = copySequenceThatFits(s, limit, d, dEnd);
    if (n == 0) break;
    s += n;
    d += n;
  }
  return s - src;
}

