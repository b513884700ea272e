// A pull tokenizer over raw linear memory: strict RFC 8259 grammar, bounded nesting, one step per token,
// no allocation after construction.
import { JsonToken } from "./token";
import { FIRST_BLOCK, copyFirstPlainBlock, copyPlainAscii, copyWellFormed, plainRunLength, stopInFirstBlock } from "./string-runs";
import { decodeJsonString, decodedBytes, escapeLength, putCodePoint, readJsonCodePoint, shortEscapeValue } from "./string-decoder";
import { REPLACEMENT_CHAR, copySequence, sequenceLength } from "./utf8";
import { jsonStringEquals } from "./string-compare";
import { parseNumberF64 } from "./number";
import { StepBudget } from "./step-budget";

export { JsonToken } from "./token";
export { StepBudget } from "./step-budget";

// What the grammar allows at the current position.
const EXPECT_VALUE: i32 = 0; // document start, after ':' or after ',' in an array
const EXPECT_VALUE_OR_ARR_END: i32 = 1; // just after '['
const EXPECT_KEY_OR_OBJ_END: i32 = 2; // just after '{'
const EXPECT_KEY: i32 = 3; // after ',' in an object
const AFTER_VALUE: i32 = 4; // a value just ended
const FINISHED: i32 = 5; // token holds End, Error or Budget for good

// @ts-ignore: decorator
@inline function skipWhitespace(p: usize, limit: usize): usize {
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
  // Destination of nextDecoded(): a string value read while sinkOn is decoded into it during the scan.
  private sinkOn: bool = false;
  private sinkDst: usize = 0;
  private sinkEnd: usize = 0;
  private sinkFlags: i32 = 0;
  // Each next() that reads input costs one step of this budget; by default the scanner's own.
  private readonly ownBudget: StepBudget = new StepBudget();
  private budget: StepBudget = this.ownBudget;
  private expect: i32 = FINISHED;
  private readonly maxDepth: i32;
  // Per open container: true for an object, false for an array.
  private readonly isObjectAt: StaticArray<bool>;

  constructor(maxDepth: i32) {
    this.maxDepth = max(maxDepth, 0);
    this.isObjectAt = new StaticArray<bool>(max(maxDepth, 1));
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
    this.expect = EXPECT_VALUE;
    this.token = 0;
    this.start = ptr;
    this.end = ptr;
    this.tokenStart = ptr;
    this.isKey = false;
    this.hasEscapes = false;
  }

  /** Reads the next token. After End, Error or Budget it keeps returning that token without cost. */
  next(): i32 {
    if (this.expect == FINISHED) return this.token;
    const budget = this.budget;
    const left = budget.left;
    if (left <= 0) return this.finish(JsonToken.Budget);
    budget.left = left - 1;
    const limit = this.limit;
    let p = skipWhitespace(this.pos, limit);
    let expect = this.expect;

    if (expect == AFTER_VALUE) {
      const depth = this.depth;
      if (depth == 0) {
        this.pos = p;
        return p == limit ? this.finish(JsonToken.End) : this.finish(JsonToken.Error);
      }
      if (p >= limit) return this.fail(p);
      const c = load<u8>(p);
      const inObject = unchecked(this.isObjectAt[depth - 1]);
      if (c == 0x2c) {
        p = skipWhitespace(p + 1, limit);
        expect = inObject ? EXPECT_KEY : EXPECT_VALUE;
      } else if (c == (inObject ? 0x7d : 0x5d)) {
        return this.close(p, inObject ? JsonToken.ObjEnd : JsonToken.ArrEnd);
      } else {
        return this.fail(p);
      }
    } else if (expect == EXPECT_KEY_OR_OBJ_END) {
      if (p < limit && load<u8>(p) == 0x7d) return this.close(p, JsonToken.ObjEnd);
      expect = EXPECT_KEY;
    } else if (expect == EXPECT_VALUE_OR_ARR_END) {
      if (p < limit && load<u8>(p) == 0x5d) return this.close(p, JsonToken.ArrEnd);
      expect = EXPECT_VALUE;
    }

    if (p >= limit) return this.fail(p);
    const c = <u32>load<u8>(p);
    this.tokenStart = p;

    if (expect == EXPECT_KEY) {
      if (c != 0x22) return this.fail(p);
      const after = this.scanString(p);
      if (after == 0) return this.fail(this.pos);
      const colon = skipWhitespace(after, limit);
      if (colon >= limit || load<u8>(colon) != 0x3a) return this.fail(colon);
      this.pos = colon + 1;
      this.expect = EXPECT_VALUE;
      this.isKey = true;
      this.token = JsonToken.String;
      return JsonToken.String;
    }

    this.isKey = false;
    if (c == 0x22) {
      const after = this.sinkOn ? this.scanStringDecodingShort(p) : this.scanString(p);
      if (after == 0) return this.fail(this.pos);
      return this.scalar(after, JsonToken.String);
    }
    if (c == 0x7b || c == 0x5b) {
      const depth = this.depth;
      if (depth >= this.maxDepth) return this.fail(p);
      const isObject = c == 0x7b;
      unchecked((this.isObjectAt[depth] = isObject));
      this.depth = depth + 1;
      this.start = p;
      this.end = p + 1;
      this.pos = p + 1;
      this.expect = isObject ? EXPECT_KEY_OR_OBJ_END : EXPECT_VALUE_OR_ARR_END;
      const t = isObject ? JsonToken.ObjStart : JsonToken.ArrStart;
      this.token = t;
      return t;
    }
    if (c == 0x2d || isDigit(c)) return this.scanNumber(p);
    if (c == 0x74) {
      // true
      if (p + 4 <= limit && load<u32>(p) == 0x65757274) return this.literal(p, 4, JsonToken.True);
    } else if (c == 0x66) {
      // false
      if (p + 5 <= limit && load<u32>(p + 1) == 0x65736c61) return this.literal(p, 5, JsonToken.False);
    } else if (c == 0x6e) {
      // null
      if (p + 4 <= limit && load<u32>(p) == 0x6c6c756e) return this.literal(p, 4, JsonToken.Null);
    }
    return this.fail(p);
  }

  /**
   * Like next(), but a string value is also decoded into dst during the same pass over its bytes, exactly
   * as decodeJsonString(start, end, dst, cap, flags) would (flags: 0 or ESCAPE_SEPARATOR_BYTES). Sets
   * decodedLen and decodeFilled; other tokens write nothing.
   */
  // @ts-ignore: decorator
  @inline nextDecoded(dst: usize, cap: i32, flags: i32): i32 {
    this.sinkOn = true;
    this.sinkDst = dst;
    this.sinkEnd = dst + <usize>max(cap, 0);
    this.sinkFlags = flags;
    this.decodedLen = 0;
    this.decodeFilled = false;
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
    this.depth--;
    this.isKey = false;
    this.tokenStart = p;
    this.start = p;
    this.end = p + 1;
    this.pos = p + 1;
    this.expect = AFTER_VALUE;
    this.token = t;
    return t;
  }

  private scalar(after: usize, t: i32): i32 {
    this.pos = after;
    this.expect = AFTER_VALUE;
    this.token = t;
    return t;
  }

  private literal(p: usize, n: usize, t: i32): i32 {
    this.start = p;
    this.end = p + n;
    return this.scalar(p + n, t);
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
  @inline private scanStringDecodingShort(open: usize): usize {
    const p = open + 1;
    const k = copyFirstPlainBlock(p, this.limit, this.sinkDst, this.sinkEnd);
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
    return this.scanStringDecoding(open, p + done, this.sinkDst + done);
  }

  // scanString that also decodes the content into the sink (see nextDecoded). Plain ASCII runs are copied
  // in bulk, short escapes and well-formed UTF-8 sequences are written directly (a well-formed sequence
  // decodes to itself), anything else goes through readJsonCodePoint and putCodePoint.
  // Starts at p in the string, with the plain ASCII bytes before it already written up to d.
  private scanStringDecoding(open: usize, p: usize, d: usize): usize {
    const limit = this.limit;
    const dst = this.sinkDst;
    const dEnd = this.sinkEnd;
    const flags = this.sinkFlags;
    let escaped = false;
    while (p < limit) {
      const run = copyPlainAscii(p, limit, d, dEnd);
      p += run;
      d += run;
      if (p >= limit) break;
      const c = <u32>load<u8>(p);
      if (c == 0x22) {
        this.decodedLen = <i32>(d - dst);
        this.start = open + 1;
        this.end = p;
        this.hasEscapes = escaped;
        return p + 1;
      }
      if (c < 0x20) break;
      let n: usize = 1;
      let next = d;
      if (c == 0x5c) {
        if (p + 1 >= limit) break;
        const e = <u32>load<u8>(p + 1);
        if (e != 0x75) {
          // A short escape stands for one ASCII byte that is never a separator byte.
          const value = shortEscapeValue(e);
          if (value < 0) break;
          escaped = true;
          if (d < dEnd) {
            store<u8>(d, <u8>value);
            next = d + 1;
          }
          n = 2;
        } else {
          if (escapeLength(p, limit) == 0) break;
          escaped = true;
          const r = readJsonCodePoint(p, limit);
          next = putCodePoint(d, dEnd, <u32>r, flags);
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

  private scanNumber(p: usize): i32 {
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
    return this.scalar(q, JsonToken.Number);
  }
}
