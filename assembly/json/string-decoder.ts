// Decoding of JSON string content (the bytes between the quotes) into UTF-8.
import { FIRST_BLOCK, copyFirstPlainBlock, copyPlainAscii } from "./string-runs";
import { REPLACEMENT_CHAR, copySequence, decodeMultiByte, encodeCodePoint, encodedLength, multiByteSequenceLength, sequenceLength } from "./utf8";

/**
 * Keep the output a JSON string body, escaped in one canonical way whatever the input's spelling: '"' and '\\' as
 * \" and \\, the control characters with a short escape (\b \t \n \f \r) as such and the others as \u00xx (lower
 * case hex), every other character unescaped (so \u00e9, \/ and \ud83d\ude00 read as the characters themselves).
 * Raw JSON string bytes are never '"', '\\' or controls, so they stay as they are (ill-formed UTF-8 is replaced).
 */
export const CANONICAL_ESCAPES: i32 = 1;
/**
 * Write decoded control bytes 0x1A..0x1F as two bytes 0x1B, byte + 0x40, so that they can serve as
 * unambiguous separators in the output. Raw JSON strings never contain them; only \u escapes can.
 */
export const ESCAPE_SEPARATOR_BYTES: i32 = 2;

/** The bytes a decodeJsonString result says were written. */
// @ts-ignore: decorator
@inline
export function decodedBytes(result: i32): i32 {
  return result >= 0 ? result : ~result;
}

/** Whether a decodeJsonString result stopped because the next character did not fit in cap. */
// @ts-ignore: decorator
@inline
export function stoppedAtCap(result: i32): bool {
  return result < 0;
}

/** Value of 4 hex digits at p (caller guarantees 4 readable bytes), or -1. */
export function hex4(p: usize): i32 {
  let v: i32 = 0;
  for (let i: usize = 0; i < 4; i++) {
    const c = <i32>load<u8>(p + i);
    let d: i32;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return -1;
    v = (v << 4) | d;
  }
  return v;
}

// The byte each ASCII escape letter stands for, 0xff (-1 as i8) where it is not a short escape: one load where a
// switch compares the letter with each of them in turn.
const SHORT_ESCAPE_VALUES = memory.data<u8>([
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0x22, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x2f,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5c, 0xff, 0xff, 0xff,
  0xff, 0xff, 0x08, 0xff, 0xff, 0xff, 0x0c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0a, 0xff,
  0xff, 0xff, 0x0d, 0xff, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,

]);

/** The byte an escape letter stands for (the letter after the backslash), or -1 if it is not a short escape. */
// @ts-ignore: decorator
@inline export function shortEscapeValue(e: u32): i32 {
  return e < 0x80 ? <i32>load<i8>(SHORT_ESCAPE_VALUES + <usize>e) : -1;
}

// @ts-ignore: decorator
@inline function pack(cp: u32, consumed: usize): u64 {
  return <u64>cp | (<u64>consumed << 32);
}

/**
 * Reads one character of JSON string content at p (p < end): an escape, an ASCII byte or a UTF-8 sequence.
 * Returns the code point in the low 32 bits and the bytes consumed (>= 1) in the high 32 bits.
 * Bad escapes, lone surrogates and ill-formed UTF-8 read as U+FFFD.
 */
export function readJsonCodePoint(p: usize, end: usize): u64 {
  const c = <u32>load<u8>(p);
  if (c < 0x80) {
    if (c != 0x5c) return pack(c, 1);
    if (p + 1 >= end) return pack(REPLACEMENT_CHAR, 1);
    const e = <u32>load<u8>(p + 1);
    if (e != 0x75) {
      const v = shortEscapeValue(e);
      return v < 0 ? pack(REPLACEMENT_CHAR, 1) : pack(<u32>v, 2);
    }
    if (p + 6 > end) return pack(REPLACEMENT_CHAR, 1);
    const u = hex4(p + 2);
    if (u < 0) return pack(REPLACEMENT_CHAR, 1);
    if (u < 0xd800 || u > 0xdfff) return pack(<u32>u, 6);
    if (u >= 0xdc00) return pack(REPLACEMENT_CHAR, 6);
    // High surrogate: only a directly following \uDC00..\uDFFF completes it.
    if (p + 12 <= end && load<u8>(p + 6) == 0x5c && load<u8>(p + 7) == 0x75) {
      const lo = hex4(p + 8);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        return pack(0x10000 + ((<u32>(u - 0xd800)) << 10) + <u32>(lo - 0xdc00), 12);
      }
    }
    return pack(REPLACEMENT_CHAR, 6);
  }
  const n = multiByteSequenceLength(p, end);
  if (n < 0) return pack(REPLACEMENT_CHAR, <usize>-n);
  return pack(decodeMultiByte(p, n), <usize>n);
}


/**
 * Writes cp as UTF-8 at d if it fits before dEnd; returns the new write position, or d itself when it
 * does not fit (nothing written). With ESCAPE_SEPARATOR_BYTES, 0x1A..0x1F become the pair 0x1B, cp + 0x40.
 */
export function putCodePoint(d: usize, dEnd: usize, cp: u32, flags: i32): usize {
  if ((flags & ESCAPE_SEPARATOR_BYTES) != 0 && cp - 0x1a < 6) {
    if (d + 2 > dEnd) return d;
    store<u8>(d, 0x1b);
    store<u8>(d, <u8>(cp + 0x40), 1);
    return d + 2;
  }
  const n = <usize>encodedLength(cp);
  if (d + n > dEnd) return d;
  encodeCodePoint(d, cp);
  return d + n;
}

const HEX_DIGITS = "0123456789abcdef";

/** The letter of the short escape for the control character or quote cp, or 0 if it has none. */
function shortEscapeLetter(cp: u32): u32 {
  switch (cp) {
    case 0x22: return 0x22; // "
    case 0x5c: return 0x5c; // \
    case 0x08: return 0x62; // b
    case 0x09: return 0x74; // t
    case 0x0a: return 0x6e; // n
    case 0x0c: return 0x66; // f
    case 0x0d: return 0x72; // r
  }
  return 0;
}

/** Bytes of cp in its canonical JSON spelling (CANONICAL_ESCAPES). */
export function canonicalLength(cp: u32): usize {
  if (shortEscapeLetter(cp) != 0) return 2;
  return cp < 0x20 ? 6 : <usize>encodedLength(cp);
}

/** cp's canonical spelling is an escape (ASCII, which the cap may cut anywhere), not the character itself. */
export function isCanonicalEscape(cp: u32): bool {
  return cp < 0x20 || shortEscapeLetter(cp) != 0;
}

/** Writes cp in its canonical JSON spelling at d, as far as it fits before dEnd; returns the new write position. */
export function putCanonical(d: usize, dEnd: usize, cp: u32): usize {
  const letter = shortEscapeLetter(cp);
  if (letter == 0 && cp >= 0x20) return putCodePoint(d, dEnd, cp, 0);
  let e = d;
  if (e < dEnd) store<u8>(e++, 0x5c);
  if (letter != 0) {
    if (e < dEnd) store<u8>(e++, <u8>letter);
    return e;
  }
  if (e < dEnd) store<u8>(e++, 0x75);
  if (e < dEnd) store<u8>(e++, 0x30);
  if (e < dEnd) store<u8>(e++, 0x30);
  if (e < dEnd) store<u8>(e++, <u8>HEX_DIGITS.charCodeAt(<i32>(cp >> 4)));
  if (e < dEnd) store<u8>(e++, <u8>HEX_DIGITS.charCodeAt(<i32>(cp & 0xf)));
  return e;
}

/** Length of the well-formed escape sequence at p (which holds a backslash): 2, 6, or 0 if malformed. */
export function escapeLength(p: usize, end: usize): usize {
  if (p + 1 >= end) return 0;
  const e = <u32>load<u8>(p + 1);
  if (e == 0x75) return p + 6 <= end && hex4(p + 2) >= 0 ? 6 : 0;
  return shortEscapeValue(e) >= 0 ? 2 : 0;
}

/**
 * Decodes JSON string content [src, srcEnd) into UTF-8 at dst, writing at most cap bytes and never a partial
 * character (nor half of an escaped separator pair). Returns the number of bytes written when it decoded
 * everything, or ~written when it stopped early at the cap (read it with decodedBytes / stoppedAtCap).
 * flags: CANONICAL_ESCAPES | ESCAPE_SEPARATOR_BYTES.
 */
export function decodeJsonString(src: usize, srcEnd: usize, dst: usize, cap: i32, flags: i32): i32 {
  let stopped = false;
  const dEnd = dst + <usize>max(cap, 0);
  // A short plain string (keys, names, types): one block copied, when the block can be read and written whole.
  const block = <usize>FIRST_BLOCK;
  if (srcEnd - src <= block && dst + block <= dEnd && src + block <= (<usize>memory.size() << 16)) {
    if (<usize>copyFirstPlainBlock(src, src + block, dst, dst + block) >= srcEnd - src) return <i32>(srcEnd - src);
  }
  const canonical = (flags & CANONICAL_ESCAPES) != 0;
  let s = src;
  let d = dst;
  while (s < srcEnd) {
    const run = copyPlainAscii(s, srcEnd, d, dEnd);
    s += run;
    d += run;
    if (s >= srcEnd) break;
    const c = <u32>load<u8>(s);
    if (c < 0x80 && c != 0x5c) {
      if (d >= dEnd) {
        stopped = true;
        break;
      }
      store<u8>(d, <u8>c);
      s++;
      d++;
      continue;
    }
    if (c >= 0x80) {
      // A well-formed sequence decodes to itself.
      const n = sequenceLength(s, srcEnd);
      if (n > 0) {
        if (d + <usize>n > dEnd) {
          stopped = true;
          break;
        }
        copySequence(d, s, <usize>n);
        s += <usize>n;
        d += <usize>n;
        continue;
      }
    }
    if (c == 0x5c && canonical && s + 1 < srcEnd && d + 2 <= dEnd) {
      // A short escape other than \/ is its own canonical spelling: its two bytes, as putCanonical writes them.
      const e = <u32>load<u8>(s, 1);
      if (e != 0x2f && shortEscapeValue(e) >= 0) {
        store<u16>(d, load<u16>(s));
        s += 2;
        d += 2;
        continue;
      }
    }
    if (c == 0x5c && canonical && escapeLength(s, srcEnd) > 0) {
      const r = readJsonCodePoint(s, srcEnd);
      const cp = <u32>r;
      if (d + canonicalLength(cp) > dEnd) {
        // An escape is ASCII and may be cut at the cap like any ASCII text; a character is not.
        if (isCanonicalEscape(cp)) d = putCanonical(d, dEnd, cp);
        stopped = true;
        break;
      }
      d = putCanonical(d, dEnd, cp);
      s += <usize>(r >> 32);
      continue;
    }
    const r = readJsonCodePoint(s, srcEnd);
    const next = putCodePoint(d, dEnd, <u32>r, flags);
    if (next == d) {
      stopped = true;
      break;
    }
    d = next;
    s += <usize>(r >> 32);
  }
  const written = <i32>(d - dst);
  return stopped ? ~written : written;
}
