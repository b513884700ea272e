// Bounded append-only byte buffer for the canonical prompt stream. Once something does not fit it turns
// full and ignores every later write, so its content is always the longest prefix of the unbounded stream
// that fits and ends on a unit boundary (units: UTF-8 characters and ESC pairs).
import { JsonScanner, JsonToken } from "../json/scanner";
import { ESCAPE_SEPARATOR_BYTES, CANONICAL_ESCAPES, decodeJsonString, decodedBytes, stoppedAtCap } from "../json/string-decoder";
import { ESC, US } from "./stream-format";

export class StreamWriter {
  readonly ptr: usize;
  readonly cap: i32;
  len: i32 = 0;
  /** A write did not fit; the content stops at a unit boundary. */
  full: bool = false;
  private readonly buffer: ArrayBuffer;

  constructor(capBytes: i32) {
    const cap = max(capBytes, 0);
    const buffer = new ArrayBuffer(cap);
    this.cap = cap;
    this.buffer = buffer;
    this.ptr = changetype<usize>(buffer);
  }

  reset(): void {
    this.len = 0;
    this.full = false;
  }

  /** Undoes the writes after a length taken earlier (and the full state they caused). */
  truncate(len: i32, full: bool): void {
    this.len = len;
    this.full = full;
  }

  byte(b: u8): void {
    const len = this.len;
    if (len < this.cap && !this.full) {
      store<u8>(this.ptr + <usize>len, b);
      this.len = len + 1;
    } else {
      this.full = true;
    }
  }

  /** Copies n bytes of ASCII (numbers, literals, punctuation). */
  ascii(src: usize, n: i32): void {
    if (this.full) return;
    const k = min(n, this.cap - this.len);
    memory.copy(this.ptr + <usize>this.len, src, <usize>k);
    this.len += k;
    if (k < n) this.full = true;
  }

  /** A record's head (stream-format.ts): its opening separator (FS or RS), the tag or role, US. */
  head(open: u8, tag: string): void {
    this.byte(open);
    this.literal(tag);
    this.byte(US);
  }

  /** Writes an ASCII literal. */
  literal(s: string): void {
    const n = s.length;
    const len = this.len;
    if (this.full || n > this.cap - len) {
      for (let i = 0; i < n && !this.full; i++) this.byte(<u8>s.charCodeAt(i));
      return;
    }
    // It fits: the UTF-16 code units stored as bytes, without a capacity check per byte.
    const src = changetype<usize>(s);
    const dst = this.ptr + <usize>len;
    for (let i = 0; i < n; i++) store<u8>(dst + <usize>i, <u8>load<u16>(src + (<usize>i << 1)));
    this.len = len + n;
  }

  /** Writes JSON string content [start, end) decoded, with separator bytes escaped. */
  text(start: usize, end: usize): void {
    this.decode(start, end, ESCAPE_SEPARATOR_BYTES);
  }

  /** Writes JSON string content [start, end) as a JSON string body escaped canonically (CANONICAL_ESCAPES). */
  canonicalJsonText(start: usize, end: usize): void {
    this.decode(start, end, CANONICAL_ESCAPES);
  }

  /**
   * Reads sc's next token; a string value is appended as text() would, in the same pass over its bytes.
   * Returns the token.
   */
  nextDecoded(sc: JsonScanner): i32 {
    if (this.full) return sc.next();
    const len = this.len;
    const t = sc.nextDecoded(this.ptr + <usize>len, this.cap - len, ESCAPE_SEPARATOR_BYTES);
    if (t == JsonToken.String) {
      this.len = len + sc.decodedLen;
      this.full = sc.decodeFilled;
    }
    return t;
  }

  /**
   * Puts src's bytes [from, to) at offset `at` of this content, keeping the cap: the result is what writing this
   * content up to `at`, then those bytes, then the rest of this content into one writer would have produced. With
   * `cut`, the stream ends after the inserted bytes (src was cut there). Returns how many of those bytes went in, or -1
   * when `at` lies past the end of a full writer (that part of the stream was cut off already): nothing changes then.
   */
  insert(at: i32, src: StreamWriter, from: i32, to: i32, cut: bool): i32 {
    if (at > this.len || (at == this.len && this.full)) return -1;
    const n = to - from;
    const room = this.cap - at;
    if (cut || n > room) {
      const take = n > room ? unitBoundary(src.ptr + <usize>from, room) : n;
      memory.copy(this.ptr + <usize>at, src.ptr + <usize>from, <usize>take);
      this.len = at + take;
      this.full = true;
      return take;
    }
    if (n == 0) return 0;
    const tail = this.len - at;
    let keep = min(tail, room - n);
    if (keep < tail) {
      this.full = true;
      keep = unitBoundary(this.ptr + <usize>at, keep);
    }
    memory.copy(this.ptr + <usize>(at + n), this.ptr + <usize>at, <usize>keep);
    memory.copy(this.ptr + <usize>at, src.ptr + <usize>from, <usize>n);
    this.len = at + n + keep;
    return n;
  }

  private decode(start: usize, end: usize, flags: i32): void {
    if (this.full) return;
    const r = decodeJsonString(start, end, this.ptr + <usize>this.len, this.cap - this.len, flags);
    this.len += decodedBytes(r);
    if (stoppedAtCap(r)) this.full = true;
  }
}

// The longest length up to `len` of the bytes at p that ends on a unit boundary: not inside a UTF-8 sequence, not
// between ESC and its byte.
function unitBoundary(p: usize, len: i32): i32 {
  let keep = len;
  while (keep > 0 && ((load<u8>(p + <usize>keep) & 0xc0) == 0x80 || load<u8>(p + <usize>(keep - 1)) == ESC)) keep--;
  return keep;
}
