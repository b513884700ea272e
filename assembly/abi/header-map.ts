// Serialized maps of HTTP fields (spec "Serialization"): a u32 count, then u32 key and value lengths for each
// pair, then each key and value followed by a NUL byte. Little-endian. An empty map may be zero bytes or a
// single 0x00 byte.

/** Reads pairs out of a serialized map without copying; every offset is checked against `len`. */
export class HeaderMapReader {
  count: i32 = 0;
  // The next pair's sizes, the end of the sizes, the next pair's data and the end of the map: addresses, so that a
  // pair costs two loads of its sizes, one bounds check and the fields it sets. A caller may walk them in locals
  // (pairFits), then hand back where it stopped (stoppedAt).
  sizes: usize = 0;
  sizesEnd: usize = 0;
  cursor: usize = 0;
  end: usize = 0;
  keyPtr: usize = 0;
  keyLen: usize = 0;
  valuePtr: usize = 0;
  valueLen: usize = 0;

  /** Returns false when the bytes are not a well-formed map (a truncated or lying header). */
  reset(ptr: usize, len: usize): bool {
    this.count = 0;
    this.sizes = 0;
    this.sizesEnd = 0;
    if (len < 4) return len <= 1;
    const count = load<u32>(ptr);
    if (<u64>count * 8 + 4 > <u64>len) return false;
    this.count = <i32>count;
    this.sizes = ptr + 4;
    this.sizesEnd = ptr + 4 + <usize>count * 8;
    this.cursor = this.sizesEnd;
    this.end = ptr + len;
    return true;
  }

  /** Whether every pair the map announces has been read (next() stopped at the end, not at malformed data). */
  atEnd(): bool {
    return this.sizes >= this.sizesEnd;
  }

  /** Where a walk in locals stopped: the next pair's sizes and data. */
  stoppedAt(sizes: usize, cursor: usize): void {
    this.sizes = sizes;
    this.cursor = cursor;
  }

  /** Whether a pair of these sizes whose key starts at `key` fits before `end` (its key, value and their NULs). */
  // @ts-ignore: decorator
  @inline static pairFits(key: usize, keyLen: usize, valueLen: usize, end: usize): bool {
    // The cursor never passes the end: what is left is end - key.
    return <u64>keyLen + <u64>valueLen + 2 <= <u64>(end - key);
  }

  /** Advances to the next pair; false at the end or on malformed data. */
  next(): bool {
    const sizes = this.sizes;
    if (sizes >= this.sizesEnd) return false;
    const keyLen = <usize>load<u32>(sizes);
    const valueLen = <usize>load<u32>(sizes, 4);
    const key = this.cursor;
    if (!HeaderMapReader.pairFits(key, keyLen, valueLen, this.end)) return false;
    const value = key + keyLen + 1;
    this.keyPtr = key;
    this.keyLen = keyLen;
    this.valuePtr = value;
    this.valueLen = valueLen;
    this.cursor = value + valueLen + 1;
    this.sizes = sizes + 8;
    return true;
  }
}

/** Builds a serialized map into a growable buffer owned by the writer (reused across calls). */
export class HeaderMapWriter {
  private keys: Array<ArrayBuffer> = [];
  private values: Array<ArrayBuffer> = [];
  private out: ArrayBuffer = new ArrayBuffer(256);
  length: i32 = 0;

  clear(): HeaderMapWriter {
    this.keys.length = 0;
    this.values.length = 0;
    return this;
  }

  add(key: string, value: string): HeaderMapWriter {
    this.keys.push(String.UTF8.encode(key));
    this.values.push(String.UTF8.encode(value));
    return this;
  }

  /** Serializes the pairs added since `clear()`; the result is valid until the next call. */
  finish(): usize {
    const n = this.keys.length;
    let size = 4 + n * 8;
    for (let i = 0; i < n; i++) size += this.keys[i].byteLength + this.values[i].byteLength + 2;
    if (size > this.out.byteLength) this.out = new ArrayBuffer(size);
    const base = changetype<usize>(this.out);
    store<u32>(base, n);
    let data = base + 4 + (<usize>n << 3);
    for (let i = 0; i < n; i++) {
      const k = this.keys[i];
      const v = this.values[i];
      store<u32>(base + 4 + (<usize>i << 3), k.byteLength);
      store<u32>(base + 8 + (<usize>i << 3), v.byteLength);
      memory.copy(data, changetype<usize>(k), k.byteLength);
      data += k.byteLength;
      store<u8>(data++, 0);
      memory.copy(data, changetype<usize>(v), v.byteLength);
      data += v.byteLength;
      store<u8>(data++, 0);
    }
    this.length = size;
    return base;
  }
}
