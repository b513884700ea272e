// Host calls from a stream (and from the root context) that Envoy answers in ways easy to get wrong, each
// checked through the conformance plugin (tests/conformance/plugin.ts) against the source it follows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../../src-host/host/abi.ts";
import type { HeaderList } from "../../../src-host/host/header-map.ts";
import { conformanceHost } from "../../support/conformance.ts";

const enc = new TextEncoder();

function request(scenario: string): HeaderList {
  return [[":method", "POST"], [":path", "/chat"], [":authority", "gateway"], ["content-type", "application/json"], ["x-scenario", scenario]];
}

test("send_local_response is Ok and deferred to after the callback, so this filter's response callback never runs inside it; a second reply changes nothing; details get '_' for spaces (envoy context.cc Context::sendLocalResponse, addAfterVmCallAction, StringUtil::replaceAllEmptySpace)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("local-headers"), false);
  assert.equal(h.last("local_reply_status"), String(Status.Ok));
  assert.equal(h.last("second_local_reply_status"), String(Status.Ok));
  assert.equal(h.last("response_inside_request_callback"), "false");
  assert.equal(s.localReply?.status, 429, "the first reply stands");
  assert.equal(s.localReply?.details, "conformance_local");
  assert.equal(s.requestState, "local-reply", "the Continue the callback returned does not forward the request");
});

test("send_local_response with a malformed header map is Ok and sends the reply without extra headers (cpp-host exports.cc send_local_response, pairs_util.cc PairsUtil::toPairs)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("local-malformed"), false);
  assert.equal(h.last("malformed_local_reply"), String(Status.Ok));
  assert.equal(s.localReply?.status, 403);
  assert.equal(s.localReply?.details, "malformed_headers");
  assert.deepEqual(s.localReply?.headers, []);
});

test("continue_stream and close_stream on an HTTP stream: Downstream is Ok and does nothing, Upstream is Unimplemented to continue and Ok to close, past Upstream is BadArgument (cpp-host exports.cc continue_stream/close_stream; context.cc Context::continueStream/closeStream)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  s.decodeData(enc.encode("x"), true);
  assert.equal(h.last("network_stream_types"), [Status.Ok, Status.Unimplemented, Status.Ok, Status.Ok, Status.BadArgument].join(","));
  assert.equal(s.requestState, "forwarded", "closing a network stream type does not reset the HTTP stream");
});

test("set_header_map_pairs with a malformed map is Ok and clears the map (cpp-host exports.cc set_header_map_pairs, PairsUtil::toPairs; context.cc Context::setHeaderMapPairs)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("set-pairs-malformed"), false);
  assert.equal(h.last("set_pairs_malformed"), String(Status.Ok));
  assert.deepEqual(s.requestHeaders, []);
});

test("send_local_response for a stream from a root context's callback is sent after that callback returns, not inside it (context.cc Context::sendLocalResponse, addAfterVmCallAction)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("paused"), false);
  let changed = 0;
  s.onChange = () => changed++;
  const worker = h.host.workers[0];
  worker.vm.call("conformance_local_reply_from_root", [s.contextId], worker.rootContextId);
  assert.equal(h.last("root_call_local_reply"), String(Status.Ok));
  assert.equal(s.localReply?.status, 503);
  assert.equal(h.last("response_inside_root_call"), "false");
  assert.equal(changed, 1, "the gateway hears of the reply");
});

test("on the root context send_local_response and continue_stream are Ok and do nothing; proxy_done is NotFound (context.cc sendLocalResponse/continueStream without decoder callbacks; cpp-host wasm.cc WasmBase::done)", async () => {
  const h = await conformanceHost();
  h.clock.advanceTo(h.clock.nowMs() + 50);
  assert.equal(h.last("root_local_reply"), String(Status.Ok));
  assert.equal(h.last("root_continue"), String(Status.Ok));
  assert.equal(h.last("root_done"), String(Status.NotFound));
});

test("after request headers return Continue the filter no longer has the request header map; on_log reads it but cannot change it (context.cc Context::decodeHeaders, getMap/getConstMap, Context::log access_log_phase_)", async () => {
  const h = await conformanceHost();
  const paused = h.host.newStream();
  paused.decodeHeaders(request("paused"), false);
  paused.decodeData(enc.encode("x"), true);
  assert.equal(h.last("body_req_header"), String(Status.Ok), "held while paused");
  const s = h.host.newStream();
  s.decodeHeaders(request("continue"), false);
  s.decodeData(enc.encode("x"), true);
  assert.equal(h.last("body_req_header"), String(Status.BadArgument), "dropped after Continue");
  s.encodeHeaders([[":status", "200"]], true);
  s.finish();
  assert.equal(h.last("log_req_header"), String(Status.Ok));
  assert.equal(h.last("log_add_header"), String(Status.BadArgument));
});

test("on_log can still change the request header map when the filter never let go of it (context.cc Context::getMap ignores access_log_phase_)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("paused"), false);
  s.decodeData(enc.encode("x"), true);
  assert.equal(s.requestState, "paused");
  s.reset();
  assert.equal(h.last("log_req_header"), String(Status.Ok));
  assert.equal(h.last("log_add_header"), String(Status.Ok));
});

test("continue_stream(Response) lets held response headers go and keeps the response header map; it drops the request header map as continue_stream(Request) does (context.cc Context::continueStream)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("local-hold"), false);
  assert.equal(s.localReply?.status, 429);
  assert.equal(s.responseHeadersReleased, false, "on_response_headers returned StopIteration");
  const worker = h.host.workers[0];
  worker.vm.call("conformance_continue_stream", [s.contextId, 1], worker.rootContextId);
  assert.equal(h.last("continue_from_root"), String(Status.Ok));
  assert.equal(s.responseHeadersReleased, true);
  assert.equal(h.last("after_continue_response_header"), String(Status.Ok), "response_headers_ is kept");
  assert.equal(h.last("after_continue_request_header"), String(Status.BadArgument), "request_headers_ is dropped");
});

test("a local reply whose headers the filter held and whose body callback calls continue_stream(Response) is sent with its body (context.cc Context::continueStream → filter_manager.cc commonContinue, run after the VM call)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("local-continue-in-body"), false);
  assert.equal(s.localReply?.status, 403);
  assert.equal(h.last("continue_response_in_body"), String(Status.Ok));
  assert.equal(s.responseHeadersReleased, true);
  assert.equal(s.responseStoppedByFilter, false);
  assert.equal(new TextDecoder().decode(s.takeReleasedResponseBody()), "denied body", "the body continue_stream let go is not dropped");
});

test("stock Envoy: a local reply sent from the body callback continue_stream(Response) delivered replaces the upstream response, body included (filter_manager.cc sendLocalReply before the response headers went downstream)", async () => {
  const h = await conformanceHost({ flavor: "envoy" });
  const s = h.host.newStream();
  s.decodeHeaders(request("reply-in-response-body"), true);
  s.encodeHeaders([[":status", "200"]], false);
  assert.equal(s.encodeData(enc.encode("upstream"), true).length, 0, "held for the filter");
  const worker = h.host.workers[0];
  worker.vm.call("conformance_continue_stream", [s.contextId, 1], worker.rootContextId);
  assert.equal(h.values("reply_in_response_body")[0], String(Status.Ok));
  assert.equal(s.localReply?.status, 403);
  assert.equal(new TextDecoder().decode(s.takeReleasedResponseBody()), "replaced");
});

test("get_buffer_bytes past the end of the body is Ok with nothing, and a length whose end passes 2^32 is cut at the body's end (cpp-host exports.cc get_buffer_bytes: its overflow check is on 64-bit Words)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("paused"), false);
  s.decodeData(enc.encode("twelve bytes"), true);
  assert.equal(h.last("body_past_end"), "0:0");
  assert.equal(h.last("body_wrapping_length"), `${Status.Ok}:10`);
});

test("a stream's on_done returning false does not delay on_delete (context.cc Context::onDestroy: onDone() then onDelete())", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("late-done"), true);
  s.finish();
  assert.equal(h.last("proxy_done"), String(Status.NotFound));
  assert.deepEqual(s.calls.slice(-3), ["proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
});

test("request.duration is there only once the request is complete: not while the filter runs, in on_log the time from start to completion (filters/common/expr/context.cc RequestWrapper Duration: info_.requestComplete(); conn_manager_impl.cc doDeferredStreamDestroy: completeRequest, then the access log)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  h.clock.advanceTo(h.clock.nowMs() + 5);
  s.decodeHeaders(request("continue"), true);
  assert.equal(h.last("prop_request_duration"), String(Status.NotFound));
  s.encodeHeaders([[":status", "200"]], true);
  h.clock.advanceTo(h.clock.nowMs() + 7);
  s.finish();
  assert.equal(h.last("log_request_duration"), `0:${12_000_000}`);
});

test("a write to the trailers in the last body callback adds them, on either side; earlier it is BadArgument (context.cc Context::getMap: addDecodedTrailers / addEncodedTrailers with a body buffer and end_of_stream_)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("add-trailers"), false);
  s.decodeData(enc.encode("ab"), false);
  s.decodeData(enc.encode("cd"), true);
  assert.deepEqual(h.values("body_add_trailer"), [`more:${Status.BadArgument}:${Status.BadArgument}`, `end:${Status.Ok}:${Status.Ok}`]);
  assert.deepEqual(s.requestTrailers, [["x-added", "1"]]);
  s.encodeHeaders([[":status", "200"]], false);
  s.encodeData(enc.encode("x"), false);
  s.encodeData(enc.encode("y"), true);
  assert.deepEqual(h.values("resp_body_add_trailer"), [`more:${Status.BadArgument}:${Status.BadArgument}`, `end:${Status.Ok}:${Status.Ok}`]);
});

test("set_effective_context(0) is Ok and goes back to the callback's own context (cpp-host exports.cc set_effective_context: getContext(0) is the VM context; contextOrEffectiveContext: an effective id of 0 is current_context_)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("paused"), false);
  const worker = h.host.workers[0];
  worker.vm.call("conformance_effective_reset", [s.contextId], worker.rootContextId);
  assert.equal(h.last("effective_reset"), `${Status.Ok}:${Status.NotFound}`);
});
