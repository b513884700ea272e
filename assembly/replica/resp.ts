// RESP (the Redis protocol) without allocation: a writer of one command (an array of bulk strings) into a
// fixed buffer, and a reader of the replies the replica hints expect (an array of bulk strings or nils, an
// integer, an error).

import { decimalDigits, writeDecimal, writeHex16 } from "../text/ascii-numbers";

const CR: u8 = 13;
const LF: u8 = 10;

export class RespWriter {
  readonly buf: usize;
  len: i32 = 0;
  /** Set when a write did not fit; the command must not be sent. */
  overflow: bool = false;

  constructor(readonly capacity: i32) {
    this.buf = heap.alloc(<usize>capacity);
  }

  /** Starts a command of `parts` bulk strings. */
  begin(parts: i32): void {
    this.len = 0;
    this.overflow = false;
    this.byte(0x2a);
    this.decimal(parts);
    this.crlf();
  }

  bulk(ptr: usize, n: i32): void {
    this.header(n);
    if (this.room(n + 2)) {
      memory.copy(this.buf + <usize>this.len, ptr, <usize>n);
      this.len += n;
    }
    this.crlf();
  }

  /** A bulk string `<prefix><16 lower-case hex digits of h>`. */
  bulkKey(prefixPtr: usize, prefixLen: i32, h: u64): void {
    this.header(prefixLen + 16);
    if (!this.room(prefixLen + 18)) return;
    memory.copy(this.buf + <usize>this.len, prefixPtr, <usize>prefixLen);
    this.len += prefixLen;
    writeHex16(this.buf + <usize>this.len, h);
    this.len += 16;
    this.crlf();
  }

  bulkInt(v: i64): void {
    this.header(decimalDigits(v));
    this.decimal(v);
    this.crlf();
  }

  private header(n: i32): void {
    this.byte(0x24);
    this.decimal(n);
    this.crlf();
  }

  private room(n: i32): bool {
    if (this.len + n <= this.capacity) return true;
    this.overflow = true;
    return false;
  }

  private byte(b: u8): void {
    if (!this.room(1)) return;
    store<u8>(this.buf + <usize>this.len, b);
    this.len++;
  }

  private crlf(): void {
    this.byte(CR);
    this.byte(LF);
  }

  private decimal(v: i64): void {
    if (!this.room(decimalDigits(v))) return;
    this.len += writeDecimal(this.buf + <usize>this.len, v);
  }
}

export enum ReplyKind {
  Array = 0,
  Integer = 1,
  /** A Redis error reply ("-ERR ...", "-OOM ...", "-NOAUTH ..."). */
  Error = 2,
  /** An error reply that says Redis is out of memory ("-OOM"). */
  Full = 3,
  /** Anything else, truncated or malformed. */
  Garbage = 4,
}

/** Reads one reply; array elements are kept as (offset, length) with length -1 for nil. */
export class RespReply {
  kind: i32 = ReplyKind.Garbage;
  integer: i64 = 0;
  count: i32 = 0;
  readonly elementPtr: StaticArray<usize>;
  readonly elementLen: StaticArray<i32>;
  private pos: usize = 0;
  private end: usize = 0;

  constructor(readonly maxElements: i32) {
    this.elementPtr = new StaticArray<usize>(maxElements);
    this.elementLen = new StaticArray<i32>(maxElements);
  }

  read(ptr: usize, len: usize): i32 {
    this.kind = ReplyKind.Garbage;
    this.count = 0;
    this.pos = ptr;
    this.end = ptr + len;
    if (len < 3) return this.kind;
    const type = load<u8>(ptr);
    this.pos = ptr + 1;
    if (type == 0x2d) {
      // "-OOM command not allowed when used memory > 'maxmemory'."
      const oom = len >= 4 && load<u8>(ptr, 1) == 0x4f && load<u8>(ptr, 2) == 0x4f && load<u8>(ptr, 3) == 0x4d;
      this.kind = oom ? ReplyKind.Full : ReplyKind.Error;
      return this.kind;
    }
    if (type == 0x3a) {
      const v = this.number();
      if (v == i64.MIN_VALUE || !this.crlf() || this.pos != this.end) return this.kind;
      this.integer = v;
      this.kind = ReplyKind.Integer;
      return this.kind;
    }
    if (type != 0x2a) return this.kind;
    const n = this.number();
    if (n < 0 || n > <i64>this.maxElements || !this.crlf()) return this.kind;
    for (let i = 0; i < <i32>n; i++) {
      if (this.pos >= this.end) return this.kind;
      const t = load<u8>(this.pos);
      this.pos++;
      if (t == 0x5f) {
        // RESP3 null
        if (!this.crlf()) return this.kind;
        unchecked((this.elementLen[i] = -1));
        continue;
      }
      if (t != 0x24) return this.kind;
      const size = this.number();
      if (size == i64.MIN_VALUE || !this.crlf()) return this.kind;
      if (size < 0) {
        unchecked((this.elementLen[i] = -1));
        continue;
      }
      if (<i64>(this.end - this.pos) < size + 2) return this.kind;
      unchecked((this.elementPtr[i] = this.pos));
      unchecked((this.elementLen[i] = <i32>size));
      this.pos += <usize>size;
      if (!this.crlf()) return this.kind;
    }
    if (this.pos != this.end) return this.kind;
    this.count = <i32>n;
    this.kind = ReplyKind.Array;
    return this.kind;
  }

  /** A decimal (optionally negative) of at most 18 digits; i64.MIN_VALUE when malformed. */
  private number(): i64 {
    let neg = false;
    if (this.pos < this.end && load<u8>(this.pos) == 0x2d) {
      neg = true;
      this.pos++;
    }
    let v: i64 = 0;
    let digits = 0;
    while (this.pos < this.end) {
      const c = <i32>load<u8>(this.pos);
      if (c < 48 || c > 57) break;
      if (++digits > 18) return i64.MIN_VALUE;
      v = v * 10 + <i64>(c - 48);
      this.pos++;
    }
    if (digits == 0) return i64.MIN_VALUE;
    return neg ? -v : v;
  }

  private crlf(): bool {
    if (this.pos + 2 > this.end || load<u8>(this.pos) != CR || load<u8>(this.pos, 1) != LF) return false;
    this.pos += 2;
    return true;
  }
}
