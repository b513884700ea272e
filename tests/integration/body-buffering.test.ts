// Which body a module reads in a body callback, and which bytes go on when the filter continues, after each of the
// stopping FilterDataStatus results, as upstream Envoy does it: the wasm filter's view (context.cc Context::decodeData /
// encodeData and Context::getBuffer with buffering_request_body_ / buffering_response_body_) and the filter manager's
// buffer (filter_manager.cc commonHandleAfterDataCallback, commonHandleBufferData, commonContinue).
import { test } from "node:test";
import assert from "node:assert/strict";
import { bodyRequest as request, bodyResultsHost } from "../support/body-results-host.ts";
import { BufferType, StreamType } from "../../src-host/host/abi.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const bodyHost = bodyResultsHost;

test("StopIterationNoBuffer after StopIterationAndBuffer keeps the body buffered so far, this chunk included: the chunk joined the buffer before the call (context.cc Context::decodeData addDecodedData; filter_manager.cc commonHandleAfterDataCallback buffers nothing more)", async () => {
  const { host, values } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "13"]]), false);
  s.decodeData(enc.encode("ab"), false);
  s.decodeData(enc.encode("cd"), false);
  assert.equal(s.takeReleasedBody().length, 0);
  s.decodeData(enc.encode("ef"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "4:abcd", "2:ef"], "buffering: the decoding buffer; after NoBuffer: the chunk alone");
  assert.equal(dec.decode(s.takeReleasedBody()), "abcdef", "Continue lets the buffer and the chunk go");
});

test("after StopIterationAndWatermark a body callback reads only its own chunk; StopIterationNoBuffer drops only that chunk, and Continue lets the rest go (context.cc Context::getBuffer request_body_buffer_; filter_manager.cc commonHandleAfterDataCallback, commonContinue → doData)", async () => {
  const { host, values } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "2230"]]), false);
  for (const chunk of ["ab", "cd", "xx"]) s.decodeData(enc.encode(chunk), false);
  assert.equal(s.requestBodyHeld, true);
  s.decodeData(enc.encode("ef"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "2:cd", "2:xx", "2:ef"]);
  assert.equal(dec.decode(s.takeReleasedBody()), "abcdef");
  assert.equal(s.requestBodyHeld, false);
});

test("a chunk rewritten after StopIterationAndWatermark is the chunk that goes on (context.cc Context::getBuffer: the module's body is request_body_buffer_, the chunk)", async () => {
  const { host, values } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "20"]]), false);
  s.decodeData(enc.encode("ab"), false);
  s.decodeData(enc.encode("rewrite"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "7:rewrite"]);
  assert.equal(dec.decode(s.takeReleasedBody()), "abREWRITTEN");
});

test("trailers after StopIterationAndWatermark read no body (the chunk moved into the filter manager's buffer), after StopIterationAndBuffer the buffered body; their Continue lets the buffer go (context.cc Context::getBuffer; filter_manager.cc commonHandleAfterTrailersCallback → commonContinue)", async () => {
  const { host, values } = await bodyHost();
  for (const results of ["2", "1"]) {
    const s = host.newStream();
    s.decodeHeaders(request([["x-body-results", results]]), false);
    s.decodeData(enc.encode("ab"), false);
    s.decodeTrailers([["x-checksum", "1"]]);
    assert.equal(dec.decode(s.takeReleasedBody()), "ab", results);
  }
  assert.deepEqual(values("req_trailers_body"), ["", "ab"]);
});

test("stock Envoy: the body a stalled request buffered reaches the filter on continue_stream as the buffer itself, so StopIterationNoBuffer does not drop it (filter_manager.cc commonContinue → doData(buffered_request_data_), commonHandleBufferData)", async () => {
  const { host, values, continueStream } = await bodyHost({ flavor: "envoy" });
  const s = host.newStream();
  s.decodeHeaders(request([["x-headers-result", "1"], ["x-body-results", "30"]]), false);
  assert.equal(s.requestState, "stalled");
  s.decodeData(enc.encode("ab"), false);
  continueStream(s, StreamType.HttpRequest);
  assert.equal(s.requestBodyHeld, true);
  s.decodeData(enc.encode("cd"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "2:cd"]);
  assert.equal(dec.decode(s.takeReleasedBody()), "abcd");
});

test("continue_stream from a body callback lets the buffer go only when the callback returns: until then the module still reads it (context.cc Context::continueStream addAfterVmCallAction → continueDecoding)", async () => {
  const { host, values } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "14"]]), false);
  s.decodeData(enc.encode("ab"), false);
  s.decodeData(enc.encode("cd"), false);
  assert.deepEqual(values("req_body"), ["2:ab", "4:abcd"]);
  assert.deepEqual(values("req_body_after_continue"), ["abcd"]);
  assert.equal(dec.decode(s.takeReleasedBody()), "abcd");
  assert.equal(s.requestBodyHeld, false);
});

test("response: continue_stream from a body callback sends the held body, then the chunk the callback continues, within that data callback (context.cc Context::continueStream → continueEncoding after the VM call: commonContinue → doData, then the chunk)", async () => {
  const { host, values } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-response-body-results", "24"]], false);
  assert.equal(s.encodeData(enc.encode("ab"), false).length, 0);
  assert.equal(dec.decode(s.encodeData(enc.encode("cd"), false)), "abcd", "all of it goes downstream within this data callback");
  assert.equal(s.takeReleasedResponseBody().length, 0);
  assert.deepEqual(values("resp_body_after_continue"), ["cd"]);
  assert.equal(s.responseStoppedByFilter, false);
});

test("response: after StopIterationAndWatermark each callback reads its chunk and Continue sends the held body with it; NoBuffer after StopIterationAndBuffer keeps the buffer (context.cc Context::encodeData, getBuffer response_body_buffer_)", async () => {
  const { host, values } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-response-body-results", "22130"]], false);
  const sent = ["ab", "cd", "ef", "gh", "ij", "kl"].map((chunk) => dec.decode(s.encodeData(enc.encode(chunk), false)));
  assert.deepEqual(sent, ["", "", "", "", "abcdefghij", "kl"]);
  assert.deepEqual(values("resp_body"), ["2:ab", "2:cd", "2:ef", "8:abcdefgh", "2:ij", "2:kl"]);
});

test("response: while the filter buffers, a chunk that takes the buffer past the limit makes it too large (500) before the module runs, whatever it returns (context.cc Context::encodeData addEncodedData; filter_manager.cc ActiveStreamEncoderFilter::responseDataTooLarge)", async () => {
  const { host } = await bodyHost({ bufferLimitBytes: 4 });
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-response-body-results", "10"]], false);
  s.encodeData(enc.encode("abc"), false);
  assert.equal(s.responsePayloadTooLarge, false);
  s.encodeData(enc.encode("de"), false);
  assert.equal(s.responsePayloadTooLarge, true);
});

test("stock Envoy: a response body buffered while the filter stopped all iteration is not the module's body until it reaches the filter on continue_stream (context.cc Context::getBuffer: response_body_buffer_ is set only by encodeData; filter_manager.cc handleDataIfStopAll)", async () => {
  const { host, values, continueStream, readOutside } = await bodyHost({ flavor: "envoy" });
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-headers-result", "1"]], false);
  s.encodeData(enc.encode("ab"), false);
  s.encodeData(enc.encode("cd"), true);
  readOutside(s, BufferType.HttpResponseBody);
  assert.deepEqual(values("read_outside"), [""]);
  continueStream(s, StreamType.HttpResponse);
  assert.deepEqual(values("resp_body"), ["4:abcd"]);
  assert.equal(dec.decode(s.takeReleasedResponseBody()), "abcd");
});

test("after StopIterationAndBuffer, continue_stream from outside a callback leaves buffering set: the next chunk joins the drained buffer before the call, so the module reads it alone and a Continue lets an empty chunk go on while its bytes stay in the buffer (context.cc Context::continueStream keeps buffering_request_body_, Context::decodeData addDecodedData; filter_manager.cc commonHandleAfterDataCallback on a filter not stopped)", async () => {
  const { host, values, continueStream } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "10"]]), false);
  s.decodeData(enc.encode("ab"), false);
  continueStream(s, StreamType.HttpRequest);
  assert.equal(dec.decode(s.takeReleasedBody()), "ab");
  s.decodeData(enc.encode("cd"), false);
  assert.equal(s.takeReleasedBody().length, 0, "the chunk moved into the buffer; what went on is empty");
  s.decodeData(enc.encode("ef"), true);
  assert.deepEqual(values("req_body"), ["2:ab", "2:cd", "2:ef"]);
  assert.equal(dec.decode(s.takeReleasedBody()), "ef", "the Continue reset buffering: the last chunk is read and goes on alone");
});

test("after StopIterationAndBuffer and continue_stream from outside a callback, a chunk over the limit makes the still-buffering filter's buffer too large before the module runs (context.cc Context::decodeData addDecodedData(data, false); filter_manager.cc requestDataTooLarge)", async () => {
  const { host, continueStream } = await bodyHost({ bufferLimitBytes: 4 });
  const s = host.newStream();
  s.decodeHeaders(request([["x-body-results", "1"]]), false);
  s.decodeData(enc.encode("ab"), false);
  continueStream(s, StreamType.HttpRequest);
  s.decodeData(enc.encode("abcdef"), true);
  assert.equal(s.localReply?.status, 413);
});

test("response: after StopIterationAndBuffer and continue_stream from outside a callback, the next chunk joins the drained buffer and a Continue sends an empty chunk (context.cc Context::continueStream keeps buffering_response_body_, Context::encodeData addEncodedData)", async () => {
  const { host, values, continueStream } = await bodyHost();
  const s = host.newStream();
  s.decodeHeaders(request([]), true);
  s.encodeHeaders([[":status", "200"], ["x-response-body-results", "10"]], false);
  assert.equal(s.encodeData(enc.encode("ab"), false).length, 0);
  continueStream(s, StreamType.HttpResponse);
  assert.equal(dec.decode(s.takeReleasedResponseBody()), "ab");
  assert.equal(s.encodeData(enc.encode("cd"), false).length, 0);
  assert.equal(dec.decode(s.encodeData(enc.encode("ef"), true)), "ef");
  assert.deepEqual(values("resp_body"), ["2:ab", "2:cd", "2:ef"]);
});
