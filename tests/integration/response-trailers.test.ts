// Upstream response trailers through the Wasm filter as Envoy passes them: the router's onUpstreamTrailers →
// FilterManager::encodeTrailers → context.cc Context::encodeTrailers → proxy_on_response_trailers, the body's last
// callback having come with end_of_stream false; the module reads and changes the trailer map while it holds it; a
// Continue at the trailers lets a held body go (filter_manager.cc commonHandleAfterTrailersCallback → commonContinue),
// a StopIteration holds them until continue_stream, and a filter stopped for all frames gets them after its body
// (FilterManager::encodeTrailers returns at a filter that stoppedAll(); commonContinue → doData, doTrailers).
import { test } from "node:test";
import assert from "node:assert/strict";
import { bodyRequest as request, bodyResultsHost } from "../support/body-results-host.ts";
import { StreamType } from "../../src-host/host/abi.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

test("a response that ends with trailers: its body callbacks have end_of_stream false, proxy_on_response_trailers gets the trailer count, reads and adds trailers, and its Continue lets them go", async () => {
  const { host, values } = await bodyResultsHost();
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"]], false);
  assert.equal(dec.decode(s.encodeData(enc.encode("ab"), false)), "ab");
  assert.equal(s.encodeTrailers([["X-Checksum", "abc"]]).length, 0);
  assert.deepEqual(values("resp_body_end"), ["false"]);
  assert.deepEqual(values("resp_trailers"), ["1:abc"]);
  assert.equal(s.responseTrailersReleased, true);
  assert.deepEqual(s.state.responseTrailers?.pairs, [["x-checksum", "abc"], ["x-plugin-saw", "abc"]]);
  assert.ok(s.calls.includes("proxy_on_response_trailers"));
  s.finish();
});

test("a body the filter buffers goes on with the trailers once their callback continues (commonHandleAfterTrailersCallback → commonContinue)", async () => {
  const { host, values } = await bodyResultsHost();
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-response-body-results", "11"]], false);
  assert.equal(s.encodeData(enc.encode("ab"), false).length, 0);
  assert.equal(s.encodeData(enc.encode("cd"), false).length, 0);
  assert.equal(dec.decode(s.encodeTrailers([["x-checksum", "1"]])), "abcd");
  assert.deepEqual(values("resp_trailers"), ["1:1"]);
  assert.equal(s.responseStoppedByFilter, false);
  assert.equal(s.responseTrailersReleased, true);
});

test("trailers the filter stops at wait for continue_stream, which lets them go", async () => {
  const { host, continueStream } = await bodyResultsHost();
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-trailers-result", "1"]], false);
  assert.equal(dec.decode(s.encodeData(enc.encode("ab"), false)), "ab");
  s.encodeTrailers([["x-checksum", "1"]]);
  assert.equal(s.responseTrailersReleased, false);
  assert.equal(s.responseStoppedByFilter, true);
  continueStream(s, StreamType.HttpResponse);
  assert.equal(s.responseTrailersReleased, true);
  assert.equal(s.responseStoppedByFilter, false);
});

test("stock Envoy: a filter that stopped all iteration at the response headers gets the body (end_of_stream false) and then the trailers on continue_stream (FilterManager::encodeTrailers stoppedAll, commonContinue doData then doTrailers)", async () => {
  const { host, values, continueStream } = await bodyResultsHost({ flavor: "envoy" });
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-headers-result", "1"]], false);
  s.encodeData(enc.encode("ab"), false);
  s.encodeTrailers([["x-checksum", "2"]]);
  assert.deepEqual(values("resp_trailers"), [], "held from the filter while it stops all iteration");
  assert.equal(s.responseTrailersReleased, false);
  continueStream(s, StreamType.HttpResponse);
  assert.deepEqual(values("resp_body_end"), ["false"]);
  assert.deepEqual(values("resp_trailers"), ["1:2"]);
  assert.equal(dec.decode(s.takeReleasedResponseBody()), "ab");
  assert.equal(s.responseTrailersReleased, true);
});
