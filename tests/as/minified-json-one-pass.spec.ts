// A member's string value is written canonically as the scanner reads it (JsonScanner.nextDecoded with
// CANONICAL_ESCAPES, minified-json.ts nextValueWritten), a short plain key as one block (plainKeyWritten): the same
// bytes, cap cuts and steps as a read and then decodeJsonString / canonicalJsonText over its span.
import { JsonScanner, JsonToken } from "../../assembly/json/scanner";
import { CANONICAL_ESCAPES, decodeJsonString, decodedBytes, stoppedAtCap } from "../../assembly/json/string-decoder";
import { writeMinifiedJson } from "../../assembly/request/minified-json";
import { StreamWriter } from "../../assembly/request/stream-writer";

let held: ArrayBuffer = new ArrayBuffer(0);

function setDoc(sc: JsonScanner, s: string, steps: i32 = 100000): void {
  held = String.UTF8.encode(s);
  sc.reset(changetype<usize>(held), <usize>held.byteLength, steps);
}

// Strings with every kind of escape, multi-byte characters, a lone surrogate and ill-formed bytes' stand-ins.
const STRINGS: StaticArray<string> = [
  "plain",
  "",
  'x\\"y\\\\z\\/w\\b\\f\\n\\r\\t',
  "\\u00e9\\u0001\\u001f\\u0022\\u005c\\u002f\\ud83d\\ude00\\ud83d\\u0041",
  "é😀中文 naïve — \\n" + "abcdefghijklmnopqrstuvwxyz0123456789",
  "\\n\\n\\\"\\\\\\u0000\\t",
  "a long plain run of text that goes past two blocks of sixteen bytes \\\" and on after the escape",
];

function content(w: StreamWriter): string {
  return String.UTF8.decodeUnsafe(w.ptr, <usize>w.len) + (w.full ? "|full" : "");
}

describe("nextDecoded with CANONICAL_ESCAPES", () => {
  it("writes what decodeJsonString writes from the string's span, at every cap", () => {
    const sc = new JsonScanner(4);
    const out = new ArrayBuffer(512);
    const ref = new ArrayBuffer(512);
    for (let i = 0; i < STRINGS.length; i++) {
      const doc = '{"k":"' + STRINGS[i] + '"}';
      for (let cap = 0; cap <= 200; cap++) {
        setDoc(sc, doc);
        sc.next();
        sc.next();
        const t = sc.nextDecoded(changetype<usize>(out), cap, CANONICAL_ESCAPES);
        expect(t).toBe(JsonToken.String);
        const r = decodeJsonString(sc.start, sc.end, changetype<usize>(ref), cap, CANONICAL_ESCAPES);
        expect(sc.decodedLen).toBe(decodedBytes(r), STRINGS[i] + " cap " + cap.toString());
        expect(sc.decodeFilled).toBe(stoppedAtCap(r), STRINGS[i] + " cap " + cap.toString());
        expect(memory.compare(changetype<usize>(out), changetype<usize>(ref), <usize>sc.decodedLen)).toBe(0);
      }
    }
  });
});

describe("writeMinifiedJson with string values written as read", () => {
  it("writes, returns and draws what reading each string and then decoding its span does, at every cap and budget", () => {
    let doc = '{"a":[';
    for (let i = 0; i < STRINGS.length; i++) doc += (i > 0 ? "," : "") + '"' + STRINGS[i] + '"';
    doc += "],";
    for (let i = 0; i < STRINGS.length; i++) doc += '"m' + i.toString() + '" : "' + STRINGS[i] + '",';
    doc += '"cache_control":{"type":"ephemeral"},"n":{"x":"' + STRINGS[2] + '","y":null,"z":1.5},';
    // Keys written as one block when short plain ASCII, and those that are not: 7, 8 and 15 to 17 bytes (around the
    // block of either build), non-ASCII, escaped.
    doc += '"seven_k":"s","eight_ky":0,"fifteen_byte_ky":1,"sixteen_byte_key":[2],"seventeen_byte_ke":{},"ké":"é","k\\u0065y":"k"}';
    const sc = new JsonScanner(8);
    const rc = new JsonScanner(8);
    setDoc(sc, doc);
    let tokens = 0;
    while (sc.next() < JsonToken.End) tokens++;
    const whole = new StreamWriter(4096);
    setDoc(sc, doc);
    sc.next();
    writeMinifiedJson(sc, whole);
    expect(whole.full).toBe(false);
    // Budgets that end in the first values, further on, at the last tokens and after them.
    const budgets: i32[] = [1, 2, 3, 4, 6, 9, 16, 32, tokens / 2, tokens - 1, tokens, tokens + 1, tokens + 2];
    for (let cap = 0; cap <= whole.len + 2; cap++) {
      for (let b = 0; b < budgets.length; b++) {
        const steps = budgets[b];
        const w = new StreamWriter(cap);
        const rw = new StreamWriter(cap);
        setDoc(sc, doc, steps);
        const rheld = held;
        rc.reset(changetype<usize>(rheld), <usize>rheld.byteLength, steps);
        sc.next();
        rc.next();
        const t = writeMinifiedJson(sc, w);
        // Both leave the cache_control member out.
        const rt = referenceSkippingCacheControl(rc, rw);
        const what = "cap " + cap.toString() + " steps " + steps.toString();
        expect(t).toBe(rt, what);
        expect(content(w)).toBe(content(rw), what);
        expect(sc.stepsLeft).toBe(rc.stepsLeft, what);
        expect(sc.pos).toBe(rc.pos, what);
      }
    }
  });
});

// The old writeMinifiedJson: every string read, then decoded from its span with canonicalJsonText.
function referenceSkippingCacheControl(sc: JsonScanner, w: StreamWriter): i32 {
  let t = sc.token;
  const outer = t == JsonToken.ObjStart || t == JsonToken.ArrStart ? sc.depth - 1 : sc.depth;
  let needComma = false;
  while (true) {
    if (t >= JsonToken.End) return t;
    if (t == JsonToken.String && sc.isKey && sc.stringEquals("cache_control")) {
      if (sc.next() >= JsonToken.End) return sc.token;
      const r = sc.skipValue();
      if (r >= JsonToken.End) return r;
      t = sc.next();
      continue;
    }
    if (t == JsonToken.ObjEnd || t == JsonToken.ArrEnd) {
      w.byte(t == JsonToken.ObjEnd ? 0x7d : 0x5d);
      needComma = true;
    } else {
      if (needComma) w.byte(0x2c);
      if (t == JsonToken.ObjStart || t == JsonToken.ArrStart) {
        w.byte(t == JsonToken.ObjStart ? 0x7b : 0x5b);
        needComma = false;
      } else if (t == JsonToken.String) {
        w.byte(0x22);
        w.canonicalJsonText(sc.start, sc.end);
        w.byte(0x22);
        if (sc.isKey) w.byte(0x3a);
        needComma = !sc.isKey;
      } else {
        w.ascii(sc.start, <i32>(sc.end - sc.start));
        needComma = true;
      }
    }
    if (w.full) return t;
    if (sc.depth == outer && t != JsonToken.ObjStart && t != JsonToken.ArrStart && !sc.isKey) return t;
    t = sc.next();
  }
  return JsonToken.Error;
}
