// Records where the values of selected members of one JSON object are, so that they can be read in a
// fixed order whatever the member order in the document.
import { JsonScanner, JsonToken } from "../json/scanner";
import { jsonStringEquals } from "../json/string-compare";

// Keys of this many bytes or more share one length bucket.
const LONG_KEY: i32 = 32;

export class FieldSpans {
  private readonly keys: StaticArray<string>;
  // UTF-8 bytes of the keys, back to back, and each key's offset and length there: an unescaped key in
  // the document matches when its bytes are equal.
  private readonly keyData: StaticArray<u8>;
  private readonly keyOffsets: StaticArray<i32>;
  // Per key: its byte length in the high half and its first (up to) 4 bytes in the low half (keyHead), so most keys
  // that are not it fail on one compare; and its last 4 bytes (keys of 5 bytes or more), which with the head decide
  // keys of up to 8 bytes.
  private readonly keyHeads: StaticArray<u64>;
  private readonly keyTails: StaticArray<u32>;
  // Per byte length (LONG_KEY for LONG_KEY bytes and more): bit i set when key i has it, so a lookup compares only
  // keys of the document key's length.
  private readonly keysOfLength: StaticArray<u32>;
  // Bit i: key i was set since clear(); a key whose bit is clear is absent whatever tokens[i] holds.
  private present: u32 = 0;
  // Bit i: key i was set to something other than null.
  private valued: u32 = 0;
  // Per key: first token of the value, and the value's bytes [start, end).
  private readonly tokens: StaticArray<i32>;
  private readonly starts: StaticArray<usize>;
  private readonly ends: StaticArray<usize>;

  constructor(keys: StaticArray<string>) {
    assert(keys.length <= 32, "FieldSpans: at most 32 keys");
    this.keys = keys;
    const offsets = new StaticArray<i32>(keys.length);
    const lengths = new StaticArray<i32>(keys.length);
    let total = 0;
    for (let i = 0; i < keys.length; i++) {
      offsets[i] = total;
      lengths[i] = String.UTF8.byteLength(keys[i]);
      total += lengths[i];
    }
    const data = new StaticArray<u8>(total);
    for (let i = 0; i < keys.length; i++) {
      String.UTF8.encodeUnsafe(changetype<usize>(keys[i]), keys[i].length, changetype<usize>(data) + <usize>offsets[i]);
    }
    const heads = new StaticArray<u64>(keys.length);
    const tails = new StaticArray<u32>(keys.length);
    const keysOfLength = new StaticArray<u32>(LONG_KEY + 1);
    for (let i = 0; i < keys.length; i++) {
      const p = changetype<usize>(data) + <usize>offsets[i];
      heads[i] = keyHead(p, lengths[i]);
      if (lengths[i] > 4) tails[i] = load<u32>(p + <usize>(lengths[i] - 4));
      keysOfLength[min(lengths[i], LONG_KEY)] |= <u32>1 << <u32>i;
    }
    this.keyTails = tails;
    this.keysOfLength = keysOfLength;
    this.keyData = data;
    this.keyOffsets = offsets;
    this.keyHeads = heads;
    this.tokens = new StaticArray<i32>(keys.length);
    this.starts = new StaticArray<usize>(keys.length);
    this.ends = new StaticArray<usize>(keys.length);
  }

  clear(): void {
    this.present = 0;
    this.valued = 0;
  }

  /**
   * With sc just after an ObjStart, reads the members up to the matching ObjEnd, recording the value
   * spans of known keys (a repeated key keeps its last value, as JSON.parse does). Spans recorded before
   * an early stop stay. Returns ObjEnd, or Error/Budget.
   */
  collect(sc: JsonScanner): i32 {
    this.clear();
    while (true) {
      const k = sc.next();
      if (k != JsonToken.String) return k;
      const index = this.indexOfKey(sc);
      const v = sc.next();
      if (v >= JsonToken.End) return v;
      const start = sc.tokenStart;
      const r = sc.skipValue();
      if (r >= JsonToken.End) return r;
      this.set(index, v, start, sc.pos);
    }
    return JsonToken.Error; // unreachable: every iteration reads a token or returns
  }

  /** Records the value of key i (no-op for i outside the keys, e.g. -1 from indexOfKey). */
  set(i: i32, token: i32, start: usize, end: usize): void {
    if (<u32>i >= <u32>this.tokens.length) return;
    unchecked((this.tokens[i] = token));
    unchecked((this.starts[i] = start));
    unchecked((this.ends[i] = end));
    const bit = <u32>1 << <u32>i;
    this.present |= bit;
    if (token == JsonToken.Null) this.valued &= ~bit;
    else this.valued |= bit;
  }

  has(i: i32): bool {
    return <u32>i < <u32>this.tokens.length && (this.present & (<u32>1 << <u32>i)) != 0;
  }

  /** The keys (bit i: key i) set to something other than null. */
  get valuedKeys(): u32 {
    return this.valued;
  }

  /** Some key of the mask (bit i: key i) was set. */
  hasAny(mask: u32): bool {
    return (this.present & mask) != 0;
  }

  /** The first token of key i's value (0 if absent; JsonToken.Null counts as present). */
  token(i: i32): i32 {
    return this.has(i) ? unchecked(this.tokens[i]) : 0;
  }

  /** Key i's value is a string that decodes to `text`. */
  stringIs(i: i32, text: string): bool {
    return this.token(i) == JsonToken.String && jsonStringEquals(this.start(i) + 1, this.end(i) - 1, text);
  }

  /** First byte of key i's value (the opening quote for a string). */
  start(i: i32): usize {
    return <u32>i < <u32>this.starts.length ? unchecked(this.starts[i]) : 0;
  }

  /** Just past the last byte of key i's value. */
  end(i: i32): usize {
    return <u32>i < <u32>this.ends.length ? unchecked(this.ends[i]) : 0;
  }

  /** Index of the key the scanner is on, or -1. */
  indexOfKey(sc: JsonScanner): i32 {
    const start = sc.start;
    const end = sc.end;
    if (sc.hasEscapes) {
      const keys = this.keys;
      const n = keys.length;
      for (let i = 0; i < n; i++) {
        if (jsonStringEquals(start, end, unchecked(keys[i]))) return i;
      }
      return -1;
    }
    const len = <i32>(end - start);
    let candidates = unchecked(this.keysOfLength[min(len, LONG_KEY)]);
    if (candidates == 0) return -1;
    const head = keyHead(start, len);
    const tail = len > 4 ? load<u32>(end - 4) : 0;
    while (candidates != 0) {
      const i = <i32>ctz(candidates);
      candidates &= candidates - 1;
      if (unchecked(this.keyHeads[i]) != head) continue;
      if (len <= 4) return i;
      if (unchecked(this.keyTails[i]) != tail) continue;
      if (len <= 8) return i;
      const rest = changetype<usize>(this.keyData) + <usize>unchecked(this.keyOffsets[i]) + 4;
      if (memory.compare(start + 4, rest, <usize>(len - 8)) == 0) return i;
    }
    return -1;
  }
}

// The byte length of the len bytes at p in the high half, their first (up to) 4 bytes little-endian in the low half.
// @ts-ignore: decorator
@inline function keyHead(p: usize, len: i32): u64 {
  let bytes: u32 = 0;
  if (len >= 4) {
    bytes = load<u32>(p);
  } else {
    for (let j = 0; j < len; j++) bytes |= <u32>load<u8>(p + <usize>j) << (<u32>j << 3);
  }
  return (<u64>(<u32>len) << 32) | <u64>bytes;
}
