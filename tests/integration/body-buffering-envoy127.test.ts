// The host's envoy127BodyOrder: the body order of higress-group/envoy branch envoy-1.27 (Higress before 2.2), where
// context.cc Context::decodeData / encodeData call the VM before the chunk joins the filter manager's buffer
// (Context::getBuffer → modifyDecodingBuffer while buffering; filter_manager.cc commonHandleAfterDataCallback →
// commonHandleBufferData after the call). Upstream Envoy adds the chunk first (envoy#36411, #37079).
import { test } from "node:test";
import assert from "node:assert/strict";
import { bodyRequest as request, bodyResultsHost } from "../support/body-results-host.ts";
import type { PluginHostOptions } from "../../src-host/host/plugin-host.ts";
import { BufferType, StreamType } from "../../src-host/host/abi.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The body-results host in envoy-1.27's body order. */
function bodyHost(options: Partial<PluginHostOptions> = {}) {
  return bodyResultsHost({ envoy127BodyOrder: true, ...options });
}

test("envoy-1.27: while buffering, a body callback reads the buffer and its size without its own chunk; the chunk is in the buffer once the callback returned StopIterationAndBuffer, read from the root context, and Continue lets it go", async () => {
  const { host, values, readOutside } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "111"]]), false);
  s.decodeData(enc.encode("ab"), false);
  s.decodeData(enc.encode("cd"), false);
  s.decodeData(enc.encode("ef"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "2:ab", "4:abcd"], "the first chunk is the module's (request_body_buffer_), then the buffer without the chunk");
  readOutside(s, BufferType.HttpRequestBody);
  assert.deepEqual(values("read_outside"), ["abcdef"]);
  assert.equal(s.takeReleasedBody().length, 0);
});

test("envoy-1.27: Continue after buffering lets the buffer and the late chunk go; StopIterationNoBuffer drops the late chunk (not moved into the buffer)", async () => {
  const { host, values } = await bodyHost();
  const a = host.newStream();
  a.decodeHeaders(request([["x-body-results", "10"]]), false);
  a.decodeData(enc.encode("ab"), false);
  a.decodeData(enc.encode("cd"), true);
  assert.equal(dec.decode(a.takeReleasedBody()), "abcd");
  const b = host.newStream();
  b.decodeHeaders(request([["x-body-results", "130"]]), false);
  for (const chunk of ["ab", "cd", "ef"]) b.decodeData(enc.encode(chunk), chunk === "ef");
  assert.deepEqual(values("req_body"), ["2:ab", "2:ab", "2:ab", "2:ab", "2:ef"]);
  assert.equal(dec.decode(b.takeReleasedBody()), "abef");
});

test("envoy-1.27: the 413 comes when the chunk joins the buffer after the callback (commonHandleBufferData → requestDataTooLarge), so the module ran on the body without it", async () => {
  const { host, values } = await bodyHost({ bufferLimitBytes: 4 });
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "11"]]), false);
  s.decodeData(enc.encode("abc"), false);
  s.decodeData(enc.encode("de"), false);
  assert.deepEqual(values("req_body"), ["3:abc", "3:abc"]);
  assert.equal(s.localReply?.status, 413);
  // Continue moves the chunk into the buffer, not streaming since StopIterationAndBuffer, before it goes on.
  const c = host.newStream();
  c.decodeHeaders(request([["x-body-results", "10"]]), false);
  c.decodeData(enc.encode("abc"), false);
  c.decodeData(enc.encode("de"), true);
  assert.equal(c.localReply?.status, 413);
  assert.equal(c.takeReleasedBody().length, 0);
});

test("upstream order (the default): while buffering the module reads its chunk in the buffer", async () => {
  const { host, values } = await bodyHost({ envoy127BodyOrder: false });
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "11"]]), false);
  s.decodeData(enc.encode("ab"), false);
  s.decodeData(enc.encode("cd"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "4:abcd"]);
});

test("envoy-1.27: after StopIterationAndBuffer and continue_stream from outside a callback buffering stays set, so the next body callback reads the drained buffer without its chunk (size 0), and a Continue lets the chunk go on (context.cc Context::continueStream keeps buffering_request_body_; Context::getBuffer → modifyDecodingBuffer)", async () => {
  const { host, values, continueStream } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "10"]]), false);
  s.decodeData(enc.encode("ab"), false);
  continueStream(s, StreamType.HttpRequest);
  assert.equal(dec.decode(s.takeReleasedBody()), "ab");
  s.decodeData(enc.encode("cd"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "0:"]);
  assert.equal(dec.decode(s.takeReleasedBody()), "cd");
});
