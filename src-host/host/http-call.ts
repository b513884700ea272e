// What the plugin sees when its proxy_http_call ends, as Envoy's async client and Wasm context deliver it.
//
// - A response, whatever its status: Context::onHttpCallSuccess (envoy source/extensions/common/wasm/
//   context.cc) calls proxy_on_http_call_response with the header count and body size; the headers (with
//   `:status`) and body are readable during that callback; status_code_ is not touched (stays 0).
// - The upstream failed before answering (connect failure, reset before headers) or the call's timeout
//   fired: the router inside the async client answers with a local reply (source/common/router/router.cc
//   Filter::onUpstreamReset -> 503, Filter::onResponseTimeout -> 504 "upstream request timeout"), which
//   AsyncStreamImpl::sendLocalReply (source/common/http/async_client_impl.h) encodes as a response: the
//   plugin gets it through onHttpCallSuccess like any other.
// - A reset after the response started, or a body over the buffer limit: AsyncClient onFailure ->
//   Context::onHttpCallFailure: status_code_ = BrokenConnection, status_message_ = "reset" (cleared after
//   the callback, the code is not), proxy_on_http_call_response(token, 0, 0, 0), and no response map or
//   body (getConstMap / getBuffer return nullptr).
import type { HttpCallOutcome, HttpCallResponse } from "./cluster.ts";
import { localReplyHeaders } from "./local-reply-headers.ts";

const enc = new TextEncoder();

/** The router's local reply, as Envoy's Utility::sendLocalReply writes it (status, text body). */
function localReply(status: number, text: string): HttpCallResponse {
  const body = enc.encode(text);
  return { headers: localReplyHeaders(status, [], body.length), body, trailers: [] };
}

/** router.cc Filter::onUpstreamReset with no response yet: 503 and the reset reason. */
export const CONNECT_FAILURE_REPLY = () =>
  localReply(503, "upstream connect error or disconnect/reset before headers. reset reason: connection failure");

/** router.cc Filter::onResponseTimeout: 504 "upstream request timeout". */
export const TIMEOUT_REPLY = () => localReply(504, "upstream request timeout");

/** What the Wasm context delivers for an outcome: a response, or null for onHttpCallFailure. */
export function deliveredResponse(outcome: HttpCallOutcome | "timeout"): HttpCallResponse | null {
  if (outcome === "reset") return null;
  if (outcome === "timeout") return TIMEOUT_REPLY();
  if (outcome === null) return CONNECT_FAILURE_REPLY();
  return outcome;
}
