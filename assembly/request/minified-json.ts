// Re-emits one JSON value as minified JSON: no whitespace, members in their given order, strings escaped in
// one canonical spelling (\u00e9 and é, \/ and / alike), numbers as written, members named cache_control left
// out. Deterministic for a given input value, and the same for every spelling of its strings.
import { JsonScanner, JsonToken } from "../json/scanner";
import { jsonStringEquals } from "../json/string-compare";
import { StreamWriter } from "./stream-writer";

// Anthropic prompt-caching breakpoints (also accepted on OpenAI-style tools and parts by LiteLLM and
// OpenRouter): clients move them to the newest message every turn, so a block that carried one in the
// previous request carries none in this one. They say where to cache, not what the prompt is.
const CACHE_CONTROL_BYTES: usize = 13;

/** The key the scanner is on is "cache_control" (escapes allowed). */
export function isCacheControlKey(sc: JsonScanner): bool {
  return (sc.hasEscapes || sc.end - sc.start == CACHE_CONTROL_BYTES) && jsonStringEquals(sc.start, sc.end, "cache_control");
}

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
    if (t == JsonToken.String && sc.isKey && isCacheControlKey(sc)) {
      // Left out with its value; the comma state stays that of the member before it.
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
  return JsonToken.Error; // unreachable: every iteration reads a token or returns
}
