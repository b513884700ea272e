// Serialized maps of HTTP fields (spec "Serialization"): a u32 count, then u32 key and value lengths for each
// pair, then each key and value followed by a NUL byte. Little-endian. An empty map may be zero bytes or a
// single 0x00 byte.

/** Reads pairs out of a serialized map without copying; every offset is checked against `len`. */
export class HeaderMapReader {
  private base: usize = 0;
  private len: usize = 0;
  count: i32 = 0;
  private dataOffset: usize = 0;
  // Position of the next pair's data and index of the next pair.
  private cursor: usize = 0;
  private index: i32 = 0;
  keyPtr: usize = 0;
  keyLen: usize = 0;
  valuePtr: usize = 0;
  valueLen: usize = 0;

  /** Returns false when the bytes are not a well-formed map (a truncated or lying header). */
  reset(ptr: usize, len: usize): bool {
    this.base = ptr;
    this.len = len;
    this.count = 0;
    this.index = 0;
    if (len < 4) return len <= 1;
    const count = load<u32>(ptr);
    if (<u64>count * 8 + 4 > <u64>len) return false;
    this.count = <i32>count;
    this.dataOffset = 4 + <usize>count * 8;
    this.cursor = this.dataOffset;
    return true;
  }

  /** Whether every pair the map announces has been read (next() stopped at the end, not at malformed data). */
  atEnd(): bool {
    return this.index >= this.count;
  }

  /** Advances to the next pair; false at the end or on malformed data. */
  next(): bool {
    if (this.index >= this.count) return false;
    const sizes = this.base + 4 + (<usize>this.index << 3);
    const keyLen = <usize>load<u32>(sizes);
    const valueLen = <usize>load<u32>(sizes, 4);
    const need = <u64>this.cursor + <u64>keyLen + 1 + <u64>valueLen + 1;
    if (need > <u64>this.len) return false;
    this.keyPtr = this.base + this.cursor;
    this.keyLen = keyLen;
    this.valuePtr = this.keyPtr + keyLen + 1;
    this.valueLen = valueLen;
    this.cursor += keyLen + valueLen + 2;
    this.index++;
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
