// Re-emits one JSON value as minified JSON: no whitespace, members in their given order, strings escaped in
// one canonical spelling (\u00e9 and é, \/ and / alike), numbers as written, members named cache_control left
// out. Deterministic for a given input value, and the same for every spelling of its strings.
import { JsonScanner, JsonToken } from "../json/scanner";
import { CANONICAL_ESCAPES } from "../json/string-decoder";
import { FIRST_BLOCK, copyFirstPlainBlock } from "../json/string-runs";
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
  // The string value t went in as it was read (nextValueWritten).
  let written = false;
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
    } else if (t == JsonToken.String && written) {
      // A member's string value: all but its closing '"' went in as it was read.
      w.byte(0x22);
      needComma = true;
    } else {
      if (needComma) w.byte(0x2c);
      if (t == JsonToken.ObjStart || t == JsonToken.ArrStart) {
        w.byte(t == JsonToken.ObjStart ? 0x7b : 0x5b);
        needComma = false;
      } else if (t == JsonToken.String) {
        if (sc.isKey) {
          writeKey(sc, w);
        } else {
          w.byte(0x22);
          w.canonicalJsonText(sc.start, sc.end);
          w.byte(0x22);
        }
        needComma = !sc.isKey;
      } else {
        w.ascii(sc.start, <i32>(sc.end - sc.start));
        needComma = true;
      }
    }
    if (w.full) return t;
    if (sc.depth == outer && t != JsonToken.ObjStart && t != JsonToken.ArrStart && !sc.isKey) return t;
    // A member's value, when a string, is written as it is read (most strings here are, and most members' values).
    if (sc.isKey) {
      t = nextValueWritten(sc, w);
      written = t == JsonToken.String;
    } else {
      t = sc.next();
      written = false;
    }
  }
  return JsonToken.Error; // unreachable: every iteration reads a token or returns
}

/**
 * Reads the value of the member whose key sc is on (written, with its ':'; w not full); a string is written into w as
 * writeMinifiedJson writes one with canonicalJsonText, '"' and its content escaped canonically, in the scan's one pass
 * over its bytes, all but its closing '"'. Anything else is read only, as is a string when w is at its cap (where its
 * '"' fills w and nothing more goes in). Returns the token.
 */
// @ts-ignore: decorator
@inline export function nextValueWritten(sc: JsonScanner, w: StreamWriter): i32 {
  const len = w.len;
  const room = w.cap - len - 1;
  if (room < 0) return sc.next();
  const at = w.ptr + <usize>len;
  const t = sc.nextDecoded(at + 1, room, CANONICAL_ESCAPES);
  if (t == JsonToken.String) {
    store<u8>(at, 0x22);
    w.len = len + 1 + sc.decodedLen;
    w.full = sc.decodeFilled;
  }
  return t;
}

/** Writes the key sc is on as minified JSON writes it: '"', its canonical spelling, '":'. */
// @ts-ignore: decorator
@inline export function writeKey(sc: JsonScanner, w: StreamWriter): void {
  if (plainKeyWritten(sc, w)) return;
  w.byte(0x22);
  w.canonicalJsonText(sc.start, sc.end);
  w.byte(0x22);
  w.byte(0x3a);
}

/**
 * writeKey's common case, the same bytes by one block copy: a key of FIRST_BLOCK bytes at most, plain ASCII without
 * escapes (its own canonical spelling), when the block it is copied with fits in w. False, with nothing written,
 * otherwise.
 */
// @ts-ignore: decorator
@inline function plainKeyWritten(sc: JsonScanner, w: StreamWriter): bool {
  const src = sc.start;
  const n = sc.end - src;
  const len = w.len;
  const at = w.ptr + <usize>len;
  const end = w.ptr + <usize>w.cap;
  const block = <usize>FIRST_BLOCK;
  if (w.full || sc.hasEscapes || n > block || at + 1 + block > end || at + n + 3 > end) return false;
  // The block is read within linear memory, past the document's end at most (-1 when it would pass memory's end).
  if (copyFirstPlainBlock(src, <usize>memory.size() << 16, at + 1, end) < <i32>n) return false;
  store<u8>(at, 0x22);
  store<u16>(at + 1 + n, 0x3a22);
  w.len = len + <i32>n + 3;
  return true;
}
