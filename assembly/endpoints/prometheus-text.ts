// Byte-level reading of Prometheus text (format 0.0.4): line ends, blanks, names, integers and sample values.
// Every function is bounded by the `end` it is given and reads nothing past it.
import { DecimalSyntax, parseDecimal } from "../json/number";
import { equalsIgnoreCase } from "../text/ascii";

export const LF: u32 = 0x0a;
export const CR: u32 = 0x0d;
export const SPACE: u32 = 0x20;
export const TAB: u32 = 0x09;
export const QUOTE: u32 = 0x22;
export const BACKSLASH: u32 = 0x5c;
export const COMMA: u32 = 0x2c;

/** Index of the first '\n' in [p, end), or end. Eight bytes at a time: most of a /metrics page is skipped here. */
export function findNewline(p: usize, end: usize): usize {
  while (p + 8 <= end) {
    const w = load<u64>(p) ^ 0x0a0a0a0a0a0a0a0a;
    const zeroBytes = (w - 0x0101010101010101) & ~w & 0x8080808080808080;
    if (zeroBytes != 0) return p + usize(ctz(zeroBytes) >> 3);
    p += 8;
  }
  while (p < end && <u32>load<u8>(p) != LF) p++;
  return p;
}

export function afterLastNewline(start: usize, end: usize): usize {
  let p = end;
  while (p > start) {
    if (<u32>load<u8>(p - 1) == LF) return p;
    p--;
  }
  return start;
}

// @ts-ignore: decorator
@inline
export function isBlank(c: u32): bool {
  return c == SPACE || c == TAB;
}

export function skipBlanks(p: usize, end: usize): usize {
  while (p < end && isBlank(<u32>load<u8>(p))) p++;
  return p;
}

// @ts-ignore: decorator
@inline
export function isNameChar(c: u32): bool {
  return (c - 0x61 < 26) || (c - 0x41 < 26) || (c - 0x30 < 10) || c == 0x5f || c == 0x3a;
}

/** Bytes at p equal the ASCII string lit (the caller guarantees lit.length bytes are readable). */
export function bytesEqual(p: usize, lit: string): bool {
  const n = lit.length;
  const s = changetype<usize>(lit);
  for (let i = 0; i < n; i++) {
    if (<u32>load<u8>(p + i) != <u32>load<u16>(s + (i << 1))) return false;
  }
  return true;
}

/** A non-negative decimal integer filling [s, e), or -1 (empty, "None", signs, fractions, more than 18 digits). */
export function parseInteger(s: usize, e: usize): i64 {
  if (s >= e || e - s > 18) return -1;
  let n: i64 = 0;
  for (let p = s; p < e; p++) {
    const d = <u32>load<u8>(p) - 0x30;
    if (d > 9) return -1;
    n = n * 10 + <i64>d;
  }
  return n;
}

/** Where a sample value ends and what it is (see readSampleValue). */
export class SampleValue {
  value: f64 = 0;
}

/**
 * Reads a sample value (Go ParseFloat syntax as Prometheus writes it: decimals, exponents, NaN, +Inf, -Inf) at q
 * into `out`. Returns the position after it, or 0 if the text there is not a value followed by a blank, '\r' or
 * the line end.
 */
export function readSampleValue(q: usize, end: usize, out: SampleValue): usize {
  if (q >= end) return 0;
  let negative = false;
  let c = <u32>load<u8>(q);
  if (c == 0x2b /* + */ || c == 0x2d /* - */) {
    negative = c == 0x2d;
    q++;
    if (q >= end) return 0;
    c = <u32>load<u8>(q) | 0x20;
  } else {
    c |= 0x20;
  }
  let v: f64;
  if (c == 0x6e /* n */) {
    if (end - q < 3 || !equalsIgnoreCase(q, 3, "nan")) return 0;
    q += 3;
    v = NaN;
  } else if (c == 0x69 /* i */) {
    if (end - q < 3 || !equalsIgnoreCase(q, 3, "inf")) return 0;
    q += 3;
    if (end - q >= 5 && equalsIgnoreCase(q, 5, "inity")) q += 5;
    v = Infinity;
  } else {
    // The number runs to the blank (or '\r', or the line end) that must follow it.
    let t = q;
    while (t < end) {
      const b = <u32>load<u8>(t);
      if (isBlank(b) || b == CR) break;
      t++;
    }
    v = parseDecimal(q, t, DecimalSyntax.Unsigned);
    if (isNaN(v)) return 0;
    q = t;
  }
  if (q < end) {
    const t = <u32>load<u8>(q);
    if (!isBlank(t) && t != CR) return 0;
  }
  out.value = negative ? -v : v;
  return q;
}
