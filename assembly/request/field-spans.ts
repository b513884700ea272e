// Records where the values of selected members of one JSON object are, so that they can be read in a
// fixed order whatever the member order in the document.
import { JsonScanner, JsonToken } from "../json/scanner";
import { jsonStringEquals } from "../json/string-compare";

export class FieldSpans {
  private readonly keys: StaticArray<string>;
  // UTF-8 bytes of the keys, back to back, and each key's offset and length there: an unescaped key in
  // the document matches when its bytes are equal.
  private readonly keyData: StaticArray<u8>;
  private readonly keyOffsets: StaticArray<i32>;
  private readonly keyLengths: StaticArray<i32>;
  // Per key: first token of the value (0 = absent), and the value's bytes [start, end).
  private readonly tokens: StaticArray<i32>;
  private readonly starts: StaticArray<usize>;
  private readonly ends: StaticArray<usize>;

  constructor(keys: StaticArray<string>) {
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
    this.keyData = data;
    this.keyOffsets = offsets;
    this.keyLengths = lengths;
    this.tokens = new StaticArray<i32>(keys.length);
    this.starts = new StaticArray<usize>(keys.length);
    this.ends = new StaticArray<usize>(keys.length);
  }

  clear(): void {
    const n = this.keys.length;
    for (let i = 0; i < n; i++) unchecked((this.tokens[i] = 0));
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
  }

  has(i: i32): bool {
    return this.token(i) != 0;
  }

  /** The first token of key i's value (0 if absent; JsonToken.Null counts as present). */
  token(i: i32): i32 {
    return <u32>i < <u32>this.tokens.length ? unchecked(this.tokens[i]) : 0;
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
    const keys = this.keys;
    const n = keys.length;
    const start = sc.start;
    const end = sc.end;
    if (sc.hasEscapes) {
      for (let i = 0; i < n; i++) {
        if (jsonStringEquals(start, end, unchecked(keys[i]))) return i;
      }
      return -1;
    }
    const len = <i32>(end - start);
    const data = changetype<usize>(this.keyData);
    for (let i = 0; i < n; i++) {
      if (unchecked(this.keyLengths[i]) != len) continue;
      if (memory.compare(start, data + <usize>unchecked(this.keyOffsets[i]), <usize>len) == 0) return i;
    }
    return -1;
  }
}
