// The simulator ends a broken upstream attempt as Envoy's router does (router.cc Filter::onUpstreamReset →
// onUpstreamAbort → sendLocalReply): once the router passed the response headers on, the details are the late ones,
// and filter_manager.cc DownstreamFilterManager::sendLocalReply then sends the 503 straight to the codec
// (sendDirectLocalReply) while a filter still holds those headers, past its encoder callbacks, the reply's headers
// replacing the response's for the access log; only once headers went downstream is the stream reset.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bodyResultsHost } from "../support/body-results-host.ts";
import { RESPONSE_FLAG_BITS } from "../../src-host/host/response-flags.ts";
import { ended, sendThroughPlugin } from "../../src-host/sim/policies/plugin-stream.ts";

const enc = new TextEncoder();

for (const [held, outcome] of [[true, "the router's 503 straight to the codec"], [false, "a reset"]] as const) {
  test(`an upstream reset after response headers the filter ${held ? "still holds" : "let go"}: ${outcome}`, async () => {
    const { host } = await bodyResultsHost();
    const s = sendThroughPlugin(host, undefined, enc.encode("{}"));
    // x-headers-result 1: the filter's response headers callback returns StopIteration.
    s.encodeHeaders([[":status", "200"], ["content-type", "text/event-stream"], ...(held ? [["x-headers-result", "1"] as [string, string]] : [])], false);
    assert.equal(s.responseHeadersReleased, !held);
    const callsBefore = s.calls.length;
    ended(s, "connection-termination");
    assert.equal(s.state.responseCodeDetails, "upstream_reset_after_response_started{connection_termination}");
    assert.equal(s.state.responseFlags & RESPONSE_FLAG_BITS.UC, RESPONSE_FLAG_BITS.UC);
    assert.deepEqual(s.calls.slice(callsBefore), ["proxy_on_log", "proxy_on_done", "proxy_on_delete"], "no encoder callback ran for the reply");
    assert.equal(s.requestState, held ? "forwarded" : "reset");
    assert.equal(s.state.responseHeaders?.get(":status"), held ? "503" : "200");
    if (held) assert.equal(s.state.responseHeaders?.get("content-type"), "text/plain");
  });
}
