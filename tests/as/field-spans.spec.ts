// FieldSpans key matching (length and first bytes, then the rest) and clearing.
import { JsonScanner, JsonToken } from "../../assembly/json/scanner";
import { FieldSpans } from "../../assembly/request/field-spans";

// Keys that share lengths and first bytes, and keys shorter than 4 bytes (one of them empty).
const KEYS: StaticArray<string> = ["abcdX", "abcdY", "abcd", "abc", "ab", "", "é", "abcdefghijk", "abcdefghijl"];

let held: ArrayBuffer = new ArrayBuffer(0);
const sc = new JsonScanner(8);

// The scanner on the first key of `{<key>: 0}` (key given as JSON, quotes and escapes included).
function onKey(jsonKey: string): JsonScanner {
  held = String.UTF8.encode("{" + jsonKey + ":0}");
  sc.reset(changetype<usize>(held), <usize>held.byteLength, 100);
  sc.next();
  if (sc.next() != JsonToken.String) throw new Error("no key in " + jsonKey);
  return sc;
}

const spans = new FieldSpans(KEYS);

describe("FieldSpans.indexOfKey", () => {
  it("finds each key, plain or escaped", () => {
    for (let i = 0; i < KEYS.length; i++) {
      const key = KEYS[i];
      expect(spans.indexOfKey(onKey('"' + key + '"'))).toBe(i, key);
      if (key.length > 0) {
        const escaped = "\\u" + key.charCodeAt(0).toString(16).padStart(4, "0") + key.substring(1);
        expect(spans.indexOfKey(onKey('"' + escaped + '"'))).toBe(i, escaped);
      }
    }
  });

  it("tells apart keys that share their length and first bytes", () => {
    expect(spans.indexOfKey(onKey('"abcdZ"'))).toBe(-1);
    expect(spans.indexOfKey(onKey('"abcdefghijm"'))).toBe(-1);
    expect(spans.indexOfKey(onKey('"abce"'))).toBe(-1);
    expect(spans.indexOfKey(onKey('"abd"'))).toBe(-1);
    expect(spans.indexOfKey(onKey('"a"'))).toBe(-1);
    expect(spans.indexOfKey(onKey('"abcdXY"'))).toBe(-1);
    expect(spans.indexOfKey(onKey('"\\u00e9x"'))).toBe(-1);
  });

  it("forgets every set key on clear, and keeps the last value of a repeated one", () => {
    spans.set(0, JsonToken.String, 10, 20);
    spans.set(4, JsonToken.Null, 30, 34);
    spans.set(0, JsonToken.Number, 40, 42);
    expect(spans.token(0)).toBe(JsonToken.Number);
    expect(spans.start(0)).toBe(40);
    expect(spans.has(4)).toBe(true);
    expect(spans.hasAny(1 << 3)).toBe(false);
    expect(spans.hasAny((1 << 3) | (1 << 4))).toBe(true);
    spans.clear();
    for (let i = -1; i <= KEYS.length; i++) {
      expect(spans.has(i)).toBe(false);
      expect(spans.token(i)).toBe(0);
    }
    expect(spans.hasAny(0xffffffff)).toBe(false);
  });
});

// Keys of 32 bytes and more share one length bucket; the lookup still tells them apart by their bytes.
const LONG: StaticArray<string> = ["k".repeat(31), "k".repeat(32), "k".repeat(40), "k".repeat(39) + "j", "short"];
const longSpans = new FieldSpans(LONG);

describe("FieldSpans with long keys", () => {
  it("finds keys on both sides of the shared bucket, and no key of another length", () => {
    for (let i = 0; i < LONG.length; i++) expect(longSpans.indexOfKey(onKey('"' + LONG[i] + '"'))).toBe(i, LONG[i]);
    expect(longSpans.indexOfKey(onKey('"' + "k".repeat(33) + '"'))).toBe(-1);
    expect(longSpans.indexOfKey(onKey('"' + "k".repeat(41) + '"'))).toBe(-1);
    expect(longSpans.indexOfKey(onKey('"' + "k".repeat(30) + '"'))).toBe(-1);
    expect(longSpans.indexOfKey(onKey('"' + "k".repeat(39) + 'i"'))).toBe(-1);
  });
});

describe("FieldSpans.valuedKeys", () => {
  it("holds the keys whose last value is not null", () => {
    spans.clear();
    spans.set(1, JsonToken.String, 0, 2);
    spans.set(2, JsonToken.Null, 0, 4);
    expect(spans.valuedKeys).toBe(1 << 1);
    spans.set(1, JsonToken.Null, 0, 4);
    spans.set(2, JsonToken.ArrStart, 0, 2);
    expect(spans.valuedKeys).toBe(1 << 2);
    spans.clear();
    expect(spans.valuedKeys).toBe(0);
  });
});

// Keys of 9 bytes and more that share their first and last 4 bytes differ in the middle only.
const MIDDLE: StaticArray<string> = ["headMIDDLEtail", "headMIDDLftail", "head1tail", "head2tail"];
const middleSpans = new FieldSpans(MIDDLE);

describe("FieldSpans with keys that differ in the middle", () => {
  it("tells them apart", () => {
    for (let i = 0; i < MIDDLE.length; i++) expect(middleSpans.indexOfKey(onKey('"' + MIDDLE[i] + '"'))).toBe(i, MIDDLE[i]);
    expect(middleSpans.indexOfKey(onKey('"headMIDDLgtail"'))).toBe(-1);
    expect(middleSpans.indexOfKey(onKey('"head3tail"'))).toBe(-1);
  });
});
