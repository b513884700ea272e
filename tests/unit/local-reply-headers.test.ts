// A local reply's response headers (src-host/host/local-reply-headers.ts) against Envoy's http/utility.cc
// Utility::prepareLocalReply and wasm context.cc Context::sendLocalResponse (addCopy per additional header).
import { test } from "node:test";
import assert from "node:assert/strict";
import { localReplyHeaders } from "../../src-host/host/local-reply-headers.ts";
import { conformanceHost } from "../support/conformance.ts";

test("a body sets content-length and, when the filter gave none, content-type text/plain", () => {
  assert.deepEqual(localReplyHeaders(429, [["x-local", "1"]], 9), [[":status", "429"], ["x-local", "1"], ["content-length", "9"], ["content-type", "text/plain"]]);
  assert.deepEqual(localReplyHeaders(400, [["content-type", "application/json"]], 2), [[":status", "400"], ["content-type", "application/json"], ["content-length", "2"]]);
});

test("a repeated inline header the filter adds is joined with ','; a repeated other header stays two entries", () => {
  const h = localReplyHeaders(503, [["Content-Type", "a"], ["x-k", "1"], ["content-type", "b"], ["x-k", "2"]], 4);
  assert.deepEqual(h, [[":status", "503"], ["content-type", "a,b"], ["x-k", "1"], ["x-k", "2"], ["content-length", "4"]]);
});

test("setContentLength replaces a content-length the filter added, in its place; no body removes content-length and content-type", () => {
  assert.deepEqual(localReplyHeaders(403, [["content-length", "99"], ["x-a", "1"]], 5), [[":status", "403"], ["content-length", "5"], ["x-a", "1"], ["content-type", "text/plain"]]);
  assert.deepEqual(localReplyHeaders(204, [["content-length", "99"], ["content-type", "text/html"], ["x-a", "1"]], 0), [[":status", "204"], ["x-a", "1"]]);
});

test("a plugin's local reply reaches the gateway with the headers Envoy would send", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders([[":method", "POST"], [":path", "/chat"], [":authority", "gateway"], ["content-type", "application/json"], ["x-scenario", "local-headers"]], false);
  assert.equal(s.localReply?.status, 429);
  // x-conformance is the plugin's own response callback's mark: the reply went through the encoder filters.
  assert.deepEqual(s.state.responseHeaders?.pairs, [[":status", "429"], ["x-local", "1"], ["content-length", "9"], ["content-type", "text/plain"], ["x-conformance", "seen"]]);
});
