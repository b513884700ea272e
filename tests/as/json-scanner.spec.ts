import { JsonScanner, JsonToken } from "../../assembly/json/scanner";
import { CANONICAL_ESCAPES, decodeJsonString, decodedBytes, shortEscapeValue, stoppedAtCap } from "../../assembly/json/string-decoder";
import { parseNumberF64 } from "../../assembly/json/number";

function decodeJsonStringForTest(sc: JsonScanner, dst: usize, cap: i32, flags: i32): i32 {
  return decodeJsonString(sc.start, sc.end, dst, cap, flags);
}

// Keeps the encoded documents alive while their pointers are in use.
let held: ArrayBuffer = new ArrayBuffer(0);

function setDoc(sc: JsonScanner, s: string, steps: i32 = 100000): void {
  held = String.UTF8.encode(s);
  sc.reset(changetype<usize>(held), <usize>held.byteLength, steps);
}

// nextDecoded on a's first array element against decodeJsonString on b's: 1 when the output, cap state, token fields
// and the tokens after it agree, 0 otherwise (one expect per case would make the sweep too slow).
function decodesAlike(a: JsonScanner, b: JsonScanner, doc: usize, len: usize, outA: usize, outB: usize, cap: i32, flags: i32): i32 {
  a.reset(doc, len, 100);
  b.reset(doc, len, 100);
  if (a.next() != JsonToken.ArrStart || b.next() != JsonToken.ArrStart) return 0;
  if (a.nextDecoded(outA, cap, flags) != JsonToken.String || b.next() != JsonToken.String) return 0;
  const r = decodeJsonStringForTest(b, outB, cap, flags);
  const n = decodedBytes(r);
  if (a.decodedLen != n || memory.compare(outA, outB, <usize>n) != 0 || a.decodeFilled != stoppedAtCap(r)) return 0;
  if (a.start != b.start || a.end != b.end || a.hasEscapes != b.hasEscapes || a.pos != b.pos) return 0;
  if (a.next() != JsonToken.Number || a.next() != JsonToken.ArrEnd) return 0;
  return 1;
}

/** Final token (End, Error or Budget) after reading the whole document. */
function finalToken(s: string, maxDepth: i32 = 64, steps: i32 = 100000): i32 {
  const sc = new JsonScanner(maxDepth);
  setDoc(sc, s, steps);
  let t = sc.next();
  while (t < JsonToken.End) t = sc.next();
  return t;
}

/** One letter per token: { } [ ] k(key) s n t f z(null) . (End) ! (Error) $ (Budget). */
function shape(s: string, steps: i32 = 100000): string {
  const sc = new JsonScanner(64);
  setDoc(sc, s, steps);
  let out = "";
  for (let i = 0; i < 1000; i++) {
    const t = sc.next();
    if (t == JsonToken.ObjStart) out += "{";
    else if (t == JsonToken.ObjEnd) out += "}";
    else if (t == JsonToken.ArrStart) out += "[";
    else if (t == JsonToken.ArrEnd) out += "]";
    else if (t == JsonToken.String) out += sc.isKey ? "k" : "s";
    else if (t == JsonToken.Number) out += "n";
    else if (t == JsonToken.True) out += "t";
    else if (t == JsonToken.False) out += "f";
    else if (t == JsonToken.Null) out += "z";
    else if (t == JsonToken.End) return out + ".";
    else if (t == JsonToken.Error) return out + "!";
    else if (t == JsonToken.Budget) return out + "$";
  }
  return out;
}

/** Text of the current token's span [start, end). */
function spanText(sc: JsonScanner): string {
  return String.UTF8.decodeUnsafe(sc.start, sc.end - sc.start);
}

/** Decodes the first value of s (a JSON string) with the given output cap. */
function decodeFirst(s: string, cap: i32): string {
  const sc = new JsonScanner(8);
  setDoc(sc, s);
  expect(sc.next()).toBe(JsonToken.String);
  const out = new ArrayBuffer(cap + 16);
  const dst = changetype<usize>(out);
  // Canary bytes after cap must survive.
  for (let i = 0; i < 16; i++) store<u8>(dst + <usize>(cap + i), 0xaa);
  const n = sc.decodeStringTo(dst, cap);
  expect(n <= cap).toBe(true);
  for (let i = 0; i < 16; i++) {
    const canary = load<u8>(dst + <usize>(cap + i));
    expect<u8>(canary).toBe(0xaa);
  }
  return String.UTF8.decodeUnsafe(dst, <usize>n);
}

const VALID: string[] = [
  "0", "-0", "1e5", "1E+5", "-1.5e-3", "123456789012345678901234567890", "0.0", "[]", "{}", "\"\"",
  " \t\r\n 1 \t\r\n", "true", "false", "null", "[1,2,3]", "{\"a\":1,\"b\":[true,false,null]}",
  "[[[[]]]]", "{\"a\":{\"b\":{}}}", "\"\\u00e9\\ud83d\\ude00\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
  "\"\\ud800\"", "[\"é😀\"]", "{ \"k\" : \"v\" , \"k2\" : [ 1 , 2 ] }", "-0.0e0",
];

const INVALID: string[] = [
  "", " ", "\t\n", "1.", ".5", "01", "-01", "+1", "-", "1e", "1e+", "0x10", "1.e5", "Infinity", "NaN",
  "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{1:2}", "{'a':1}", "[", "]", "{", "}",
  "[1]]", "{}}", "1 2", "[1] x", "\"abc", "\"ab\\\"", "\"a\\x\"", "\"\\u12\"", "\"\\u12G4\"", "tru", "nul",
  "falsey", "truex", "[,1]", "{,}", "[1,,2]", "{\"a\"}", "{\"a\":}", "{\"a\"::1}", "\"\\", "nulL",
];

describe("JsonScanner grammar", () => {
  it("accepts valid documents", () => {
    for (let i = 0; i < VALID.length; i++) {
      const t = finalToken(VALID[i]);
      if (t != JsonToken.End) throw new Error("rejected valid JSON: " + VALID[i]);
    }
  });

  it("rejects invalid documents", () => {
    for (let i = 0; i < INVALID.length; i++) {
      const t = finalToken(INVALID[i]);
      if (t != JsonToken.Error) throw new Error("accepted invalid JSON: " + INVALID[i]);
    }
  });

  it("rejects raw control characters inside strings but allows them escaped", () => {
    for (let c = 0; c < 0x20; c++) {
      expect(finalToken("\"a" + String.fromCharCode(c) + "b\"")).toBe(JsonToken.Error);
      // Also inside the 8-byte fast path.
      expect(finalToken("\"abcdefghijk" + String.fromCharCode(c) + "lmnopqrstu\"")).toBe(JsonToken.Error);
    }
    expect(finalToken("\"\\u0000\\u001f\"")).toBe(JsonToken.End);
    expect(finalToken("\"\x7f\"")).toBe(JsonToken.End);
  });

  it("reports token kinds, keys and order", () => {
    expect(shape("{\"a\":[1,\"x\",true,false,null,{}],\"b\":\"y\"}")).toBe("{k[nstfz{}]ks}.");
    expect(shape("[[],{},[{}]]")).toBe("[[]{}[{}]].");
    expect(shape("\"solo\"")).toBe("s.");
    expect(shape("[1,2")).toBe("[nn!");
    expect(shape("{\"a\":1}x")).toBe("{kn}!");
  });

  it("exposes spans of strings and numbers", () => {
    const sc = new JsonScanner(8);
    setDoc(sc, "{\"key\\n\": -12.5e3, \"v\": \"a\\\"b\"}");
    sc.next();
    expect(sc.next()).toBe(JsonToken.String);
    expect(sc.isKey).toBe(true);
    expect(sc.hasEscapes).toBe(true);
    expect(spanText(sc)).toBe("key\\n");
    expect(sc.next()).toBe(JsonToken.Number);
    expect(spanText(sc)).toBe("-12.5e3");
    expect(sc.numberValue()).toBe(-12500.0);
    expect(sc.next()).toBe(JsonToken.String);
    expect(sc.isKey).toBe(true);
    expect(sc.hasEscapes).toBe(false);
    expect(sc.next()).toBe(JsonToken.String);
    expect(sc.isKey).toBe(false);
    expect(spanText(sc)).toBe("a\\\"b");
    // tokenStart..pos spans the whole value, quotes included.
    expect(String.UTF8.decodeUnsafe(sc.tokenStart, sc.pos - sc.tokenStart)).toBe("\"a\\\"b\"");
    expect(sc.next()).toBe(JsonToken.ObjEnd);
    expect(sc.next()).toBe(JsonToken.End);
    expect(sc.next()).toBe(JsonToken.End);
  });

  it("finds string ends across the 8-byte fast path", () => {
    // Quotes and escapes at every offset within and around an 8-byte block.
    for (let n = 0; n < 20; n++) {
      const body = "x".repeat(n);
      const sc = new JsonScanner(4);
      setDoc(sc, "[\"" + body + "\",\"" + body + "\\\"" + body + "\"]");
      sc.next();
      expect(sc.next()).toBe(JsonToken.String);
      expect(<i32>(sc.end - sc.start)).toBe(n);
      expect(sc.next()).toBe(JsonToken.String);
      expect(<i32>(sc.end - sc.start)).toBe(2 * n + 2);
      expect(sc.next()).toBe(JsonToken.ArrEnd);
      expect(sc.next()).toBe(JsonToken.End);
    }
  });
});

describe("JsonScanner depth limit", () => {
  it("accepts nesting up to maxDepth and rejects one more", () => {
    for (let d = 1; d <= 10; d++) {
      const ok = "[".repeat(d) + "]".repeat(d);
      const deep = "[".repeat(d + 1) + "]".repeat(d + 1);
      expect(finalToken(ok, d)).toBe(JsonToken.End);
      expect(finalToken(deep, d)).toBe(JsonToken.Error);
      const okObj = "{\"a\":".repeat(d) + "1" + "}".repeat(d);
      expect(finalToken(okObj, d)).toBe(JsonToken.End);
      expect(finalToken("{\"a\":" + okObj + "}", d)).toBe(JsonToken.Error);
    }
  });

  it("survives very deep input without trapping", () => {
    expect(finalToken("[".repeat(100000), 128)).toBe(JsonToken.Error);
    expect(finalToken("{\"a\":".repeat(50000), 128)).toBe(JsonToken.Error);
  });

  it("rejects any container when maxDepth is 0", () => {
    expect(finalToken("[]", 0)).toBe(JsonToken.Error);
    expect(finalToken("1", 0)).toBe(JsonToken.End);
  });
});

describe("JsonScanner step budget", () => {
  it("costs one step per token and then returns Budget for good", () => {
    // [1,2,3] has 5 tokens, then End needs one more step.
    for (let steps = 0; steps <= 5; steps++) {
      expect(shape("[1,2,3]", steps).endsWith("$")).toBe(true);
      expect(shape("[1,2,3]", steps).length).toBe(steps + 1);
    }
    expect(shape("[1,2,3]", 6)).toBe("[nnn].");
    const sc = new JsonScanner(4);
    setDoc(sc, "[1,2]", 2);
    sc.next();
    sc.next();
    expect(sc.next()).toBe(JsonToken.Budget);
    expect(sc.next()).toBe(JsonToken.Budget);
    expect(sc.stepsLeft).toBe(0);
  });

  it("bounds a huge document by the budget", () => {
    const big = "[" + "1,".repeat(100000) + "1]";
    expect(finalToken(big, 8, 1000)).toBe(JsonToken.Budget);
    expect(finalToken(big, 8, 1000000)).toBe(JsonToken.End);
  });

  it("skipValue skips containers and scalars and respects the budget", () => {
    const sc = new JsonScanner(16);
    setDoc(sc, "{\"a\":[1,{\"b\":[2,3]},4],\"c\":5}");
    sc.next();
    sc.next();
    expect(sc.next()).toBe(JsonToken.ArrStart);
    const at = sc.tokenStart;
    expect(sc.skipValue()).toBe(JsonToken.ArrEnd);
    expect(String.UTF8.decodeUnsafe(at, sc.pos - at)).toBe("[1,{\"b\":[2,3]},4]");
    expect(sc.depth).toBe(1);
    expect(sc.next()).toBe(JsonToken.String);
    expect(sc.keyIs("c")).toBe(true);
    expect(sc.next()).toBe(JsonToken.Number);
    expect(sc.skipValue()).toBe(JsonToken.Number);
    expect(sc.next()).toBe(JsonToken.ObjEnd);
    expect(sc.next()).toBe(JsonToken.End);

    setDoc(sc, "[[1,2,3,4,5,6]]", 4);
    sc.next();
    sc.next();
    expect(sc.skipValue()).toBe(JsonToken.Budget);
    setDoc(sc, "[[1,2,3,}]", 100);
    sc.next();
    sc.next();
    expect(sc.skipValue()).toBe(JsonToken.Error);
  });
});

describe("JsonScanner comparisons", () => {
  it("keyIs matches keys only, with escapes and non-ASCII", () => {
    const sc = new JsonScanner(4);
    setDoc(sc, "{\"model\":\"model\",\"mod\\u0065l\":1,\"modelx\":2,\"mode\":3,\"caf\\u00e9\":4,\"café\":5,\"😀\":6}");
    sc.next();
    sc.next();
    expect(sc.keyIs("model")).toBe(true);
    expect(sc.keyIs("mode")).toBe(false);
    expect(sc.keyIs("models")).toBe(false);
    sc.next();
    expect(sc.stringEquals("model")).toBe(true);
    expect(sc.keyIs("model")).toBe(false); // a value, not a key
    sc.next();
    expect(sc.keyIs("model")).toBe(true);
    sc.next();
    sc.next();
    expect(sc.keyIs("model")).toBe(false);
    sc.next();
    sc.next();
    expect(sc.keyIs("model")).toBe(false);
    expect(sc.keyIs("mode")).toBe(true);
    sc.next();
    sc.next();
    expect(sc.keyIs("café")).toBe(true);
    expect(sc.keyIs("cafe")).toBe(false);
    sc.next();
    sc.next();
    expect(sc.keyIs("café")).toBe(true);
    sc.next();
    sc.next();
    expect(sc.keyIs("😀")).toBe(true);
    expect(sc.keyIs("😁")).toBe(false);
  });
});

describe("JsonScanner string decoding", () => {
  it("unescapes all escape forms", () => {
    expect(decodeFirst("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"", 100)).toBe("a\"b\\c/d\be\ff\ng\rh\ti");
    expect(decodeFirst("\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"", 100)).toBe("Aé€😀");
    expect(decodeFirst("\"plain ascii text longer than eight bytes\"", 100)).toBe("plain ascii text longer than eight bytes");
    expect(decodeFirst("\"é😀 mixed ✓ text\"", 100)).toBe("é😀 mixed ✓ text");
  });

  it("replaces lone surrogates with U+FFFD", () => {
    expect(decodeFirst("\"\\ud83d\"", 100)).toBe("\uFFFD");
    expect(decodeFirst("\"\\ude00x\"", 100)).toBe("\uFFFDx");
    expect(decodeFirst("\"\\ud83d\\u0041\"", 100)).toBe("\uFFFDA");
    expect(decodeFirst("\"\\ud83d\\ud83d\\ude00\"", 100)).toBe("\uFFFD😀");
  });

  it("replaces ill-formed UTF-8 bytes with U+FFFD", () => {
    // Build ["<bytes>"] by hand: a lone continuation byte, a truncated 3-byte sequence, an overlong form,
    // an encoded surrogate and a byte that never occurs in UTF-8.
    const bytes: u8[] = [0x22, 0x61, 0x80, 0x62, 0xe2, 0x82, 0x63, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xff, 0x22];
    const buf = new ArrayBuffer(bytes.length);
    for (let i = 0; i < bytes.length; i++) store<u8>(changetype<usize>(buf) + <usize>i, bytes[i]);
    const sc = new JsonScanner(2);
    sc.reset(changetype<usize>(buf), <usize>buf.byteLength, 10);
    expect(sc.next()).toBe(JsonToken.String);
    const out = new ArrayBuffer(64);
    const n = sc.decodeStringTo(changetype<usize>(out), 64);
    // Maximal subparts: 80 | e2 82 | c0 | af | ed | a0 | 80 | ff each become one U+FFFD.
    expect(String.UTF8.decodeUnsafe(changetype<usize>(out), <usize>n)).toBe(
      "a\uFFFDb\uFFFDc\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD",
    );
  });

  it("stops at the cap on a character boundary", () => {
    const text = "ab€😀cdefghijklmnop\\u00e9\\ud83d\\ude00z";
    const full = decodeFirst("\"" + text + "\"", 200);
    const fullBytes = String.UTF8.byteLength(full);
    for (let cap = 0; cap <= fullBytes + 2; cap++) {
      const part = decodeFirst("\"" + text + "\"", cap);
      expect(String.UTF8.byteLength(part) <= cap).toBe(true);
      expect(full.startsWith(part)).toBe(true);
      // Stops only when the next whole character does not fit.
      const next = full.charCodeAt(part.length);
      const nextLen = part.length >= full.length ? 0 : next >= 0xd800 && next < 0xdc00 ? 4 : next >= 0x800 ? 3 : next >= 0x80 ? 2 : 1;
      if (part.length < full.length) expect(String.UTF8.byteLength(part) + nextLen > cap).toBe(true);
    }
  });
});

/** The string at the start of doc, written with CANONICAL_ESCAPES into at most cap bytes. */
function canonicalFirst(doc: string, cap: i32): string {
  const sc = new JsonScanner(4);
  setDoc(sc, doc);
  sc.next();
  const out = new ArrayBuffer(max(cap, 1));
  const r = decodeJsonString(sc.start, sc.end, changetype<usize>(out), cap, CANONICAL_ESCAPES);
  return String.UTF8.decodeUnsafe(changetype<usize>(out), <usize>decodedBytes(r));
}

describe("JSON string bodies escaped canonically", () => {
  it("gives every spelling of a string one spelling", () => {
    const canonical = 'a\\"b\\\\c/d\\be\\ff\\ng\\rh\\ti\\u0000\\u001f\u007f é€😀';
    expect(canonicalFirst('"a\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\\u0000\\u001F\u007f \\u00e9\\u20ac\\ud83d\\ude00"', 200)).toBe(canonical);
    expect(canonicalFirst('"\\u0061\\u0022b\\u005Cc/d\\u0008e\\u000cf\\u000Ag\\u000dh\\u0009i\\u0000\\u001f\\u007F é€😀"', 200))
      .toBe(canonical);
    // Lone surrogates read as U+FFFD, as when decoding.
    expect(canonicalFirst('"\\ud83d\\u0041"', 100)).toBe("\uFFFDA");
  });

  it("stops at the cap with a prefix of the whole, cutting escapes but no character", () => {
    const doc = '"é\\u00e9\\n\\u0001\\/x😀\\""';
    const full = canonicalFirst(doc, 200);
    expect(full).toBe('éé\\n\\u0001/x😀\\"');
    const fullBytes = String.UTF8.byteLength(full);
    for (let cap = 0; cap <= fullBytes + 1; cap++) {
      const part = canonicalFirst(doc, cap);
      const n = String.UTF8.byteLength(part);
      expect(n <= cap).toBe(true);
      // Short of the cap only before a multi-byte character that does not fit (escapes are ASCII, cut anywhere).
      if (n < min(cap, fullBytes)) {
        const next = full.charCodeAt(part.length);
        expect(next >= 0x80).toBe(true);
        expect(n + (next >= 0xd800 && next < 0xdc00 ? 4 : next >= 0x800 ? 3 : 2) > cap).toBe(true);
      }
      expect(full.startsWith(part)).toBe(true);
    }
  });
});

describe("JsonScanner byte classes across the 8-byte lanes", () => {
  it("treats every ASCII byte at every offset as the grammar says", () => {
    for (let b = 1; b < 0x80; b++) {
      for (let k = 0; k < 17; k++) {
        const inner = "a".repeat(k) + String.fromCharCode(b) + "a".repeat(20 - k);
        const t = finalToken("\"" + inner + "\"");
        // A quote ends the string early (garbage follows), a lone backslash before 'a' is a bad escape.
        const expected = b < 0x20 || b == 0x22 || b == 0x5c ? JsonToken.Error : JsonToken.End;
        if (t != expected) throw new Error("byte " + b.toString() + " at " + k.toString());
        if (expected == JsonToken.End) expect(decodeFirst("\"" + inner + "\"", 64)).toBe(inner);
      }
    }
  });
});

describe("JsonScanner.nextDecoded", () => {
  it("decodes exactly like decodeStringTo, for every cap", () => {
    const samples: string[] = [
      "\"plain ascii that spans several eight byte blocks\"",
      "\"é€😀 mixed \\u00e9\\ud83d\\ude00 \\n\\t\\\" and \\ud800 lone\"",
      "\"sep \\u001e\\u001b\\u001a\\u001f bytes\"",
      // Accents in Latin-script text: after a lone one the rest is copied in bulk (string-runs.ts copyWellFormed).
      "\"café: élèves étudient déjà la théorie des systèmes répartis, naïve façon \\n fin\"",
      "\"\"",
    ];
    const flagsList: i32[] = [0, 2]; // 2: ESCAPE_SEPARATOR_BYTES
    const a = new JsonScanner(4);
    const b = new JsonScanner(4);
    const outA = new ArrayBuffer(128);
    const outB = new ArrayBuffer(128);
    for (let i = 0; i < samples.length; i++) {
      for (let f = 0; f < flagsList.length; f++) {
        for (let cap = 0; cap < 100; cap++) {
          const doc = "[" + samples[i] + ",1]";
          setDoc(a, doc);
          const keep = held;
          expect(a.next()).toBe(JsonToken.ArrStart);
          expect(a.nextDecoded(changetype<usize>(outA), cap, flagsList[f])).toBe(JsonToken.String);
          setDoc(b, doc);
          b.next();
          b.next();
          const r = decodeJsonStringForTest(b, changetype<usize>(outB), cap, flagsList[f]);
          const n = decodedBytes(r);
          expect(a.decodedLen).toBe(n);
          expect(memory.compare(changetype<usize>(outA), changetype<usize>(outB), <usize>n)).toBe(0);
          expect(a.decodeFilled).toBe(stoppedAtCap(r));
          // The scan itself is unaffected by the cap.
          expect(a.start).toBe(b.start - changetype<usize>(held) + changetype<usize>(keep));
          expect(a.next()).toBe(JsonToken.Number);
          expect(a.next()).toBe(JsonToken.ArrEnd);
          expect(a.next()).toBe(JsonToken.End);
        }
      }
    }
  });

  it("reads every token as next() does, in every context, with whitespace or not, to the last step", () => {
    const docs: string[] = [
      "{\"k\":\"v\",\"k2\": \"v2\" ,\"k3\"\n:\t\"v3\",\"n\":[\"a\", \"b\",\n\"\"]}",
      "[ \"a\",\"b\" , {\"c\":\"d\"}, 1, \"e\\n\"]",
      " \"top\" ",
      "\"top\"x",
      "{\"k\": \"cut",
      "[\"a\",",
    ];
    const a = new JsonScanner(4);
    const b = new JsonScanner(4);
    const out = new ArrayBuffer(64);
    const dst = changetype<usize>(out);
    for (let i = 0; i < docs.length; i++) {
      for (let steps = 0; steps < 24; steps++) {
        setDoc(a, docs[i], steps);
        b.reset(changetype<usize>(held), <usize>held.byteLength, steps);
        for (let n = 0; n < 30; n++) {
          const t = a.nextDecoded(dst, 64, 0);
          expect(t).toBe(b.next());
          expect(a.start).toBe(b.start);
          expect(a.end).toBe(b.end);
          expect(a.tokenStart).toBe(b.tokenStart);
          expect(a.pos).toBe(b.pos);
          expect(a.isKey).toBe(b.isKey);
          expect(a.depth).toBe(b.depth);
          expect(a.stepsLeft).toBe(b.stepsLeft);
          if (t == JsonToken.String && !a.isKey) {
            expect(a.decodedLen).toBe(b.decodeStringTo(dst + 32, 32));
          } else {
            expect(a.decodedLen).toBe(0);
          }
          if (t >= JsonToken.End) break;
        }
      }
    }
  });

  it("decodes escapes, UTF-8 and ill-formed bytes at every block offset and cap like decodeJsonString, in every mode", () => {
    // Each piece lands after 0 to 40 plain bytes (so at and across every 8/16/32-byte block boundary), twice, with plain
    // bytes between: the decode's fast paths (short escapes, sequences, runs) against the general decoder.
    const pieces: u8[][] = [
      [0x5c, 0x6e], // \n
      [0x5c, 0x22], // \"
      [0x5c, 0x5c], // \\
      [0x5c, 0x2f], // \/
      [0x5c, 0x6e, 0x5c, 0x74, 0x5c, 0x72], // \n\t\r in a row
      [0x5c, 0x75, 0x30, 0x30, 0x30, 0x30], // \u0000
      [0x5c, 0x75, 0x30, 0x30, 0x31, 0x65], // \u001e (a separator byte)
      [0x5c, 0x75, 0x64, 0x38, 0x33, 0x64, 0x5c, 0x75, 0x64, 0x65, 0x30, 0x30], // \ud83d\ude00
      [0x5c, 0x75, 0x64, 0x38, 0x30, 0x30, 0x78], // \ud800x (lone surrogate)
      [0xc3, 0xa9], // é
      [0xc3, 0xa9, 0x61, 0xc3, 0xa8], // éaè
      [0xe4, 0xb8, 0xad, 0xe6, 0x96, 0x87], // 中文
      [0xf0, 0x9f, 0x98, 0x80], // 😀
      [0xff], // never in UTF-8
      [0xc3, 0x61], // lead without its continuation
      [0xe4, 0xb8, 0x61], // 3-byte lead cut short
      [0xed, 0xa0, 0x80], // an encoded surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0x80], // stray continuation
      [0x5c, 0x75, 0x30, 0x30, 0x65, 0x39, 0x5c, 0x75, 0x34, 0x65, 0x32, 0x64], // \u00e9\u4e2d (ASCII-only JSON)
      [0xe4, 0xb8, 0xad, 0xe6, 0x96, 0x87, 0xe4, 0xb8, 0xad, 0xe6, 0x96, 0x87, 0xe4, 0xb8, 0xad, 0xe6, 0x96, 0x87,
        0xe4, 0xb8, 0xad, 0xe6, 0x96, 0x87, 0xe4, 0xb8, 0xad, 0xe6, 0x96, 0x87, 0xe4, 0xb8, 0xad, 0xff], // a CJK run, then 0xff
    ];
    const flagsList: i32[] = [0, CANONICAL_ESCAPES, 2]; // 2: ESCAPE_SEPARATOR_BYTES
    const a = new JsonScanner(4);
    const b = new JsonScanner(4);
    const outA = new ArrayBuffer(400);
    const outB = new ArrayBuffer(400);
    // Without, then with, 100 spaces after the string: a document long enough for the 32-byte block loop of the SIMD build.
    for (let spaced = 0; spaced < 2; spaced++) for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      for (let lead = 0; lead <= 40; lead++) {
        const bytes: u8[] = [0x5b, 0x22];
        for (let k = 0; k < lead; k++) bytes.push(<u8>(0x61 + (k % 26)));
        for (let k = 0; k < piece.length; k++) bytes.push(piece[k]);
        for (let k = 0; k < 7; k++) bytes.push(0x62);
        for (let k = 0; k < piece.length; k++) bytes.push(piece[k]);
        for (let k = 0; k < 20; k++) bytes.push(0x63);
        bytes.push(0x22);
        for (let k = 0; k < spaced * 100; k++) bytes.push(0x20);
        bytes.push(0x2c);
        bytes.push(0x31);
        bytes.push(0x5d);
        const doc = new ArrayBuffer(bytes.length);
        for (let k = 0; k < bytes.length; k++) store<u8>(changetype<usize>(doc) + <usize>k, bytes[k]);
        const docPtr = changetype<usize>(doc);
        for (let f = 0; f < flagsList.length; f++) {
          // With room to spare (the block loop runs to the string's end), then every cap up to the whole string.
          for (let c = -6 * spaced; c < 400; c++) {
            const cap = c < 0 ? 400 - 50 * (c + 6) : c;
            const r = decodesAlike(a, b, docPtr, <usize>bytes.length, changetype<usize>(outA), changetype<usize>(outB), cap, flagsList[f]);
            if (r != 1) {
              // Fails with the piece, its offset, mode and cap in view.
              expect(spaced * 100000000 + i * 1000000 + lead * 10000 + f * 1000 + cap).toBe(-1);
              return;
            }
            if (c >= 0 && !a.decodeFilled) break; // larger caps decode the same
          }
        }
      }
    }
  });

  it("rejects a body cut inside a string at every byte while decoding, as next() does", () => {
    const whole = "[\"ab\\n\\u00e9\\ud83d\\ude00 é中😀 \\\" " + "x".repeat(40) + " \\t\"]";
    const full = String.UTF8.encode(whole);
    const a = new JsonScanner(4);
    const b = new JsonScanner(4);
    const out = new ArrayBuffer(128);
    for (let len = 2; len < full.byteLength - 1; len++) {
      for (let cap = 0; cap < 80; cap += 7) {
        a.reset(changetype<usize>(full), <usize>len, 100);
        b.reset(changetype<usize>(full), <usize>len, 100);
        a.next();
        b.next();
        const t = a.nextDecoded(changetype<usize>(out), cap, len & 1 ? CANONICAL_ESCAPES : 0);
        const ok = t == JsonToken.Error && b.next() == JsonToken.Error && a.pos == b.pos;
        if (!ok) {
          expect(len * 1000 + cap).toBe(-1);
          return;
        }
      }
    }
  });

  it("still rejects malformed strings while decoding", () => {
    const bad: string[] = ["\"abc", "\"a\\x\"", "\"a\\u12\"", "\"ctl \n\"", "\"" + "long".repeat(10) + "\\q\""];
    const sc = new JsonScanner(4);
    const out = new ArrayBuffer(16);
    for (let i = 0; i < bad.length; i++) {
      setDoc(sc, bad[i]);
      expect(sc.nextDecoded(changetype<usize>(out), 16, 0)).toBe(JsonToken.Error);
    }
  });
});

// The keys a caller expects, as their bytes: "role": in first place, ,"content": after a member.
const KEY_ROLE: u64 = 0x3a22656c6f7222;
const KEY_CONTENT_LO: u64 = 0x6e65746e6f63222c;
const KEY_CONTENT_HI: u64 = 0x3a2274;

// What compareShortcut tries before each token: nextKeyBytes for "role", for ,"content", nextIsObjEnd,
// nextIsElementObject, nextShortPlainValue.
const TRY_ROLE = 0;
const TRY_CONTENT = 1;
const TRY_OBJ_END = 2;
const TRY_ELEMENT_OBJECT = 3;
const TRY_SHORT_VALUE = 4;
const SHORTCUTS = 5;
const shortValueCopy = new StaticArray<u8>(16);

function tryShortcut(sc: JsonScanner, kind: i32): bool {
  if (kind == TRY_ROLE) return sc.nextKeyBytes(KEY_ROLE, 0, 7);
  if (kind == TRY_CONTENT) return sc.nextKeyBytes(KEY_CONTENT_LO, KEY_CONTENT_HI, 11);
  if (kind == TRY_OBJ_END) return sc.nextIsObjEnd();
  if (kind == TRY_ELEMENT_OBJECT) return sc.nextIsElementObject();
  const dst = changetype<usize>(shortValueCopy);
  const k = sc.nextShortPlainValue(dst);
  if (k < 0) return false;
  // The copy starts with the content (its own decoding).
  expect(k).toBe(<i32>(sc.end - sc.start));
  expect(memory.compare(dst, sc.start, <usize>k)).toBe(0);
  return true;
}

// Reads doc with a and b to the end, a trying a shortcut before each token: where it reads one, it reads what next()
// reads, and where it does not, nothing changes. Returns how many tokens the shortcut read.
function compareShortcut(doc: string, steps: i32, kind: i32, maxDepth: i32 = 4): i32 {
  const a = new JsonScanner(maxDepth);
  const b = new JsonScanner(maxDepth);
  setDoc(a, doc, steps);
  b.reset(changetype<usize>(held), <usize>held.byteLength, steps);
  let read = 0;
  for (let i = 0; i < 40; i++) {
    const pos = a.pos;
    const left = a.stepsLeft;
    let t: i32;
    if (tryShortcut(a, kind)) {
      t = a.token;
      read++;
    } else {
      if (a.pos != pos || a.stepsLeft != left) {
        expect(a.pos).toBe(pos, doc);
        expect(a.stepsLeft).toBe(left, doc);
      }
      t = a.next();
    }
    // Expectations only on a difference: one per field and token (~150,000) were most of the spec's time.
    const bt = b.next();
    if (t != bt || a.token != b.token || a.start != b.start || a.end != b.end || a.tokenStart != b.tokenStart ||
        a.pos != b.pos || a.isKey != b.isKey || a.hasEscapes != b.hasEscapes || a.depth != b.depth ||
        a.stepsLeft != b.stepsLeft) {
      expect(t).toBe(bt, doc);
      expect(a.token).toBe(b.token, doc);
      expect(a.start).toBe(b.start, doc);
      expect(a.end).toBe(b.end, doc);
      expect(a.tokenStart).toBe(b.tokenStart, doc);
      expect(a.pos).toBe(b.pos, doc);
      expect(a.isKey).toBe(b.isKey, doc);
      expect(a.hasEscapes).toBe(b.hasEscapes, doc);
      expect(a.depth).toBe(b.depth, doc);
      expect(a.stepsLeft).toBe(b.stepsLeft, doc);
    }
    if (t >= JsonToken.End) break;
  }
  return read;
}

describe("JsonScanner shortcuts: nextKeyBytes, nextIsObjEnd, nextIsElementObject, nextShortPlainValue", () => {
  it("reads what next() reads, to the last step, and changes nothing where it does not apply", () => {
    const docs: string[] = [
      '[{"role":"user","content":"hi there, a long enough text"},{"role":"a","content":1}]',
      '[{"content":"x","role":"user","x":{"role":"in","content":"y"}}]',
      '[{"role" :"user", "content":"x"},{ "role":"u","content" :"x"}]',
      '[{"r\\u006fle":"user","conten\\u0074":"x"},{"roles":"u","contents":"x"}]',
      '[{"role":"u","content":"x"}]',
      '[{"role":',
      '{"role"',
      ',"content":1',
      '[{},{"a":1} ,{"b":[{},{}]},[1],{"c":{}},{}]',
      '[1,{},"x",{ }, {} ]',
      '{"a":{"b":{"c":{"d":1}}},"e":[{},{"f":{}}]}',
      '[{},{',
      '{"a":1}}',
      '[[1,{}],[{}]]',
      // Values of 15 and 16 bytes, empty, spaced, escaped, non-ASCII, a control byte, in an array, and near the end.
      '{"a":"0123456789abcde","b":"0123456789abcdef","c":"","d": "x","e":"x\\n","f":"\u00e9","g":"\t","h":["x"],"i":"y"}',
      '{"a":"b"}',
      '{"a":"bc',
    ];
    const read = new Array<i32>(SHORTCUTS);
    for (let i = 0; i < docs.length; i++) {
      for (let steps = 0; steps < 20; steps++) {
        for (let kind = 0; kind < SHORTCUTS; kind++) {
          read[kind] += compareShortcut(docs[i], steps, kind);
          // At the depth limit an object that follows an element is an error, read as next() reads it.
          if (kind == TRY_ELEMENT_OBJECT) read[kind] += compareShortcut(docs[i], steps, kind, 2);
        }
      }
    }
    // Each shortcut did read tokens (the documents' first ones are far enough from the end).
    for (let kind = 0; kind < SHORTCUTS; kind++) expect(read[kind] > 0).toBe(true, kind.toString());
  });
});

// Reads doc with a and b to the end, a trying nextFirstMemberAndKey before each token: where it reads, it reads the three
// tokens next() reads (the value copied as nextShortPlainValue copies it), and where it does not, nothing changes.
// Returns how many times it read.
function compareFirstMemberAndKey(doc: string, steps: i32): i32 {
  const a = new JsonScanner(4);
  const b = new JsonScanner(4);
  setDoc(a, doc, steps);
  b.reset(changetype<usize>(held), <usize>held.byteLength, steps);
  const dst = changetype<usize>(shortValueCopy);
  let read = 0;
  for (let i = 0; i < 40; i++) {
    const pos = a.pos;
    const left = a.stepsLeft;
    const token = a.token;
    const k = a.nextFirstMemberAndKey(KEY_ROLE, 7, KEY_CONTENT_LO, KEY_CONTENT_HI, 11, dst);
    let t: i32;
    if (k >= 0) {
      read++;
      t = a.token;
      expect(b.next()).toBe(JsonToken.String, doc);
      expect(b.isKey).toBe(true, doc);
      expect(b.next()).toBe(JsonToken.String, doc);
      expect(k).toBe(<i32>(b.end - b.start), doc);
      expect(b.hasEscapes).toBe(false, doc);
      expect(memory.compare(dst, b.start, <usize>k)).toBe(0, doc);
    } else {
      expect(a.pos).toBe(pos, doc);
      expect(a.stepsLeft).toBe(left, doc);
      expect(a.token).toBe(token, doc);
      t = a.next();
    }
    const bt = b.next();
    if (t != bt || a.token != b.token || a.start != b.start || a.end != b.end || a.tokenStart != b.tokenStart ||
        a.pos != b.pos || a.isKey != b.isKey || a.hasEscapes != b.hasEscapes || a.depth != b.depth ||
        a.stepsLeft != b.stepsLeft) {
      expect(t).toBe(bt, doc);
      expect(a.token).toBe(b.token, doc);
      expect(a.start).toBe(b.start, doc);
      expect(a.end).toBe(b.end, doc);
      expect(a.tokenStart).toBe(b.tokenStart, doc);
      expect(a.pos).toBe(b.pos, doc);
      expect(a.isKey).toBe(b.isKey, doc);
      expect(a.hasEscapes).toBe(b.hasEscapes, doc);
      expect(a.depth).toBe(b.depth, doc);
      expect(a.stepsLeft).toBe(b.stepsLeft, doc);
    }
    if (t >= JsonToken.End) break;
  }
  return read;
}

describe("JsonScanner.nextFirstMemberAndKey", () => {
  it("reads the three tokens next() reads, to the last step, and changes nothing where it does not apply", () => {
    const docs: string[] = [
      '[{"role":"user","content":"hi there, a long enough text"},{"role":"assistant","content":1},{"role":"u","content":"x"}]',
      '[{"role":"0123456789abcde","content":"x"},{"role":"0123456789abcdef","content":"x"},{"role":"","content":"x"}]',
      '[{"role":"us\\u0065r","content":"x"},{"role":"caf\u00e9","content":"x"},{"role":"a\tb","content":"x"}]',
      '[{"role":"user" ,"content":"x"},{"role":"user","content" :"x"},{"role":"user", "content":"x"}]',
      '[{"role":"user","contents":"x"},{"role":"user","name":"n","content":"x"},{"role":1,"content":"x"}]',
      '[{"content":"x","role":"user"},{"roles":"user","content":"x"},{ "role":"user","content":"x"}]',
      '{"a":{"role":"user","content":"x"}}',
      '[{"role":"user","content":"x"}]',
      '[{"role":"user","content":',
      '[{"role":"user","conte',
      '[{"role":"user"',
    ];
    let read = 0;
    for (let i = 0; i < docs.length; i++) {
      for (let steps = 0; steps < 24; steps++) read += compareFirstMemberAndKey(docs[i], steps);
    }
    expect(read > 0).toBe(true);
  });
});

// Reads doc with a and b to the end, a trying nextObjEndThenElementObject before each token: where it reads, it reads
// the one or two tokens next() reads, and where it does not, nothing changes. Returns how many times it read two.
function compareObjEndThenElementObject(doc: string, steps: i32, maxDepth: i32): i32 {
  const a = new JsonScanner(maxDepth);
  const b = new JsonScanner(maxDepth);
  setDoc(a, doc, steps);
  b.reset(changetype<usize>(held), <usize>held.byteLength, steps);
  let both = 0;
  for (let i = 0; i < 60; i++) {
    const pos = a.pos;
    const left = a.stepsLeft;
    const token = a.token;
    const read = a.nextObjEndThenElementObject();
    let t: i32;
    if (read > 0) {
      t = a.token;
      expect(b.next()).toBe(JsonToken.ObjEnd, doc);
      if (read == 2) {
        both++;
        expect(b.next()).toBe(JsonToken.ObjStart, doc);
      } else {
        // Where only the '}' was read, the element object that may follow is not there to read at once.
        expect(b.nextIsElementObject()).toBe(false, doc);
        expect(a.nextIsElementObject()).toBe(false, doc);
        i++;
        if (b.next() != a.next()) expect(a.token).toBe(b.token, doc);
        t = a.token;
      }
    } else {
      expect(a.pos).toBe(pos, doc);
      expect(a.stepsLeft).toBe(left, doc);
      expect(a.token).toBe(token, doc);
      t = a.next();
      b.next();
    }
    if (a.token != b.token || a.start != b.start || a.end != b.end || a.tokenStart != b.tokenStart ||
        a.pos != b.pos || a.isKey != b.isKey || a.hasEscapes != b.hasEscapes || a.depth != b.depth ||
        a.stepsLeft != b.stepsLeft) {
      expect(a.token).toBe(b.token, doc);
      expect(a.start).toBe(b.start, doc);
      expect(a.end).toBe(b.end, doc);
      expect(a.tokenStart).toBe(b.tokenStart, doc);
      expect(a.pos).toBe(b.pos, doc);
      expect(a.isKey).toBe(b.isKey, doc);
      expect(a.hasEscapes).toBe(b.hasEscapes, doc);
      expect(a.depth).toBe(b.depth, doc);
      expect(a.stepsLeft).toBe(b.stepsLeft, doc);
    }
    if (t >= JsonToken.End) break;
  }
  return both;
}

describe("JsonScanner.nextObjEndThenElementObject", () => {
  it("reads the '}' and the next element's '{' next() reads, to the last step, and changes nothing where it does not apply", () => {
    const docs: string[] = [
      '[{"a":"x"},{"b":1},{"c":[{"d":2},{"e":"y\\n"}]},{"f":{"g":3},"h":4},{"i":null} ,{"j":1}, {"k":1},[1],{"l":1}]',
      '{"a":{"b":1},"c":{"d":2}}',
      '[{"a":1},{',
      '[{"a":1},',
      '[{"a":1}',
      '[{"a":1}]',
      '[[{"a":1},{"b":2}],{"c":{"d":[{"e":1},{"f":2}]}}]',
    ];
    let both = 0;
    for (let i = 0; i < docs.length; i++) {
      for (let steps = 0; steps < 30; steps++) {
        both += compareObjEndThenElementObject(docs[i], steps, 4);
        both += compareObjEndThenElementObject(docs[i], steps, 2);
      }
    }
    expect(both > 0).toBe(true);
  });
});

describe("parseNumberF64", () => {
  it("agrees with parseFloat on JSON numbers", () => {
    const numbers: string[] = [
      "0", "-0", "1", "-1", "12.5", "1e5", "1E-5", "-1.5e3", "0.1", "0.000123", "123456789012345678901234567890",
      "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308", "3.141592653589793", "9007199254740993",
      "1e400", "-1e-400", "0.30000000000000004",
    ];
    const sc = new JsonScanner(2);
    for (let i = 0; i < numbers.length; i++) {
      setDoc(sc, numbers[i]);
      expect(sc.next()).toBe(JsonToken.Number);
      const got = sc.numberValue();
      const want = parseFloat(numbers[i]);
      const tolerance = Math.abs(want) * 1e-15;
      if (!(Math.abs(got - want) <= tolerance) && !(got == want)) {
        expect(numbers[i]).toBe("");
        expect(got).toBe(want);
      }
    }
  });

  it("returns NaN for spans that are not one number", () => {
    const bad: string[] = ["", "-", "1.", ".5", "1e", "1x", "+1"];
    for (let i = 0; i < bad.length; i++) {
      const buf = String.UTF8.encode(bad[i]);
      const p = changetype<usize>(buf);
      expect(isNaN(parseNumberF64(p, p + <usize>buf.byteLength))).toBe(true);
    }
  });
});

describe("JsonScanner keys at the block and input edges", () => {
  it("reads keys of every short length, whole or cut anywhere, as the general path does", () => {
    const sc = new JsonScanner(4);
    for (let n = 0; n <= 20; n++) {
      const key = "k".repeat(n);
      for (let spaced = 0; spaced < 2; spaced++) {
        const doc = spaced ? "{ \"" + key + "\" :1 , \"" + key + "\"\t:2}" : "{\"" + key + "\":1,\"" + key + "\":2}";
        for (let cut = 0; cut <= doc.length; cut++) {
          const part = doc.slice(0, cut);
          const s = shape(part);
          if (cut == doc.length) {
            expect(s).toBe("{knkn}.");
          } else {
            expect(s.endsWith("!")).toBe(true);
          }
          setDoc(sc, part);
          sc.next();
          for (let i = 0; i < 2; i++) {
            const at = doc.indexOf("\"" + key + "\"", i == 0 ? 0 : doc.indexOf(","));
            const colon = doc.indexOf(":", at + n + 2);
            const t = sc.next();
            if (colon >= cut) {
              expect(t).toBe(JsonToken.Error);
              break;
            }
            expect(t).toBe(JsonToken.String);
            expect(sc.isKey).toBe(true);
            expect(<i32>(sc.tokenStart - changetype<usize>(held))).toBe(at);
            expect(spanText(sc)).toBe(key);
            expect(<i32>(sc.pos - changetype<usize>(held))).toBe(colon + 1);
            if (sc.next() != JsonToken.Number) break;
          }
        }
      }
    }
  });
});

describe("JSON short escapes escaped canonically", () => {
  it("keeps each short escape but \\/ as written, cut at any byte by the cap", () => {
    const doc = '"\\"a\\\\\\b\\f\\n\\r\\t\\/\\u0022"';
    const full = canonicalFirst(doc, 200);
    expect(full).toBe('\\"a\\\\\\b\\f\\n\\r\\t/\\"');
    for (let cap = 0; cap <= full.length + 1; cap++) expect(canonicalFirst(doc, cap)).toBe(full.substring(0, cap));
  });
});

describe("short escape letters", () => {
  it("each of the eight letters stands for its byte, every other byte value (ASCII or not) for none", () => {
    const letters = '"\\/bfnrt';
    const values = '"\\/\b\f\n\r\t';
    for (let e: u32 = 0; e < 256; e++) {
      const i = letters.indexOf(String.fromCharCode(<i32>e));
      expect(shortEscapeValue(e)).toBe(i >= 0 ? values.charCodeAt(i) : -1);
    }
  });

  it("the scanner reads a string with each ASCII letter escaped as valid exactly when it is a short escape or u", () => {
    for (let e = 0x20; e < 0x7f; e++) {
      if (e == 0x75) continue; // \u needs its digits
      const ok = '"\\/bfnrt'.indexOf(String.fromCharCode(e)) >= 0;
      expect(finalToken('["x\\' + String.fromCharCode(e) + 'y"]')).toBe(ok ? JsonToken.End : JsonToken.Error);
    }
  });
});

describe("decodeJsonString on short strings and string tails", () => {
  it("counts only the string's bytes, whatever plain bytes follow it, and stops at the cap, at every length", () => {
    const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const out = new ArrayBuffer(128);
    for (let n = 0; n <= 20; n++) {
      for (let k = -1; k < n - 1; k++) {
        for (let kind = 0; kind < 3; kind++) {
          // n bytes of letters, bytes k and k+1 replaced by the escape \n or by é; more letters follow in memory.
          const mid = kind == 0 ? "\\n" : "é";
          const content = k < 0 || kind == 2 ? letters.substring(0, n) : letters.substring(0, k) + mid + letters.substring(k + 2, n);
          const bytes = String.UTF8.encode(content + letters);
          // Or byte k + 1 made 0xc3, a UTF-8 lead byte whose sequence the string's end or a letter cuts: U+FFFD.
          if (kind == 2) {
            if (k < 0) continue;
            store<u8>(changetype<usize>(bytes) + <usize>(k + 1), 0xc3);
          }
          for (let flags = 0; flags < 2; flags++) {
            const escaped = flags == CANONICAL_ESCAPES ? "\\n" : "\n";
            const decoded = String.UTF8.encode(
              k < 0 || kind == 1 ? content
              : kind == 2 ? content.substring(0, k + 1) + "\uFFFD" + content.substring(k + 2)
              : content.substring(0, k) + escaped + content.substring(k + 2),
            );
            const total = decoded.byteLength;
            // Every cap up to the whole and one past it, then room to spare (the tail is copied as a block only then).
            for (let i = 0; i <= total + 2; i++) {
              const cap = i <= total + 1 ? i : 100;
              const r = decodeJsonString(changetype<usize>(bytes), changetype<usize>(bytes) + <usize>n, changetype<usize>(out), cap, flags);
              // An escape is ASCII and may be cut; é is not: a cap inside it stops before it.
              let len = min(cap, total);
              if (kind == 1 && k >= 0 && cap == k + 1) len = k;
              if (kind == 2 && cap > k + 1 && cap < k + 4) len = k + 1;
              // The message is built only for a failure: built for each of the ~30,000 cases, it was most of the spec's time.
              const same = memory.compare(changetype<usize>(out), changetype<usize>(decoded), <usize>len);
              if (decodedBytes(r) != len || stoppedAtCap(r) != (cap < total) || same != 0) {
                const what = content + " cap " + cap.toString() + " flags " + flags.toString();
                expect(decodedBytes(r)).toBe(len, what);
                expect(stoppedAtCap(r)).toBe(cap < total, what);
                expect(same).toBe(0, what);
              }
            }
          }
        }
      }
    }
  });
});
