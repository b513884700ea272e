// Bulk scans of the plain runs inside JSON strings: the bytes a scanner or decoder can pass (or copy) without
// looking at them one by one. With WebAssembly SIMD (asc --enable simd, ASC_FEATURE_SIMD) 16 bytes are tested
// per step; without it 8 bytes per step in a 64-bit register (swar.ts). Both give the same results: every
// function returns an exact byte count, and loads never reach past `limit` (the tail is read byte by byte).
import { firstFlagged, stringStopBytes, stringStopOrHighBytes } from "./swar";

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

/** stopLanes plus bytes >= 0x80: signed, those and the control bytes are exactly the lanes below 0x20. */
// @ts-ignore: decorator
@inline function stopOrHighLanes(x: v128): v128 {
  const lowOrHigh = i8x16.lt_s(x, i8x16.splat(0x20));
  const quote = i8x16.eq(x, i8x16.splat(0x22));
  const backslash = i8x16.eq(x, i8x16.splat(0x5c));
  return v128.or(v128.or(lowOrHigh, quote), backslash);
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

/**
 * Copies the run of plain ASCII bytes at src (not '"', '\\', a control byte or >= 0x80) to dst, at most
 * limit - src bytes and at most dEnd - dst. Returns the bytes of the run copied. Bytes of [dst, dEnd) past the
 * run may be overwritten.
 */
export function copyPlainAscii(src: usize, limit: usize, dst: usize, dEnd: usize): usize {
  let s = src;
  let d = dst;
  if (ASC_FEATURE_SIMD) {
    while (s + 16 <= limit && d + 16 <= dEnd) {
      const x = v128.load(s);
      v128.store(d, x);
      const m = <u32>i8x16.bitmask(stopOrHighLanes(x));
      if (m) return s + <usize>ctz(m) - src;
      s += 16;
      d += 16;
    }
  }
  while (s + 8 <= limit && d + 8 <= dEnd) {
    const x = load<u64>(s);
    store<u64>(d, x);
    const stop = stringStopOrHighBytes(x);
    if (stop) return s + firstFlagged(stop) - src;
    s += 8;
    d += 8;
  }
  while (s < limit && d < dEnd) {
    const c = <u32>load<u8>(s);
    if (!isPlainAscii(c)) break;
    store<u8>(d, <u8>c);
    s++;
    d++;
  }
  return s - src;
}
