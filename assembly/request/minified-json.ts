// Re-emits one JSON value as minified JSON: no whitespace, members in their given order, strings with
// their original escapes, numbers as written. Deterministic for a given input value.
import { JsonScanner, JsonToken } from "../json/scanner";
import { StreamWriter } from "./stream-writer";

/**
 * Writes the value whose first token the scanner just returned; reads up to its last token. Returns that
 * last token, Error or Budget. Stops early (returning the current token) once the writer is full.
 */
export function writeMinifiedJson(sc: JsonScanner, w: StreamWriter): i32 {
  let t = sc.token;
  const outer = t == JsonToken.ObjStart || t == JsonToken.ArrStart ? sc.depth - 1 : sc.depth;
  let needComma = false;
  while (true) {
    if (t >= JsonToken.End) return t;
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
        w.escapedText(sc.start, sc.end);
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
  return JsonToken.Error; // unreachable: every iteration reads a token or returns
}
