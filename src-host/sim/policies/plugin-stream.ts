// A simulated request through a plugin host as the gateway feeds it: request headers, then the whole body; the host
// the router sends it to (`upstream.address`); the response headers at the first token; the stream's end (on_log) at
// completion. A failed upstream attempt ends as Envoy's router ends it (router.cc Filter::onUpstreamReset →
// onUpstreamAbort): before the response started, a 503 local reply run through the filter's encoder callbacks
// (filter_manager.cc DownstreamFilterManager::sendLocalReply), with the reset's response flag and details; after, with
// the late details, the same 503 straight to the codec while the filter still holds the response headers
// (sendDirectLocalReply), else a reset of the downstream stream (as src-host/gateway/proxied-request.ts does with a
// real upstream).
import type { FilterStream } from "../../host/filter-stream.ts";
import type { PluginHost } from "../../host/plugin-host.ts";
import { RESPONSE_FLAG_BITS } from "../../host/response-flags.ts";
import { requestHeaders, sendRequest } from "../../harness/plugin-request.ts";
import { localReplyHeaders } from "../../host/local-reply-headers.ts";
import { ECONNREFUSED, connectFailure, connectionTermination } from "../../gateway/upstream-reset.ts";
import type { RequestEnd } from "./policy.ts";

const enc = new TextEncoder();
const RESPONSE_HEADERS: Array<[string, string]> = [[":status", "200"], ["content-type", "text/event-stream"]];
// A streamed answer reaches the gateway as the first token's chunk, then (much later) the end of the stream.
const FIRST_CHUNK = enc.encode('data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n');
const LAST_CHUNK = enc.encode("data: [DONE]\n\n");

/** Sends the request's headers and body; the stream holds the plugin's decision (or its local reply). */
export function sendThroughPlugin(host: PluginHost, clusterName: string | undefined, body: Uint8Array): FilterStream {
  return sendRequest(host, requestHeaders(body.length, [[":authority", "sim-gateway"]]), body, { clusterName });
}

/** The router chose this host for the stream's attempt (router.cc Filter::onUpstreamHostSelected). */
export function routedTo(stream: FilterStream, address: string): void {
  stream.state.upstreamAddress = address;
}

export function firstToken(stream: FilterStream): void {
  stream.encodeHeaders(RESPONSE_HEADERS, false);
  stream.encodeData(FIRST_CHUNK, false);
}

export function ended(stream: FilterStream, end: RequestEnd): void {
  switch (end) {
    case "completed":
      stream.encodeData(LAST_CHUNK, true);
      stream.finish();
      return;
    case "rejected":
      // The engine refused the request (vLLM's 400 is not simulated): the stream ends without a response.
      stream.reset();
      return;
  }
  // The router passed the response headers on (router.cc Filter::onUpstreamHeaders: downstream_response_started_).
  const started = stream.state.responseHeaders !== null;
  const reset = end === "connect-failure" ? connectFailure(ECONNREFUSED) : connectionTermination(started);
  stream.state.responseFlags |= RESPONSE_FLAG_BITS[reset.flags];
  stream.state.responseCodeDetails = reset.details;
  // filter_manager.cc DownstreamFilterManager::sendLocalReply: once response headers went downstream, a reset.
  if (started && stream.responseHeadersReleased) {
    stream.reset();
    return;
  }
  const body = enc.encode(reset.body);
  const headers = localReplyHeaders(503, [], body.length);
  if (started) {
    // The filter still holds them: the 503 goes straight to the codec (sendDirectLocalReply).
    stream.replaceWithDirectLocalReply(headers);
  } else {
    stream.encodeHeaders(headers, false);
    stream.encodeData(body, true);
  }
  stream.finish();
}
