// A pull tokenizer over raw linear memory: strict RFC 8259 grammar, bounded nesting, one step per token,
// no allocation after construction.
import { JsonToken } from "./token";
import { FIRST_BLOCK, copyFirstPlainBlock, copyFourBlocks, copyPlainAscii, copyWellFormed, highBytesOfFourBlocks, plainRunLength, stopInFirstBlock } from "./string-runs";
import { wellFormedLength } from "./utf8-blocks";
import { CANONICAL_ESCAPES, canonicalLength, decodeJsonString, decodedBytes, escapeLength, isCanonicalEscape, putCanonical, putCodePoint, readJsonCodePoint, shortEscapeValue } from "./string-decoder";
import { REPLACEMENT_CHAR, copySequence, sequenceLength } from "./utf8";
import { jsonStringEquals } from "./string-compare";
import { parseNumberF64 } from "./number";
import { StepBudget } from "./step-budget";

export { JsonToken } from "./token";
export { StepBudget } from "./step-budget";

// What the grammar allows at the current position. A value's context (VALUE_*) plus AFTER_OFFSET is the state
// after it; each open container keeps the state after it in afterAt, so a close needs no look-up of its parent.
const VALUE_TOP: i32 = 0; // document start
const VALUE_ELEMENT: i32 = 1; // after ',' in an array
const VALUE_MEMBER: i32 = 2; // after a key and its ':'
const AFTER_OFFSET: i32 = 3;
const AFTER_TOP: i32 = 3; // the document's value ended
const AFTER_ELEMENT: i32 = 4; // an array element ended
const AFTER_MEMBER: i32 = 5; // an object member's value ended
const ELEMENT_OR_ARR_END: i32 = 6; // just after '['
const KEY_OR_OBJ_END: i32 = 7; // just after '{'
const FINISHED: i32 = 8; // token holds End, Error or Budget for good

// Bytes >= 0x80 from which the SIMD decoder checks a 64-byte block's UTF-8 as a whole (wellFormedLength).
const VALIDATED_HIGH_BYTES: i32 = 12;

// @ts-ignore: decorator
@inline function skipWhitespace(p: usize, limit: usize): usize {
  return p < limit && load<u8>(p) <= 0x20 ? whitespaceEnd(p, limit) : p;
}

// skipWhitespace past its first byte (a byte up to 0x20), out of line: minified JSON has none.
function whitespaceEnd(p: usize, limit: usize): usize {
  while (p < limit) {
    const c = load<u8>(p);
    if (c > 0x20 || (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09)) break;
    p++;
  }
  return p;
}

// @ts-ignore: decorator
@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

export class JsonScanner {
  /** Last token returned by next(). */
  token: i32 = JsonToken.End;
  /** String: bytes between the quotes. Number: its bytes. Other tokens: their own bytes. */
  start: usize = 0;
  end: usize = 0;
  /** First byte of the last token (the opening quote for strings); with pos it spans a scalar value. */
  tokenStart: usize = 0;
  /** Read position: just after the last token (at the offending byte after Error). */
  pos: usize = 0;
  /** The last String token is an object key (the ':' after it was already consumed). */
  isKey: bool = false;
  /** The last String token contains backslash escapes. */
  hasEscapes: bool = false;
  /** Containers currently open. */
  depth: i32 = 0;
  /** After nextDecoded(): bytes of the string written at dst, and whether it stopped at the cap. */
  decodedLen: i32 = 0;
  decodeFilled: bool = false;

  private limit: usize = 0;
  // Destination of nextDecoded() when it goes through next(): a string value read while sinkOn is decoded into it.
  private sinkOn: bool = false;
  private sinkDst: usize = 0;
  private sinkEnd: usize = 0;
  private sinkFlags: i32 = 0;
  // Each next() that reads input costs one step of this budget; by default the scanner's own.
  private readonly ownBudget: StepBudget = new StepBudget();
  private budget: StepBudget = this.ownBudget;
  private expect: i32 = FINISHED;
  private readonly maxDepth: i32;
  // Per open container: the state after it (AFTER_TOP, AFTER_ELEMENT or AFTER_MEMBER).
  private readonly afterAt: StaticArray<u8>;

  constructor(maxDepth: i32) {
    this.maxDepth = max(maxDepth, 0);
    this.afterAt = new StaticArray<u8>(max(maxDepth, 1));
  }

  /** Steps left in the budget this scanner draws from. */
  get stepsLeft(): i32 {
    return this.budget.left;
  }

  /** Starts a new document of len bytes at ptr with a budget of maxSteps tokens. */
  reset(ptr: usize, len: usize, maxSteps: i32): void {
    this.ownBudget.left = maxSteps;
    this.resetShared(ptr, len, this.ownBudget);
  }

  /** Starts a new document of len bytes at ptr, drawing steps from a budget shared with other scanners. */
  resetShared(ptr: usize, len: usize, budget: StepBudget): void {
    this.budget = budget;
    this.pos = ptr;
    this.limit = ptr + len;
    this.depth = 0;
    this.expect = VALUE_TOP;
    this.token = 0;
    this.start = ptr;
    this.end = ptr;
    this.tokenStart = ptr;
    this.isKey = false;
    this.hasEscapes = false;
  }

  /** Reads the next token. After End, Error or Budget it keeps returning that token without cost. */
  next(): i32 {
    let expect = this.expect;
    if (expect == FINISHED) return this.token;
    const budget = this.budget;
    const left = budget.left;
    if (left <= 0) return this.finish(JsonToken.Budget);
    budget.left = left - 1;
    const limit = this.limit;
    let p = skipWhitespace(this.pos, limit);

    if (expect == AFTER_MEMBER) {
      // The common case of an object's members: ',' and the next key read in one step.
      if (p >= limit) return this.fail(p);
      const c = load<u8>(p);
      if (c == 0x2c) {
        p = skipWhitespace(p + 1, limit);
        if (p + <usize>(FIRST_BLOCK + 2) <= limit && load<u8>(p) == 0x22 && this.plainKey(p)) return JsonToken.String;
      } else if (c == 0x7d) {
        return this.close(p, JsonToken.ObjEnd);
      } else {
        return this.fail(p);
      }
    } else if (expect == KEY_OR_OBJ_END) {
      if (p + <usize>(FIRST_BLOCK + 2) <= limit && load<u8>(p) == 0x22 && this.plainKey(p)) return JsonToken.String;
      if (p < limit && load<u8>(p) == 0x7d) return this.close(p, JsonToken.ObjEnd);
    } else {
      if (expect == AFTER_ELEMENT) {
        if (p >= limit) return this.fail(p);
        const c = load<u8>(p);
        if (c == 0x2c) {
          p = skipWhitespace(p + 1, limit);
          expect = VALUE_ELEMENT;
        } else if (c == 0x5d) {
          return this.close(p, JsonToken.ArrEnd);
        } else {
          return this.fail(p);
        }
      } else if (expect == ELEMENT_OR_ARR_END) {
        if (p < limit && load<u8>(p) == 0x5d) return this.close(p, JsonToken.ArrEnd);
        expect = VALUE_ELEMENT;
      } else if (expect == AFTER_TOP) {
        this.pos = p;
        return p == limit ? this.finish(JsonToken.End) : this.finish(JsonToken.Error);
      }
      return this.value(p, expect + AFTER_OFFSET);
    }

    // A key and its ':'.
    if (p >= limit) return this.fail(p);
    this.tokenStart = p;
    if (load<u8>(p) != 0x22) return this.fail(p);
    const after = this.scanString(p);
    if (after == 0) return this.fail(this.pos);
    const colon = skipWhitespace(after, limit);
    if (colon >= limit || load<u8>(colon) != 0x3a) return this.fail(colon);
    this.pos = colon + 1;
    this.expect = VALUE_MEMBER;
    this.isKey = true;
    this.token = JsonToken.String;
    return JsonToken.String;
  }

  /**
   * Reads the next token as next() would when it is the object key whose bytes at the read position, up to and with its
   * ':', are the n (2 to 16) bytes of lo and hi (little-endian; hi for bytes 8 on): in the member's first place, the
   * quoted key and ':', after a member, ',' first. A plain key the caller expects, told by one or two compares instead
   * of a scan. False, with nothing changed, when those bytes are not there (whitespace, another key, an escape), no step
   * is left, fewer than 16 bytes are, or the scanner is not between members.
   */
  // @ts-ignore: decorator
  @inline nextKeyBytes(lo: u64, hi: u64, n: usize): bool {
    // The bytes start with ',' after a member and only then.
    const afterMember = (<u32>lo & 0xff) == 0x2c;
    if (this.expect != (afterMember ? AFTER_MEMBER : KEY_OR_OBJ_END)) return false;
    const p = this.pos;
    if (p + 16 > this.limit) return false;
    const budget = this.budget;
    const left = budget.left;
    if (left <= 0) return false;
    if (n <= 8) {
      if ((load<u64>(p) & (<u64>-1 >> ((8 - n) << 3))) != lo) return false;
    } else if (load<u64>(p) != lo || (load<u64>(p, 8) & (<u64>-1 >> ((16 - n) << 3))) != hi) {
      return false;
    }
    budget.left = left - 1;
    const colon = p + n - 1;
    const open = afterMember ? p + 1 : p;
    this.tokenStart = open;
    this.start = open + 1;
    this.end = colon - 1;
    this.hasEscapes = false;
    this.pos = colon + 1;
    this.expect = VALUE_MEMBER;
    this.isKey = true;
    this.token = JsonToken.String;
    return true;
  }

  /**
   * Reads the next token as next() would when it is a member's string value of fewer than FIRST_BLOCK plain ASCII bytes
   * right at the read position (a role, a type), and copies the FIRST_BLOCK bytes after its quote to dst: its content
   * (its own decoding) and bytes past it. Returns the content's length; -1, with nothing changed but those bytes, when
   * the value is not such a string (whitespace, an escape, a byte >= 0x80, longer), no step is left, or the block would
   * reach past the input.
   */
  // @ts-ignore: decorator
  @inline nextShortPlainValue(dst: usize): i32 {
    const open = this.pos;
    if (this.expect != VALUE_MEMBER || open >= this.limit || load<u8>(open) != 0x22) return -1;
    const p = open + 1;
    const k = copyFirstPlainBlock(p, this.limit, dst, dst + <usize>FIRST_BLOCK);
    const close = p + <usize>k;
    if (<u32>k >= <u32>FIRST_BLOCK || load<u8>(close) != 0x22) return -1;
    const budget = this.budget;
    const left = budget.left;
    if (left <= 0) return -1;
    budget.left = left - 1;
    this.tokenStart = open;
    this.isKey = false;
    this.start = p;
    this.end = close;
    this.hasEscapes = false;
    this.scalar(close + 1, JsonToken.String, AFTER_MEMBER);
    return k;
  }

  /**
   * The three tokens nextKeyBytes(roleKey, 0, roleBytes), nextShortPlainValue(dst) and nextKeyBytes(contentLo,
   * contentHi, contentBytes) read when all three succeed, in one call: a message's first member, a short plain string
   * (copied to dst as nextShortPlainValue copies it), and the key of the member after it, which starts with ','
   * (roleBytes up to 8, contentBytes 9 to 16). The scanner ends as after the third, its state written once instead of
   * three times. Returns the value's length; -1, with nothing changed but the bytes at dst, when any of the three
   * would fail (the caller then reads them one at a time).
   */
  // @ts-ignore: decorator
  @inline nextFirstMemberAndKey(roleKey: u64, roleBytes: usize, contentLo: u64, contentHi: u64, contentBytes: usize, dst: usize): i32 {
    if (this.expect != KEY_OR_OBJ_END) return -1;
    const p = this.pos;
    const limit = this.limit;
    // 16 bytes from p cover the key and the value's quote; copyFirstPlainBlock checks the value's block.
    if (p + 16 > limit || (load<u64>(p) & (<u64>-1 >> ((8 - roleBytes) << 3))) != roleKey) return -1;
    const q = p + roleBytes + 1;
    if (load<u8>(q - 1) != 0x22) return -1;
    const k = copyFirstPlainBlock(q, limit, dst, dst + <usize>FIRST_BLOCK);
    const close = q + <usize>k;
    if (<u32>k >= <u32>FIRST_BLOCK || load<u8>(close) != 0x22) return -1;
    const c = close + 1;
    if (c + 16 > limit || load<u64>(c) != contentLo || (load<u64>(c, 8) & (<u64>-1 >> ((16 - contentBytes) << 3))) != contentHi) {
      return -1;
    }
    const budget = this.budget;
    const left = budget.left;
    if (left < 3) return -1;
    budget.left = left - 3;
    const colon = c + contentBytes - 1;
    this.tokenStart = c + 1;
    this.start = c + 2;
    this.end = colon - 1;
    this.hasEscapes = false;
    this.pos = colon + 1;
    this.expect = VALUE_MEMBER;
    this.isKey = true;
    this.token = JsonToken.String;
    return k;
  }

  /**
   * Reads the next token as next() would when it is the '}' at the read position that ends an object after a member;
   * false, with nothing changed, otherwise (whitespace, another member, no step left).
   */
  // @ts-ignore: decorator
  @inline nextIsObjEnd(): bool {
    const p = this.pos;
    if (this.expect != AFTER_MEMBER || p >= this.limit || load<u8>(p) != 0x7d) return false;
    const budget = this.budget;
    const left = budget.left;
    if (left <= 0) return false;
    budget.left = left - 1;
    this.close(p, JsonToken.ObjEnd);
    return true;
  }

  /**
   * nextIsObjEnd() and, when it reads the '}', nextIsElementObject() right after it, in one call: 0 when the first would
   * read nothing (nothing changed), 1 when only the first reads, 2 when both do (the scanner as after both, its state
   * written once).
   */
  // @ts-ignore: decorator
  @inline nextObjEndThenElementObject(): i32 {
    const p = this.pos;
    const limit = this.limit;
    if (this.expect != AFTER_MEMBER || p >= limit || load<u8>(p) != 0x7d) return 0;
    const budget = this.budget;
    const left = budget.left;
    if (left <= 0) return 0;
    // The object was an array element and another object follows at once: ',' and '{' after its '}'. Its close and the
    // next one's open leave the depth and afterAt as they were.
    if (left >= 2 && unchecked(this.afterAt[this.depth - 1]) == AFTER_ELEMENT && p + 3 <= limit && load<u16>(p, 1) == 0x7b2c) {
      budget.left = left - 2;
      const open = p + 2;
      this.tokenStart = open;
      this.isKey = false;
      this.start = open;
      this.end = open + 1;
      this.pos = open + 1;
      this.expect = KEY_OR_OBJ_END;
      this.token = JsonToken.ObjStart;
      return 2;
    }
    budget.left = left - 1;
    this.close(p, JsonToken.ObjEnd);
    return 1;
  }

  /**
   * Reads the next token as next() would when it is an object that follows an array element at once: ',' and '{' at
   * the read position; false, with nothing changed, otherwise (whitespace, another value, no step left, too deep).
   */
  // @ts-ignore: decorator
  @inline nextIsElementObject(): bool {
    const p = this.pos;
    if (this.expect != AFTER_ELEMENT || p + 2 > this.limit || load<u16>(p) != 0x7b2c) return false;
    const budget = this.budget;
    const left = budget.left;
    if (left <= 0 || this.depth >= this.maxDepth) return false;
    budget.left = left - 1;
    this.tokenStart = p + 1;
    this.isKey = false;
    this.open(p + 1, true, AFTER_ELEMENT);
    return true;
  }

  // An object or array opens at p (within maxDepth), followed by state `after` once it closes.
  // @ts-ignore: decorator
  @inline private open(p: usize, isObject: bool, after: i32): i32 {
    const depth = this.depth;
    unchecked((this.afterAt[depth] = <u8>after));
    this.depth = depth + 1;
    this.start = p;
    this.end = p + 1;
    this.pos = p + 1;
    this.expect = isObject ? KEY_OR_OBJ_END : ELEMENT_OR_ARR_END;
    const t = isObject ? JsonToken.ObjStart : JsonToken.ArrStart;
    this.token = t;
    return t;
  }

  // A key of fewer than FIRST_BLOCK plain bytes whose quote at open (FIRST_BLOCK + 2 bytes before the limit) the ':'
  // follows at once: read as next() reads it, without the general path's checks. False (nothing changed) otherwise.
  // @ts-ignore: decorator
  @inline private plainKey(open: usize): bool {
    const p = open + 1;
    const k = stopInFirstBlock(p, this.limit);
    const close = p + <usize>k;
    if (<u32>k >= <u32>FIRST_BLOCK || load<u16>(close) != 0x3a22) return false;
    this.tokenStart = open;
    this.start = p;
    this.end = close;
    this.hasEscapes = false;
    this.pos = close + 2;
    this.expect = VALUE_MEMBER;
    this.isKey = true;
    this.token = JsonToken.String;
    return true;
  }

  // The value at p (after whitespace), followed by state `after`.
  // @ts-ignore: decorator
  @inline private value(p: usize, after: i32): i32 {
    const limit = this.limit;
    if (p >= limit) return this.fail(p);
    const c = <u32>load<u8>(p);
    this.tokenStart = p;
    this.isKey = false;
    if (c == 0x22) {
      const end = this.sinkOn ? this.scanStringDecodingShort(p, this.sinkDst, this.sinkEnd, this.sinkFlags) : this.scanString(p);
      if (end == 0) return this.fail(this.pos);
      return this.scalar(end, JsonToken.String, after);
    }
    if (c == 0x7b || c == 0x5b) {
      if (this.depth >= this.maxDepth) return this.fail(p);
      return this.open(p, c == 0x7b, after);
    }
    if (c == 0x2d || isDigit(c)) return this.scanNumber(p, after);
    if (c == 0x74) {
      // true
      if (p + 4 <= limit && load<u32>(p) == 0x65757274) return this.literal(p, 4, JsonToken.True, after);
    } else if (c == 0x66) {
      // false
      if (p + 5 <= limit && load<u32>(p + 1) == 0x65736c61) return this.literal(p, 5, JsonToken.False, after);
    } else if (c == 0x6e) {
      // null
      if (p + 4 <= limit && load<u32>(p) == 0x6c6c756e) return this.literal(p, 4, JsonToken.Null, after);
    }
    return this.fail(p);
  }

  /**
   * Like next(), but a string value is also decoded into dst during the same pass over its bytes, exactly
   * as decodeJsonString(start, end, dst, cap, flags) would (flags: 0, ESCAPE_SEPARATOR_BYTES or CANONICAL_ESCAPES). Sets
   * decodedLen and decodeFilled; other tokens write nothing.
   */
  // @ts-ignore: decorator
  @inline nextDecoded(dst: usize, cap: i32, flags: i32): i32 {
    const dEnd = dst + <usize>max(cap, 0);
    this.decodedLen = 0;
    this.decodeFilled = false;
    // The common case, a string value right after a key or a ',' (what next() would do, without the sink fields).
    const expect = this.expect;
    const limit = this.limit;
    const p = skipWhitespace(this.pos, limit);
    const budget = this.budget;
    const left = budget.left;
    if (expect <= VALUE_MEMBER && left > 0 && p < limit && load<u8>(p) == 0x22) {
      budget.left = left - 1;
      this.tokenStart = p;
      this.isKey = false;
      const end = this.scanStringDecodingShort(p, dst, dEnd, flags);
      if (end == 0) return this.fail(this.pos);
      return this.scalar(end, JsonToken.String, expect + AFTER_OFFSET);
    }
    this.sinkOn = true;
    this.sinkDst = dst;
    this.sinkEnd = dEnd;
    this.sinkFlags = flags;
    const t = this.next();
    this.sinkOn = false;
    return t;
  }

  /**
   * Skips the value whose first token was just returned. For a scalar this costs nothing and returns that
   * token; for a container it reads up to the matching close and returns ObjEnd/ArrEnd (then pos is just
   * after the value). Returns Error or Budget if reading stopped early.
   */
  skipValue(): i32 {
    const t = this.token;
    if (t != JsonToken.ObjStart && t != JsonToken.ArrStart) return t;
    const outer = this.depth - 1;
    while (true) {
      const r = this.next();
      if (r == JsonToken.ObjEnd || r == JsonToken.ArrEnd) {
        if (this.depth == outer) return r;
      } else if (r >= JsonToken.End) {
        return r;
      }
    }
    return JsonToken.Error; // unreachable: next() costs a step per iteration
  }

  /** The current token is an object key equal to s. */
  keyIs(s: string): bool {
    return this.isKey && this.token == JsonToken.String && this.stringEquals(s);
  }

  /** The current token is a string whose decoded content equals s (no allocation). */
  stringEquals(s: string): bool {
    return this.token == JsonToken.String && jsonStringEquals(this.start, this.end, s);
  }

  /**
   * Unescapes the current string into UTF-8 at dst, at most cap bytes and never a partial character.
   * Lone surrogates and ill-formed UTF-8 become U+FFFD. Returns bytes written (0 if not on a string).
   */
  decodeStringTo(dst: usize, cap: i32): i32 {
    if (this.token != JsonToken.String) return 0;
    return decodedBytes(decodeJsonString(this.start, this.end, dst, cap, 0));
  }

  /** The current Number token as f64 (NaN if not on a number). */
  numberValue(): f64 {
    if (this.token != JsonToken.Number) return NaN;
    return parseNumberF64(this.start, this.end);
  }

  private finish(t: i32): i32 {
    this.expect = FINISHED;
    this.token = t;
    return t;
  }

  private fail(at: usize): i32 {
    this.pos = at;
    return this.finish(JsonToken.Error);
  }

  private close(p: usize, t: i32): i32 {
    const depth = this.depth - 1;
    this.depth = depth;
    this.expect = unchecked(this.afterAt[depth]);
    this.isKey = false;
    this.tokenStart = p;
    this.start = p;
    this.end = p + 1;
    this.pos = p + 1;
    this.token = t;
    return t;
  }

  // @ts-ignore: decorator
  @inline private scalar(end: usize, t: i32, after: i32): i32 {
    this.pos = end;
    this.expect = after;
    this.token = t;
    return t;
  }

  private literal(p: usize, n: usize, t: i32, after: i32): i32 {
    this.start = p;
    this.end = p + n;
    return this.scalar(p + n, t, after);
  }

  // Scans the string whose opening quote is at open; sets start/end/hasEscapes and returns the position
  // after the closing quote, or 0 (with pos at the offending byte) if the string is malformed. A short plain string
  // is done here, without the call.
  // @ts-ignore: decorator
  @inline private scanString(open: usize): usize {
    const p = open + 1;
    const k = stopInFirstBlock(p, this.limit);
    if (<u32>k < <u32>FIRST_BLOCK && load<u8>(p + <usize>k) == 0x22) {
      const close = p + <usize>k;
      this.start = p;
      this.end = close;
      this.hasEscapes = false;
      return close + 1;
    }
    return this.scanStringFrom(open, p + <usize>max(k, 0), false);
  }

  // scanString continued from p inside the string.
  private scanStringFrom(open: usize, p: usize, escaped: bool): usize {
    const limit = this.limit;
    while (p < limit) {
      p += plainRunLength(p, limit);
      if (p >= limit) break;
      const c = <u32>load<u8>(p);
      if (c == 0x22) {
        this.start = open + 1;
        this.end = p;
        this.hasEscapes = escaped;
        return p + 1;
      }
      if (c != 0x5c) break; // a control byte
      const n = escapeLength(p, limit);
      if (n == 0) break;
      escaped = true;
      p += n;
    }
    this.pos = p;
    return 0;
  }

  // scanStringDecoding with a short plain ASCII string (a role, a short text) done here, without the call.
  // @ts-ignore: decorator
  @inline private scanStringDecodingShort(open: usize, dst: usize, dEnd: usize, flags: i32): usize {
    const p = open + 1;
    const k = copyFirstPlainBlock(p, this.limit, dst, dEnd);
    if (<u32>k < <u32>FIRST_BLOCK && load<u8>(p + <usize>k) == 0x22) {
      const close = p + <usize>k;
      this.decodedLen = k;
      this.start = p;
      this.end = close;
      this.hasEscapes = false;
      return close + 1;
    }
    // Go on after the plain bytes copied.
    const done = <usize>max(k, 0);
    return this.scanStringDecoding(open, p + done, dst, done, dEnd, flags);
  }

  // scanString that also decodes the content into the sink (see nextDecoded). Plain ASCII runs are copied
  // in bulk, short escapes and well-formed UTF-8 sequences are written directly (a well-formed sequence
  // decodes to itself), anything else goes through readJsonCodePoint and putCodePoint.
  // Starts at p in the string, with the plain ASCII bytes before it already written: `done` bytes at dst.
  private scanStringDecoding(open: usize, p: usize, dst: usize, done: usize, dEnd: usize, flags: i32): usize {
    // One copy of the loop per mode: the text's loop keeps no test of the canonical one's escapes.
    if ((flags & CANONICAL_ESCAPES) != 0) return this.decodeRest(open, p, dst, done, dEnd, flags, true);
    return this.decodeRest(open, p, dst, done, dEnd, flags, false);
  }

  // scanStringDecoding's loop, with `canonical` (flags has CANONICAL_ESCAPES) a constant at each call.
  // @ts-ignore: decorator
  @inline private decodeRest(open: usize, p: usize, dst: usize, done: usize, dEnd: usize, flags: i32, canonical: bool): usize {
    const limit = this.limit;
    let d = dst + done;
    let escaped = false;
    while (p < limit) {
      if (ASC_FEATURE_SIMD) {
        // 64 bytes at a time, each special byte of a block handled from the block's mask without reading the block
        // again: a short escape (the rest of the block then copied one byte to the left), a well-formed sequence (in
        // place already), the closing quote. Anything else, and the last bytes, go to the loop below, one at a time.
        // The bound leaves room for the rest of a block copied from past it (a block's bytes from up to 12 past its end,
        // after an escape of up to 12 bytes: 139 bytes from p at most) and for a sequence that crosses its end.
        // An escape never writes more bytes than it reads, so the output stays within dEnd while p stays within this bound.
        const bound = min(limit, p + (dEnd - d));
        while (p + 144 <= bound) {
          let m = copyFourBlocks(p, d);
          // A block of plain ASCII, or of well-formed sequences and plain ASCII: as copied, up to the lead of a sequence
          // that crosses its end (the next block starts there; 64 is not a multiple of 3 for CJK text).
          // The check costs what the loop below spends on 3-4 characters: blocks with fewer high bytes skip it.
          if (m == 0) {
            p += 64;
            d += 64;
            continue;
          }
          // Only high bytes among the specials (no quote, backslash or control byte): the mask is the block's high bytes.
          if (<i32>popcnt(m) >= VALIDATED_HIGH_BYTES && m == highBytesOfFourBlocks(p)) {
            const kept = wellFormedLength(p, m);
            if (kept != 0) {
              p += kept;
              d += kept;
              continue;
            }
          }
          // Bytes [q, end) are at dq on: their place while they are plain.
          const end = p + 64;
          let q = p;
          let dq = d;
          let stop = false;
          while (m != 0) {
            const at = p + <usize>ctz(m);
            const dAt = dq + (at - q);
            const c = <u32>load<u8>(at);
            if (c == 0x5c) {
              const e = <u32>load<u8>(at, 1);
              const value = shortEscapeValue(e);
              escaped = true;
              if (value >= 0 && canonical && e != 0x2f) {
                // Its own canonical spelling: in place already, unless its letter is past the block.
                store<u16>(dAt, load<u16>(at));
                q = at + 2;
                dq = dAt + 2;
              } else {
                if (value >= 0) {
                  store<u8>(dAt, <u8>value);
                  q = at + 2;
                  dq = dAt + 1;
                } else if (e == 0x75 && escapeLength(at, limit) != 0) {
                  // \uXXXX (a pair for a surrogate): never more bytes written than read.
                  const r = readJsonCodePoint(at, limit);
                  q = at + <usize>(r >> 32);
                  dq = canonical ? putCanonical(dAt, dEnd, <u32>r) : putCodePoint(dAt, dEnd, <u32>r, flags);
                } else {
                  q = at;
                  dq = dAt;
                  stop = true;
                  break;
                }
                // The rest of the block moves to the left.
                v128.store(dq, v128.load(q));
                v128.store(dq, v128.load(q, 16), 16);
                v128.store(dq, v128.load(q, 32), 32);
                v128.store(dq, v128.load(q, 48), 48);
              }
            } else if (c >= 0x80) {
              // A well-formed sequence and those right after it (CJK, Cyrillic, emoji): each in place already, unless it
              // crosses the block's end (then copied).
              q = at;
              dq = dAt;
              do {
                const n = sequenceLength(q, limit);
                if (n <= 0) {
                  stop = true;
                  break;
                }
                if (q + <usize>n > end) copySequence(dq, q, <usize>n);
                q += <usize>n;
                dq += <usize>n;
              } while (q + 4 <= bound && load<u8>(q) >= 0x80);
              if (stop) break;
            } else if (c == 0x22) {
              this.decodedLen = <i32>(dAt - dst);
              this.start = open + 1;
              this.end = at;
              this.hasEscapes = escaped;
              return at + 1;
            } else {
              q = at;
              dq = dAt;
              stop = true;
              break;
            }
            // The specials the bytes [p, q) held are done.
            if (q >= end) break;
            m &= <u64>-1 << <u64>(q - p);
          }
          if (stop || q >= end) {
            p = q;
            d = dq;
            if (stop) break;
          } else {
            d = dq + (end - q);
            p = end;
          }
        }
      }
      const run = copyPlainAscii(p, limit, d, dEnd);
      p += run;
      d += run;
      if (p >= limit) break;
      const c = <u32>load<u8>(p);
      let n: usize = 1;
      let next = d;
      if (c == 0x5c) {
        if (p + 1 >= limit) break;
        const e = <u32>load<u8>(p + 1);
        // A short escape stands for one ASCII byte that is never a separator byte ('u' has no short value).
        const value = shortEscapeValue(e);
        if (value >= 0) {
          escaped = true;
          if (!canonical || e == 0x2f) {
            if (d < dEnd) {
              store<u8>(d, <u8>value);
              d++;
              p += 2;
              continue;
            }
          } else if (d + 2 <= dEnd) {
            // Its own canonical spelling, an ASCII pair the cap may cut after the backslash (decodeJsonString).
            store<u16>(d, load<u16>(p));
            d += 2;
            p += 2;
            continue;
          } else if (d < dEnd) {
            store<u8>(d, 0x5c);
            next = ++d;
          }
        } else {
          if (e != 0x75 || escapeLength(p, limit) == 0) break;
          escaped = true;
          const r = readJsonCodePoint(p, limit);
          const cp = <u32>r;
          if (!canonical) {
            next = putCodePoint(d, dEnd, cp, flags);
          } else if (d + canonicalLength(cp) <= dEnd) {
            next = putCanonical(d, dEnd, cp);
          } else if (isCanonicalEscape(cp)) {
            // An escape is ASCII and may be cut at the cap like any ASCII text; a character is not.
            d = putCanonical(d, dEnd, cp);
            next = d;
          }
          n = <usize>(r >> 32);
        }
      } else if (c >= 0x80) {
        let len = sequenceLength(p, limit);
        if (len > 0) {
          // A well-formed sequence decodes to itself.
          n = <usize>len;
          if (d + n <= dEnd) {
            copySequence(d, p, n);
            d += n;
            p += n;
            if (p < limit && load<u8>(p) >= 0x80) {
              // Multi-byte characters in a row (CJK, Cyrillic, emoji), a character at a time.
              while (true) {
                len = sequenceLength(p, limit);
                if (len <= 0) break;
                n = <usize>len;
                if (d + n > dEnd) break; // the next round finds it full
                copySequence(d, p, n);
                d += n;
                p += n;
                if (p >= limit || load<u8>(p) < 0x80) break;
              }
            } else if (n == 2 && c < 0xce && p < limit) {
              // A lone Latin letter with an accent (U+0080..U+037F): the ASCII and further accents up to the next
              // stop, in bulk, where the ASCII copy above would return at each accent.
              const run = copyWellFormed(p, limit, d, dEnd);
              p += run;
              d += run;
            }
            continue;
          }
        } else {
          next = putCodePoint(d, dEnd, REPLACEMENT_CHAR, flags);
          n = <usize>-len;
        }
      } else if (c == 0x22) {
        this.decodedLen = <i32>(d - dst);
        this.start = open + 1;
        this.end = p;
        this.hasEscapes = escaped;
        return p + 1;
      } else if (c < 0x20) {
        break;
      } else {
        // Plain ASCII the bulk copy left: no room for it (or the last bytes of the input).
        if (d < dEnd) {
          store<u8>(d, <u8>c);
          next = d + 1;
        }
      }
      if (next == d) {
        // Full: the rest of the string is only validated.
        this.decodedLen = <i32>(d - dst);
        this.decodeFilled = true;
        return this.scanStringFrom(open, p, escaped);
      }
      d = next;
      p += n;
    }
    this.pos = p;
    return 0;
  }

  private scanNumber(p: usize, after: i32): i32 {
    const limit = this.limit;
    let q = p;
    if (load<u8>(q) == 0x2d) q++;
    if (q >= limit) return this.fail(q);
    let c = <u32>load<u8>(q);
    if (c == 0x30) {
      q++;
    } else if (isDigit(c)) {
      q++;
      while (q < limit && isDigit(<u32>load<u8>(q))) q++;
    } else {
      return this.fail(q);
    }
    if (q < limit && load<u8>(q) == 0x2e) {
      q++;
      if (q >= limit || !isDigit(<u32>load<u8>(q))) return this.fail(q);
      while (q < limit && isDigit(<u32>load<u8>(q))) q++;
    }
    if (q < limit && (load<u8>(q) | 0x20) == 0x65) {
      q++;
      if (q < limit && (load<u8>(q) == 0x2b || load<u8>(q) == 0x2d)) q++;
      if (q >= limit || !isDigit(<u32>load<u8>(q))) return this.fail(q);
      while (q < limit && isDigit(<u32>load<u8>(q))) q++;
    }
    this.start = p;
    this.end = q;
    return this.scalar(q, JsonToken.Number, after);
  }
}
