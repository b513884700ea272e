// A simulated request through a plugin host as the gateway feeds it: request headers, then the whole body;
// the response headers at the first token; the stream's end (on_log) at completion or a reset on failure.
import type { FilterStream } from "../../host/filter-stream.ts";
import type { PluginHost } from "../../host/plugin-host.ts";
import { requestHeaders, sendRequest } from "../../harness/plugin-request.ts";

const RESPONSE_HEADERS: Array<[string, string]> = [[":status", "200"], ["content-type", "text/event-stream"]];
// A streamed answer reaches the gateway as the first token's chunk, then (much later) the end of the stream.
const FIRST_CHUNK = new TextEncoder().encode('data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n');
const LAST_CHUNK = new TextEncoder().encode("data: [DONE]\n\n");

/** Sends the request's headers and body; the stream holds the plugin's decision (or its local reply). */
export function sendThroughPlugin(host: PluginHost, clusterName: string | undefined, body: Uint8Array): FilterStream {
  return sendRequest(host, requestHeaders(body.length, [[":authority", "sim-gateway"]]), body, { clusterName });
}

export function firstToken(stream: FilterStream): void {
  stream.encodeHeaders(RESPONSE_HEADERS, false);
  stream.encodeData(FIRST_CHUNK, false);
}

export function finished(stream: FilterStream, ok: boolean): void {
  if (ok) {
    stream.encodeData(LAST_CHUNK, true);
    stream.finish();
  } else {
    stream.reset();
  }
}
