// Whether a request's body is worth reading: a JSON POST with a positive Content-Length within the limit (or
// none at all: a chunked upload), no Content-Encoding (other than identity) and no upgrade. Anything else is
// a counted fail-open. The same read says whether the client sent the override header, which the stream removes.
import { getHeaderMapPairs, Returned } from "../abi/host";
import { HeaderMapReader } from "../abi/header-map";
import { MapType, Status } from "../abi/types";
import { hasToken, isJsonMediaType, parseContentLength } from "../text/ascii";
import { equalsLowerAscii, equalsLowerWord32, equalsLowerWord64 } from "../text/ascii-fold";
import { Fallback } from "../core/fallback";
import { OVERRIDE_HEADER } from "../core/override-header";
import { isJudgedLength, judgedLengthBit, longJudgedLength } from "./judged-lengths";

// The seven headers the gate looks at, read from one proxy_get_header_map_pairs call instead of one host call
// each (the host calls were most of a decision's fixed cost). Like proxy_get_header_map_value (Envoy
// HeaderMap::get via proxy-wasm-cpp-host getHeaderMapValue), the first field of a name counts.
const METHOD: i32 = 0;
const UPGRADE: i32 = 1;
const CONNECTION: i32 = 2;
const CONTENT_TYPE: i32 = 3;
const CONTENT_ENCODING: i32 = 4;
const CONTENT_LENGTH: i32 = 5;
const OVERRIDE: i32 = 6;
const FIELD_COUNT: i32 = 7;

// The names' bytes (lower case).
const METHOD_NAME = String.UTF8.encode(":method");
const UPGRADE_NAME = String.UTF8.encode("upgrade");
const CONNECTION_NAME = String.UTF8.encode("connection");
const CONTENT_TYPE_NAME = String.UTF8.encode("content-type");
const CONTENT_ENCODING_NAME = String.UTF8.encode("content-encoding");
const CONTENT_LENGTH_NAME = String.UTF8.encode("content-length");
const POST = String.UTF8.encode("post");
const IDENTITY = String.UTF8.encode("identity");

// A name of 7 bytes is its two overlapping 4-byte words, one of 8 to 16 bytes its first and last 8-byte words: most
// names of a request are none of the judged ones, and their first word tells them apart without a call.
const METHOD_HEAD = load<u32>(changetype<usize>(METHOD_NAME));
const METHOD_TAIL = load<u32>(changetype<usize>(METHOD_NAME), 3);
const UPGRADE_HEAD = load<u32>(changetype<usize>(UPGRADE_NAME));
const UPGRADE_TAIL = load<u32>(changetype<usize>(UPGRADE_NAME), 3);
const CONNECTION_HEAD = load<u64>(changetype<usize>(CONNECTION_NAME));
const CONNECTION_TAIL = load<u64>(changetype<usize>(CONNECTION_NAME), 10 - 8);
/** "content-", the first word of the three content-* names. */
const CONTENT_HEAD = load<u64>(changetype<usize>(CONTENT_TYPE_NAME));
const CONTENT_TYPE_TAIL = load<u64>(changetype<usize>(CONTENT_TYPE_NAME), 12 - 8);
const CONTENT_LENGTH_TAIL = load<u64>(changetype<usize>(CONTENT_LENGTH_NAME), 14 - 8);
const CONTENT_ENCODING_TAIL = load<u64>(changetype<usize>(CONTENT_ENCODING_NAME), 16 - 8);

/** Bit n: some judged name is n bytes long; the override header's length, if 64 or more, is LONG_JUDGED_LENGTH. */
const JUDGED_LENGTHS: u64 = judgedLengthBit(7) | judgedLengthBit(10) | judgedLengthBit(12) | judgedLengthBit(14) |
  judgedLengthBit(16) | judgedLengthBit(OVERRIDE_HEADER.len);
const LONG_JUDGED_LENGTH: usize = longJudgedLength(OVERRIDE_HEADER.len);

/** Whether the name of 8 to 16 bytes at keyPtr is, ASCII case ignored, the one whose first and last words these are. */
// @ts-ignore: decorator
@inline function isName(keyPtr: usize, keyLen: usize, head: u64, tail: u64): bool {
  return equalsLowerWord64(load<u64>(keyPtr), head) && equalsLowerWord64(load<u64>(keyPtr + keyLen - 8), tail);
}

/** The field a header name is (ASCII case ignored), or -1: only the names of the key's length are compared. */
function fieldOf(keyPtr: usize, keyLen: usize): i32 {
  switch (<i32>keyLen) {
    case 7: {
      const head = load<u32>(keyPtr);
      const tail = load<u32>(keyPtr, 3);
      if (equalsLowerWord32(head, METHOD_HEAD) && equalsLowerWord32(tail, METHOD_TAIL)) return METHOD;
      return equalsLowerWord32(head, UPGRADE_HEAD) && equalsLowerWord32(tail, UPGRADE_TAIL) ? UPGRADE : -1;
    }
    case 10: return isName(keyPtr, keyLen, CONNECTION_HEAD, CONNECTION_TAIL) ? CONNECTION : -1;
    case 12: return isName(keyPtr, keyLen, CONTENT_HEAD, CONTENT_TYPE_TAIL) ? CONTENT_TYPE : -1;
    case 14: return isName(keyPtr, keyLen, CONTENT_HEAD, CONTENT_LENGTH_TAIL) ? CONTENT_LENGTH : -1;
    case 16: return isName(keyPtr, keyLen, CONTENT_HEAD, CONTENT_ENCODING_TAIL) ? CONTENT_ENCODING : -1;
  }
  // Last: the override header's name (30 bytes) has none of the lengths above, and the common names need not load it.
  return keyLen == OVERRIDE_HEADER.len && equalsLowerAscii(keyPtr, keyLen, OVERRIDE_HEADER.buf) ? OVERRIDE : -1;
}

/** `RequestGate.contentLength` when the request announced no length. */
export const UNSIZED_BODY: i64 = -1;

/** Judges one request's headers at a time; its owner keeps it for all its streams (preallocated, reused). */
export class RequestGate {
  private readonly headers: Returned = new Returned();
  private readonly reader: HeaderMapReader = new HeaderMapReader();
  /** Per field: value pointer and length, or pointer 0 when absent. */
  private readonly fieldPtr: StaticArray<usize> = new StaticArray<usize>(FIELD_COUNT);
  private readonly fieldLen: StaticArray<usize> = new StaticArray<usize>(FIELD_COUNT);
  /** After read(): the announced body size, or UNSIZED_BODY. */
  contentLength: i64 = 0;
  /** After read(): the client sent the override header, or the headers could not be read whole (assume it did). */
  clientOverride: bool = false;
  /** After read(): the fallback the headers alone call for (Fallback.None when the body may be read). */
  private headersReason: i32 = Fallback.None;

  /** Reads the current request's headers (one host call); check() then judges them. */
  read(): void {
    const fieldPtr = this.fieldPtr;
    const fieldLen = this.fieldLen;
    memory.fill(changetype<usize>(fieldPtr), 0, <usize>FIELD_COUNT * sizeof<usize>());
    const reader = this.reader;
    const s = getHeaderMapPairs(MapType.HttpRequestHeaders, reader, this.headers);
    let whole = false;
    if (s == Status.Ok) {
      // The pairs are walked in locals, as reader.next() walks them: its stores to the reader's fields, which the
      // stores below could alias, were reloaded for every pair.
      let sizes = reader.sizes;
      let cursor = reader.cursor;
      const sizesEnd = reader.sizesEnd;
      const end = reader.end;
      while (sizes < sizesEnd) {
        const keyLen = <usize>load<u32>(sizes);
        const valueLen = <usize>load<u32>(sizes, 4);
        const key = cursor;
        if (!HeaderMapReader.pairFits(key, keyLen, valueLen, end)) break;
        const value = key + keyLen + 1;
        cursor = value + valueLen + 1;
        sizes += 8;
        // Most names are of no judged length: no call for them.
        if (!isJudgedLength(keyLen, JUDGED_LENGTHS, LONG_JUDGED_LENGTH)) continue;
        const f = fieldOf(key, keyLen);
        if (f >= 0 && !this.present(f)) {
          // A pair's value is followed by a NUL in the map, so its pointer is never 0.
          unchecked((fieldPtr[f] = value));
          unchecked((fieldLen[f] = valueLen));
        }
      }
      reader.stoppedAt(sizes, cursor);
      whole = reader.atEnd();
    }
    // A map that could not be read to its end, or that lacks :method (every request has one: an empty read), may
    // hide the header: then it is removed anyway.
    this.clientOverride = !whole || !this.present(METHOD) || this.present(OVERRIDE);
    this.headersReason = this.judge();
    this.headers.release();
  }

  /** The fallback reason for the headers read last, or Fallback.None when the body should be read. */
  check(maxBodyBytes: i64): i32 {
    if (this.headersReason != Fallback.None) return this.headersReason;
    return this.contentLength > maxBodyBytes ? Fallback.BodyTooLarge : Fallback.None;
  }

  @inline private present(field: i32): bool {
    return unchecked(this.fieldPtr[field]) != 0;
  }

  private judge(): i32 {
    const fieldPtr = this.fieldPtr;
    const fieldLen = this.fieldLen;
    if (!this.present(METHOD) || !equalsLowerAscii(unchecked(fieldPtr[METHOD]), unchecked(fieldLen[METHOD]), POST)) return Fallback.Method;
    if (this.present(UPGRADE)) return Fallback.Upgrade;
    if (this.present(CONNECTION) && hasToken(unchecked(fieldPtr[CONNECTION]), unchecked(fieldLen[CONNECTION]), "upgrade")) return Fallback.Upgrade;
    if (!this.present(CONTENT_TYPE) || !isJsonMediaType(unchecked(fieldPtr[CONTENT_TYPE]), unchecked(fieldLen[CONTENT_TYPE]))) return Fallback.ContentType;
    if (this.present(CONTENT_ENCODING)) {
      const len = unchecked(fieldLen[CONTENT_ENCODING]);
      if (len != 0 && !equalsLowerAscii(unchecked(fieldPtr[CONTENT_ENCODING]), len, IDENTITY)) return Fallback.ContentEncoding;
    }
    if (!this.present(CONTENT_LENGTH)) {
      // A chunked HTTP/1.1 upload, or an HTTP/2 client that sends no length: Envoy still delivers the body
      // with end_of_stream, so it is read like any other, bounded by the body limit as it arrives.
      this.contentLength = UNSIZED_BODY;
      return Fallback.None;
    }
    const length = parseContentLength(unchecked(fieldPtr[CONTENT_LENGTH]), unchecked(fieldLen[CONTENT_LENGTH]));
    if (length <= 0) return Fallback.ContentLength;
    this.contentLength = length;
    return Fallback.None;
  }
}
