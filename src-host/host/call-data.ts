// What proxy_get_buffer_bytes(CallData) reads in a context. envoy context.cc Context::getBuffer answers CallData with
// the context's own buffer_ as it is ("Set before the call."), and every other buffer it gives is buffer_.set(...) of
// that context: so CallData is whatever the context's last getBuffer pointed it at, empty before any. Envoy's own
// decodeData / encodeData call getBuffer(HttpRequestBody / HttpResponseBody) before each body callback too.
import { NO_BYTES } from "./no-bytes.ts";

/** Bytes Envoy's buffer_ viewed (a string: the configurations, an HTTP call's or Redis reply's body), or the stream's
 *  body buffer it points at (Buffer::set(Buffer::Instance*)), read as it is now. */
export type CallData = Uint8Array | "request-body" | "response-body";

/** The bodies a stream's CallData may point at (StreamState's). */
export interface StreamBodies {
  readonly requestBody: Uint8Array;
  readonly requestBodyPresent: boolean;
  readonly responseBody: Uint8Array;
  readonly responseBodyPresent: boolean;
}

export function callDataBytes(data: CallData, stream: StreamBodies | null): Uint8Array {
  if (data === "request-body") return stream !== null && stream.requestBodyPresent ? stream.requestBody : NO_BYTES;
  if (data === "response-body") return stream !== null && stream.responseBodyPresent ? stream.responseBody : NO_BYTES;
  return data;
}
