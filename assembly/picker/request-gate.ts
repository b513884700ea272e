// Whether a request's body is worth reading: a JSON POST with a positive Content-Length within the limit,
// no Content-Encoding (other than identity) and no upgrade. Anything else is a counted fail-open.
import { getHeaderValueRaw, returned, Utf8 } from "../abi/host";
import { MapType, Status } from "../abi/types";
import { equalsIgnoreCase, hasToken, isJsonMediaType, parseContentLength } from "../text/ascii";
import { Fallback } from "../core/fallback";

const METHOD = new Utf8(":method");
const CONTENT_TYPE = new Utf8("content-type");
const CONTENT_LENGTH = new Utf8("content-length");
const CONTENT_ENCODING = new Utf8("content-encoding");
const UPGRADE = new Utf8("upgrade");
const CONNECTION = new Utf8("connection");

/** Reads one request header into `returned`; false when absent or unreadable. */
function header(key: Utf8): bool {
  return getHeaderValueRaw(MapType.HttpRequestHeaders, key) == Status.Ok;
}

/** The fallback reason for the current request's headers, or Fallback.None when the body should be read.
 *  On None, `gatedContentLength` holds the announced body size. */
export let gatedContentLength: i64 = 0;

export function gateRequest(maxBodyBytes: i64): i32 {
  if (!header(METHOD)) return Fallback.Method;
  let ok = equalsIgnoreCase(returned.ptr, returned.len, "post");
  returned.release();
  if (!ok) return Fallback.Method;

  if (header(UPGRADE)) {
    returned.release();
    return Fallback.Upgrade;
  }
  if (header(CONNECTION)) {
    ok = !hasToken(returned.ptr, returned.len, "upgrade");
    returned.release();
    if (!ok) return Fallback.Upgrade;
  }

  if (!header(CONTENT_TYPE)) return Fallback.ContentType;
  ok = isJsonMediaType(returned.ptr, returned.len);
  returned.release();
  if (!ok) return Fallback.ContentType;

  if (header(CONTENT_ENCODING)) {
    ok = returned.len == 0 || equalsIgnoreCase(returned.ptr, returned.len, "identity");
    returned.release();
    if (!ok) return Fallback.ContentEncoding;
  }

  if (!header(CONTENT_LENGTH)) return Fallback.ContentLength;
  const length = parseContentLength(returned.ptr, returned.len);
  returned.release();
  if (length <= 0) return Fallback.ContentLength;
  if (length > maxBodyBytes) return Fallback.BodyTooLarge;
  gatedContentLength = length;
  return Fallback.None;
}
