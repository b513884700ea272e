// UTF-8 validation and encoding on raw memory (Unicode 15, table 3-7 well-formed byte sequences).

export const REPLACEMENT_CHAR: u32 = 0xfffd;

/**
 * Length (2..4) of the well-formed multi-byte UTF-8 sequence at p, or the negated length (-1..-3) of its
 * maximal ill-formed subpart, which a decoder replaces by one U+FFFD (the WHATWG / Unicode practice).
 * Never reads at or past end. The byte at p must be >= 0x80.
 */
export function multiByteSequenceLength(p: usize, end: usize): i32 {
  const lead = <u32>load<u8>(p);
  let need: i32;
  let lo: u32 = 0x80;
  let hi: u32 = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    need = 1;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    need = 2;
    if (lead == 0xe0) lo = 0xa0;
    else if (lead == 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    need = 3;
    if (lead == 0xf0) lo = 0x90;
    else if (lead == 0xf4) hi = 0x8f;
  } else {
    return -1;
  }
  let q = p + 1;
  for (let i = 0; i < need; i++) {
    if (q >= end) return -(i + 1);
    const b = <u32>load<u8>(q);
    if (b < lo || b > hi) return -(i + 1);
    lo = 0x80;
    hi = 0xbf;
    q++;
  }
  return need + 1;
}

/**
 * multiByteSequenceLength with the common cases inline: a 2-byte sequence, a 3-byte one whose lead byte
 * (E1..EC, EE, EF) allows any continuation bytes, or a 4-byte one led by F0 (emoji: second byte 90..BF) or F1..F3.
 */
// @ts-ignore: decorator
@inline export function sequenceLength(p: usize, end: usize): i32 {
  const lead = <u32>load<u8>(p);
  if (lead - 0xc2 < 0x1e) {
    if (p + 2 <= end && (load<u8>(p, 1) & 0xc0) == 0x80) return 2;
  } else if (lead - 0xe1 < 0x0c || lead - 0xee < 2) {
    if (p + 3 <= end && (load<u16>(p, 1) & 0xc0c0) == 0x8080) return 3;
  } else if (lead - 0xf0 < 4 && p + 4 <= end) {
    const x = load<u32>(p);
    if ((x & 0xc0c0c000) == 0x80808000 && (lead != 0xf0 || (x & 0x3000) != 0)) return 4;
  }
  return multiByteSequenceLength(p, end);
}

/** Decodes the well-formed sequence of length n (2..4) at p. */
export function decodeMultiByte(p: usize, n: i32): u32 {
  const b0 = <u32>load<u8>(p);
  const b1 = <u32>load<u8>(p + 1) & 0x3f;
  if (n == 2) return ((b0 & 0x1f) << 6) | b1;
  const b2 = <u32>load<u8>(p + 2) & 0x3f;
  if (n == 3) return ((b0 & 0x0f) << 12) | (b1 << 6) | b2;
  const b3 = <u32>load<u8>(p + 3) & 0x3f;
  return ((b0 & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3;
}

/** Bytes needed to encode code point cp (surrogates are never passed in). */
// @ts-ignore: decorator
@inline export function encodedLength(cp: u32): i32 {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** Writes cp as UTF-8 at dst (caller checked room for encodedLength(cp) bytes); returns bytes written. */
export function encodeCodePoint(dst: usize, cp: u32): i32 {
  if (cp < 0x80) {
    store<u8>(dst, <u8>cp);
    return 1;
  }
  if (cp < 0x800) {
    store<u8>(dst, <u8>(0xc0 | (cp >> 6)));
    store<u8>(dst, <u8>(0x80 | (cp & 0x3f)), 1);
    return 2;
  }
  if (cp < 0x10000) {
    store<u8>(dst, <u8>(0xe0 | (cp >> 12)));
    store<u8>(dst, <u8>(0x80 | ((cp >> 6) & 0x3f)), 1);
    store<u8>(dst, <u8>(0x80 | (cp & 0x3f)), 2);
    return 3;
  }
  store<u8>(dst, <u8>(0xf0 | (cp >> 18)));
  store<u8>(dst, <u8>(0x80 | ((cp >> 12) & 0x3f)), 1);
  store<u8>(dst, <u8>(0x80 | ((cp >> 6) & 0x3f)), 2);
  store<u8>(dst, <u8>(0x80 | (cp & 0x3f)), 3);
  return 4;
}

/** Copies the n (2..4) bytes of a sequence; small fixed-size moves instead of a memory.copy call. */
// @ts-ignore: decorator
@inline export function copySequence(dst: usize, src: usize, n: usize): void {
  store<u16>(dst, load<u16>(src));
  if (n > 2) {
    store<u8>(dst, load<u8>(src, 2), 2);
    if (n > 3) store<u8>(dst, load<u8>(src, 3), 3);
  }
}
