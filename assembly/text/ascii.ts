// Byte-level ASCII helpers for header values and other protocol text (case-insensitive compares, media types,
// Content-Length, token lists), so the request path reads them without allocating.

import { equalsLowerAscii } from "./ascii-fold";

@inline function lower(c: u32): u32 {
  return c - 65 < 26 ? c | 0x20 : c;
}

/** Whether bytes [ptr, ptr+len) equal `lit` (ASCII, already lower-case) ignoring ASCII case. */
export function equalsIgnoreCase(ptr: usize, len: usize, lit: string): bool {
  if (<usize>lit.length != len) return false;
  for (let i: usize = 0; i < len; i++) {
    if (lower(load<u8>(ptr + i)) != <u32>lit.charCodeAt(<i32>i)) return false;
  }
  return true;
}

/** Whether bytes [ptr, ptr+len) equal the ASCII literal `lit` exactly (case-sensitive). */
export function equalsExactly(ptr: usize, len: usize, lit: string): bool {
  if (<usize>lit.length != len) return false;
  for (let i: usize = 0; i < len; i++) {
    if (<u32>load<u8>(ptr + i) != <u32>lit.charCodeAt(<i32>i)) return false;
  }
  return true;
}

const APPLICATION_JSON = String.UTF8.encode("application/json");

/** Whether the value, up to its first ';' and without surrounding blanks, is the media type `lit`, or a
 *  structured-syntax type ending in "+json" when `lit` is "application/json". */
export function isJsonMediaType(ptr: usize, len: usize): bool {
  // The common value, as it is: no parameters, no blanks.
  if (len == 16 && equalsLowerAscii(ptr, len, APPLICATION_JSON)) return true;
  let end = ptr + len;
  for (let p = ptr; p < end; p++) {
    if (load<u8>(p) == 0x3b) {
      end = p;
      break;
    }
  }
  let start = ptr;
  while (start < end && (load<u8>(start) == 0x20 || load<u8>(start) == 0x09)) start++;
  while (end > start && (load<u8>(end - 1) == 0x20 || load<u8>(end - 1) == 0x09)) end--;
  const n = end - start;
  if (equalsIgnoreCase(start, n, "application/json")) return true;
  // application/<anything>+json
  if (n > 17 && equalsIgnoreCase(start, 12, "application/") && equalsIgnoreCase(end - 5, 5, "+json")) return true;
  return false;
}

/** A Content-Length value: digits only (blanks around allowed), at most 15 digits; -1 when invalid. */
export function parseContentLength(ptr: usize, len: usize): i64 {
  let p = ptr;
  let end = ptr + len;
  while (p < end && (load<u8>(p) == 0x20 || load<u8>(p) == 0x09)) p++;
  while (end > p && (load<u8>(end - 1) == 0x20 || load<u8>(end - 1) == 0x09)) end--;
  if (p == end || end - p > 15) return -1;
  let v: i64 = 0;
  for (; p < end; p++) {
    const d = <i32>load<u8>(p) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Whether a comma-separated header value contains `token` (ASCII, lower-case) ignoring case and blanks. */
export function hasToken(ptr: usize, len: usize, token: string): bool {
  let start = ptr;
  const end = ptr + len;
  for (let p = ptr; p <= end; p++) {
    if (p == end || load<u8>(p) == 0x2c) {
      let a = start;
      let b = p;
      while (a < b && (load<u8>(a) == 0x20 || load<u8>(a) == 0x09)) a++;
      while (b > a && (load<u8>(b - 1) == 0x20 || load<u8>(b - 1) == 0x09)) b--;
      if (equalsIgnoreCase(a, b - a, token)) return true;
      start = p + 1;
    }
  }
  return false;
}
