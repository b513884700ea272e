// What the stream reads and writes on the response headers: the status (fed into the endpoint's failure EWMA
// when the stream ends) and, when configured, the debug header.
import { getHeaderValueRaw, replaceHeaderValue, Returned, Utf8 } from "../abi/host";
import { MapType, Status } from "../abi/types";
import { FALLBACK_NAMES } from "../core/fallback";

const STATUS = new Utf8(":status");
const DEBUG_HEADER = new Utf8("x-endpoint-picker-debug");
/** responseStatus() when the response has no `:status`. */
export const NO_STATUS: i32 = i32.MIN_VALUE;

/** The response's `:status` as a number (its first three characters), or NO_STATUS. */
export function responseStatus(scratch: Returned): i32 {
  if (getHeaderValueRaw(MapType.HttpResponseHeaders, STATUS, scratch) != Status.Ok) return NO_STATUS;
  let code = 0;
  for (let i: usize = 0; i < scratch.len && i < 3; i++) code = code * 10 + (<i32>load<u8>(scratch.ptr + i) - 48);
  scratch.release();
  return code;
}

export function setDebugHeader(text: string): void {
  const b = String.UTF8.encode(text);
  replaceHeaderValue(MapType.HttpResponseHeaders, DEBUG_HEADER, changetype<usize>(b), b.byteLength);
}

/** A fail-open's debug header: which one it was. */
export function setFallbackDebugHeader(reason: i32): void {
  setDebugHeader("fallback=" + FALLBACK_NAMES[reason]);
}
