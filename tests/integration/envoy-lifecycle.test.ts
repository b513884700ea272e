// Streams through the host as Envoy and Higress run them: callback order, StopIteration mapping, body
// buffering and the 413, local replies, header and body edits, and the failure policies on a trap.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../src-host/host/abi.ts";
import { ConfigRejectedError } from "../../src-host/host/plugin-host.ts";
import type { HeaderList } from "../../src-host/host/header-map.ts";
import { conformanceHost } from "../support/conformance.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function request(scenario: string, extra: HeaderList = []): HeaderList {
  return [
    [":method", "POST"],
    [":path", "/v1/chat/completions?x=1"],
    [":authority", "gateway"],
    [":scheme", "http"],
    ["Content-Type", "application/json"],
    ["x-scenario", scenario],
    ["X-Dup", "first"],
    ["x-dup", "second"],
    ["x-remove-me", "1"],
    ...extra,
  ];
}

test("a request runs Envoy's callback order and on_log comes before on_done, then delete", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream({ clusterName: "backends" });
  s.decodeHeaders(request("normal"), false);
  assert.equal(s.requestState, "paused");
  s.decodeData(enc.encode("hello"), false);
  s.decodeData(enc.encode("world"), true);
  assert.equal(s.requestState, "forwarded");
  s.encodeHeaders([[":status", "200"]], false);
  const out = s.encodeData(enc.encode("resp"), true);
  s.finish();
  assert.deepEqual(s.calls, [
    "proxy_on_context_create",
    "proxy_on_request_headers",
    "proxy_on_request_body",
    "proxy_on_request_body",
    "proxy_on_response_headers",
    "proxy_on_response_body",
    "proxy_on_log",
    "proxy_on_done",
    "proxy_on_delete",
  ]);
  const id = String(s.contextId);
  assert.deepEqual([h.last("on_log"), h.last("on_done"), h.last("on_delete")], [id, id, id]);
  assert.equal(dec.decode(out), "resp");
  assert.equal(h.host.workers[0].vm.streams.size, 0, "the context is deleted");
});

test("header maps: lower-cased keys, first value wins, add, replace and remove", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  assert.match(h.last("req_pairs")!, /^:method=POST;:path=\/v1\/chat\/completions\?x=1;:authority=gateway;:scheme=http;content-type=application\/json;x-scenario=normal;x-dup=first;x-dup=second;x-remove-me=1;$/);
  assert.equal(h.last("req_num_headers"), "9");
  assert.equal(h.last("req_header_missing"), String(Status.NotFound));
  assert.equal(h.last("req_header_first_value"), "first");
  assert.equal(h.last("prop_request_path"), "/v1/chat/completions?x=1");
  assert.equal(h.last("prop_request_method"), "POST");
  assert.equal(h.last("resp_map_unavailable"), "-1", "response headers are not there during the request");
  assert.equal(h.last("bad_map_type"), "-1");
  // envoy context.cc Context::getBuffer: the request body is never null (Buffer::set returns this); before any body
  // it is empty, so cpp-host exports.cc get_buffer_bytes is Ok with nothing.
  assert.equal(h.last("headers_body"), `${Status.Ok}:0`);
  // Context::getBuffer from a stream: the VM configuration is there, the plugin configuration is not (no temp_plugin_),
  // and the network and gRPC buffers are Buffer::set(nullptr or an unset pointer): never null, so Ok and empty.
  assert.equal(h.last("stream_vm_config"), `${Status.Ok}:vm-config`);
  assert.equal(h.last("stream_plugin_config"), `${Status.NotFound}:`);
  assert.equal(h.last("stream_network_and_grpc_buffers"), `${Status.Ok}:,${Status.Ok}:,${Status.Ok}:,0`);
  const headers = new Map<string, string[]>();
  for (const [k, v] of s.requestHeaders) headers.set(k, [...(headers.get(k) ?? []), v]);
  assert.deepEqual(headers.get("x-added"), ["yes"]);
  assert.deepEqual(headers.get("x-dup"), ["replaced"]);
  // header_map_impl.cc HeaderMapImpl::setCopy removes every x-dup and adds the new one at the end, after x-added.
  assert.deepEqual(s.requestHeaders.map(([k]) => k).slice(-2), ["x-added", "x-dup"]);
  assert.equal(headers.has("x-remove-me"), false);
  // The serialized size the host reports is the exact size of the serialized map the plugin then reads.
  assert.ok(Number(h.last("req_map_size")) > 0);
});

test("request body: cumulative sizes while buffering, reads past the end refused, rewrite applied", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("rewrite-body"), false);
  s.decodeData(enc.encode("12345"), false);
  s.decodeData(enc.encode("67890"), true);
  assert.deepEqual(h.values("body_size"), ["5:more", "10:end"]);
  assert.equal(h.last("body"), "1234567890");
  assert.equal(h.last("body_past_end"), "0:0", "past the end: Ok and empty (tests/conformance/stream-calls.test.ts)");
  assert.equal(h.last("set_body"), "0");
  assert.equal(dec.decode(s.takeReleasedBody()), "new body");
  assert.equal(h.last("continue_request"), "0");
  assert.equal(h.last("continue_bad_type"), String(Status.BadArgument));
  assert.ok(s.requestHeaders.some(([k, v]) => k === "x-gateway-destination-endpoint" && v === "10.0.0.1:8000"));
});

test("a buffered body over the limit gets Envoy's 413", async () => {
  const h = await conformanceHost({ bufferLimitBytes: 8 });
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  s.decodeData(enc.encode("12345"), false);
  assert.equal(s.requestState, "paused");
  s.decodeData(enc.encode("67890"), false);
  assert.equal(s.requestState, "local-reply");
  assert.equal(s.localReply?.status, 413);
  assert.equal(s.localReply?.details, "request_payload_too_large");
  s.finish();
  assert.equal(s.calls.at(-1), "proxy_on_delete");
});

test("while the filter buffers, a chunk that takes the body over the limit still reaches it and Envoy answers 413 whatever it returns; a first chunk over the limit goes on if the filter lets it (context.cc Context::decodeData addDecodedData; filter_manager.cc requestDataTooLarge, executeLocalReplyIfPrepared)", async () => {
  const h = await conformanceHost({ bufferLimitBytes: 8 });
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  s.decodeData(enc.encode("12345"), false);
  s.decodeData(enc.encode("67890"), true);
  assert.deepEqual(h.values("body_size"), ["5:more", "10:end"]);
  assert.equal(h.last("body"), "1234567890", "the filter saw the whole buffered body");
  assert.equal(s.requestState, "local-reply", "its Continue does not let the body go");
  assert.equal(s.localReply?.status, 413);
  assert.equal(s.takeReleasedBody().length, 0);

  const t = h.host.newStream();
  t.decodeHeaders(request("normal"), false);
  t.decodeData(enc.encode("1234567890"), true);
  assert.equal(t.requestState, "forwarded", "nothing was buffered: Continue passes it on");
  assert.equal(dec.decode(t.takeReleasedBody()), "1234567890");
});

test("stock Envoy maps a headers StopIteration to StopAllIteration: the body never reaches the filter", async () => {
  const h = await conformanceHost({ flavor: "envoy" });
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  assert.equal(s.requestState, "stalled");
  s.decodeData(enc.encode("body"), true);
  assert.equal(s.requestState, "stalled");
  assert.ok(!s.calls.includes("proxy_on_request_body"));

  const allowed = await conformanceHost({ flavor: "envoy", allowOnHeadersStopIteration: true });
  const t = allowed.host.newStream();
  t.decodeHeaders(request("normal"), false);
  assert.equal(t.requestState, "paused");
  t.decodeData(enc.encode("body"), true);
  assert.equal(t.requestState, "forwarded");
  assert.equal(allowed.last("body"), "body");
});

test("stock Envoy holds a stalled request's body and trailers from the filter until continue_stream, then delivers both to it (filter_manager.cc decodeTrailers stoppedAll, commonContinue iterate_from_current_filter_)", async () => {
  const h = await conformanceHost({ flavor: "envoy" });
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  s.decodeData(enc.encode("body"), false);
  s.decodeTrailers([["x-checksum", "1"]]);
  assert.equal(s.requestState, "stalled");
  assert.deepEqual(s.calls, ["proxy_on_context_create", "proxy_on_request_headers"], "neither the body nor the trailers reach the filter");

  const worker = h.host.workers[0];
  worker.vm.call("conformance_continue_stream", [s.contextId, 0], worker.rootContextId);
  assert.equal(h.last("continue_from_root"), String(Status.Ok));
  assert.deepEqual(s.calls.slice(2), ["proxy_on_request_body", "proxy_on_request_trailers"]);
  assert.deepEqual(h.values("body_size"), ["4:more"], "the buffered body, not the end: trailers follow");
  assert.equal(h.last("trailers"), "1:4", "the trailers come with the body still readable");
  assert.equal(s.requestState, "forwarded");
  assert.equal(dec.decode(s.takeReleasedBody()), "body");
  // context.cc: request_trailers_ is there during Context::decodeTrailers and dropped by its Continue; in on_log
  // getConstMap gives no request trailers (NotFound in the access-log phase).
  assert.equal(h.last("trailer_in_callback"), String(Status.Ok));
  worker.vm.call("conformance_read_trailer", [s.contextId], worker.rootContextId);
  assert.equal(h.last("trailer_from_root"), String(Status.BadArgument));
  s.finish();
  assert.equal(h.last("log_req_trailer"), String(Status.NotFound));
});

test("stock Envoy: continue_stream on a stalled request sends its headers on before the buffered body reaches the filter, so a body callback that stops then holds only the body (filter_manager.cc ActiveStreamFilterBase::commonContinue: headers_continued_ and doHeaders, then doData from this filter)", async () => {
  const h = await conformanceHost({ flavor: "envoy" });
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  s.decodeData(enc.encode("ab"), false);
  assert.equal(s.requestState, "stalled");
  const worker = h.host.workers[0];
  worker.vm.call("conformance_continue_stream", [s.contextId, 0], worker.rootContextId);
  assert.deepEqual(h.values("body_size"), ["2:more"], "the buffered body reaches the filter, which holds it");
  assert.equal(s.requestState, "forwarded", "the headers went on");
  assert.equal(s.requestBodyHeld, true);
  assert.equal(s.takeReleasedBody().length, 0);
  s.decodeData(enc.encode("cd"), true);
  assert.equal(dec.decode(s.takeReleasedBody()), "abcd");
  assert.equal(s.requestBodyHeld, false);
});

test("after request headers went on with Continue, a body callback that stops holds the body until its Continue (filter_manager.cc commonHandleAfterDataCallback: StopSingleIteration, then commonContinue → doData)", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("continue"), false);
  assert.equal(s.requestState, "forwarded");
  s.decodeData(enc.encode("ab"), false);
  assert.equal(s.takeReleasedBody().length, 0, "StopIterationAndBuffer holds the chunk");
  assert.equal(s.requestBodyHeld, true);
  s.decodeData(enc.encode("cd"), true);
  assert.deepEqual(h.values("body_size"), ["2:more", "4:end"], "the filter sees the body it holds grow");
  assert.equal(h.last("body"), "abcd");
  assert.equal(dec.decode(s.takeReleasedBody()), "abcd", "Continue lets all of it go");
  assert.equal(s.requestBodyHeld, false);
});

test("stock Envoy holds the response body of a response whose headers the filter stopped (StopIteration → StopAllIteration) from the filter until continue_stream, then delivers it whole (filter_manager.cc encodeData handleDataIfStopAll, commonContinue)", async () => {
  const h = await conformanceHost({ flavor: "envoy" });
  const s = h.host.newStream();
  s.decodeHeaders(request("hold-response"), true);
  s.encodeHeaders([[":status", "200"]], false);
  assert.equal(s.responseHeadersReleased, false);
  assert.equal(s.encodeData(enc.encode("ab"), false).length, 0);
  assert.equal(s.encodeData(enc.encode("cd"), true).length, 0);
  assert.deepEqual(h.values("resp_body_size"), [], "the body does not reach the filter");
  assert.equal(s.responseStoppedByFilter, true);

  const worker = h.host.workers[0];
  worker.vm.call("conformance_continue_stream", [s.contextId, 1], worker.rootContextId);
  assert.deepEqual(h.values("resp_body_size"), ["4:end"], "one body callback with all of it, and the end");
  assert.equal(s.responseHeadersReleased, true);
  assert.equal(dec.decode(s.takeReleasedResponseBody()), "abcd");
  assert.equal(s.responseStoppedByFilter, false);
});

test("stock Envoy: a response buffered for a filter that stopped all iteration is too large (500) past the limit with StopAllIterationAndBuffer, not with StopAllIterationAndWatermark (filter_manager.cc handleDataIfStopAll, responseDataTooLarge)", async () => {
  const h = await conformanceHost({ flavor: "envoy", bufferLimitBytes: 4 });
  const send = (result: string) => {
    const s = h.host.newStream();
    s.decodeHeaders(request("response-headers-result"), true);
    s.encodeHeaders([[":status", "200"], ["x-headers-result", result]], false);
    s.encodeData(enc.encode("too long"), false);
    return s;
  };
  assert.equal(send("3").responsePayloadTooLarge, true, "StopAllIterationAndBuffer: the buffer is not streaming");
  assert.equal(send("4").responsePayloadTooLarge, false, "StopAllIterationAndWatermark: it streams");
  assert.deepEqual(h.values("resp_body_size"), [], "neither body reached the filter");
});

test("a headers callback's other results as cpp-host and Envoy convert them: 2 (ContinueAndEndStream) is Continue; 3 stalls with a buffer that gets 413 over the limit; 4, larger values and negative ones stall with a streaming buffer (cpp-host context.cc convertVmCallResultToFilterHeadersStatus; envoy context.cc convertFilterHeadersStatus default branch; filter_manager.cc handleDataIfStopAll, requestDataTooLarge)", async () => {
  const h = await conformanceHost({ bufferLimitBytes: 8 });
  const send = (result: string) => {
    const s = h.host.newStream();
    s.decodeHeaders(request("headers-result", [["x-headers-result", result]]), false);
    return s;
  };
  const two = send("2");
  assert.equal(two.requestState, "forwarded");
  two.decodeData(enc.encode("x"), true);
  assert.equal(h.last("body_req_header"), String(Status.BadArgument), "as after Continue, the filter no longer holds the headers");

  const three = send("3");
  assert.equal(three.requestState, "stalled");
  three.decodeData(enc.encode("123456789"), false);
  assert.equal(three.localReply?.status, 413);
  assert.ok(!three.calls.includes("proxy_on_request_body"));

  for (const result of ["4", "5", "-1"]) {
    const s = send(result);
    assert.equal(s.requestState, "stalled", result);
    s.decodeData(enc.encode("123456789"), true);
    assert.equal(s.requestState, "stalled", `${result}: no 413 from a streaming buffer`);
    assert.ok(!s.calls.includes("proxy_on_request_body"));
  }
});

test("Higress delivers the body after a headers StopIteration", async () => {
  const h = await conformanceHost({ flavor: "higress" });
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  assert.equal(s.requestState, "paused");
  s.decodeData(enc.encode("x"), true);
  assert.equal(s.requestState, "forwarded");
});

test("a local reply from the plugin runs the response callbacks and ends the stream", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("local-headers"), false);
  assert.equal(s.requestState, "local-reply");
  assert.equal(s.localReply?.status, 429);
  assert.equal(s.localReply?.details, "conformance_local");
  assert.equal(dec.decode(s.localReply!.body), "slow down");
  assert.deepEqual(s.localReply?.headers, [["x-local", "1"]]);
  assert.equal(h.last("resp_status"), "429");
  s.finish();
  assert.deepEqual(s.calls.slice(-3), ["proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
});

test("set_header_map_pairs replaces the whole request map", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("set-pairs"), false);
  assert.equal(h.last("set_pairs"), "0");
  assert.deepEqual(s.requestHeaders, [[":method", "POST"], [":path", "/rewritten"], ["x-only", "1"]]);
});

test("close_stream resets the stream", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("close"), false);
  s.decodeData(enc.encode("x"), true);
  assert.equal(h.last("close_stream"), "0");
  assert.equal(s.requestState, "reset");
  s.finish();
  // proxy_done and on_done's result: tests/conformance/stream-calls.test.ts.
});

test("a reset stream still gets on_log before on_done", async () => {
  const h = await conformanceHost();
  const s = h.host.newStream();
  s.decodeHeaders(request("normal"), false);
  s.reset();
  assert.deepEqual(s.calls.slice(-3), ["proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
  assert.equal(s.requestState, "reset");
});

test("configure returning false, or trapping, rejects the configuration", async () => {
  await assert.rejects(conformanceHost({ pluginConfig: "reject" }), ConfigRejectedError);
  await assert.rejects(conformanceHost({ pluginConfig: "trap-configure" }), ConfigRejectedError);
});

// The failure policies on a trapping VM: tests/conformance/failure-policy.test.ts.

test("root contexts get on_done then on_delete when the plugin's VMs shut down, the configuration canary never (cpp-host wasm.cc WasmBase::startShutdown, WasmHandleBase::canary kill())", async () => {
  const h = await conformanceHost({ workers: 2 });
  assert.deepEqual(h.values("root_on_done"), [], "the canary that passed is killed, not shut down");
  const roots = h.host.workers.map((w) => String(w.rootContextId));
  h.host.close();
  assert.deepEqual(h.values("root_on_done"), roots);
  assert.deepEqual(h.values("root_on_delete"), roots);
  const order = h.checks.map(([n]) => n).filter((n) => n === "root_on_done" || n === "root_on_delete");
  assert.deepEqual(order, ["root_on_done", "root_on_delete", "root_on_done", "root_on_delete"]);
});

test("a replaced configuration gets a new root context in each worker's VM; the old one is done when its last stream ends (cpp-host WasmBase::start, ~PluginHandleBase)", async () => {
  const h = await conformanceHost({ workers: 2 });
  const oldRoots = h.host.workers.map((w) => w.rootContextId);
  const vms = h.host.workers.map((w) => w.vm);
  const open = h.host.newStream({ clusterName: "backends" }, 0);
  open.decodeHeaders(request("normal"), false);
  h.host.replaceConfiguration("conformance-2");
  // The canary, then each worker's new root context, read the new configuration; the VMs are the same.
  assert.deepEqual(h.values("plugin_config"), ["conformance", "conformance", "conformance", "conformance-2", "conformance-2", "conformance-2"]);
  assert.deepEqual(h.host.workers.map((w) => w.vm), vms, "the workers keep their VMs");
  const newRoots = h.host.workers.map((w) => w.rootContextId);
  assert.ok(newRoots.every((r, i) => r !== oldRoots[i]));
  // Worker 1's old root holds no stream: it goes at once. Worker 0's waits for its stream.
  assert.deepEqual(h.values("root_on_done"), [String(oldRoots[1])]);
  assert.deepEqual(h.values("root_on_delete"), [String(oldRoots[1])]);
  const next = h.host.newStream({ clusterName: "backends" }, 0);
  next.decodeHeaders(request("normal"), false);
  assert.equal(next.calls[0], "proxy_on_context_create");
  open.decodeData(enc.encode("x"), true);
  open.encodeHeaders([[":status", "200"]], true);
  open.finish();
  assert.deepEqual(h.values("root_on_done"), [String(oldRoots[1]), String(oldRoots[0])], "the old root goes with its last stream");
  assert.deepEqual(h.values("root_on_delete"), [String(oldRoots[1]), String(oldRoots[0])]);
  assert.deepEqual([...vms[0].roots.keys()], [newRoots[0]]);
  next.decodeData(enc.encode("y"), true);
  next.encodeHeaders([[":status", "200"]], true);
  next.finish();
  assert.deepEqual(h.values("root_on_done").length, 2, "the new root stays");
  h.host.close();
  assert.deepEqual(h.values("root_on_done").slice(2), newRoots.map(String));
});

test("a replacement configuration the canary refuses is rejected and the old one stays in force", async () => {
  const h = await conformanceHost({ workers: 1 });
  const root = h.host.workers[0].rootContextId;
  assert.throws(() => h.host.replaceConfiguration("reject"), ConfigRejectedError);
  assert.equal(h.host.workers[0].rootContextId, root);
  assert.deepEqual(h.values("root_on_done"), []);
});

test("the VM learns of a stream when it reaches the filter; one an earlier filter answered is created only to be logged, and its response callbacks skip the VM (envoy context.cc Context::decodeHeaders, encodeHeaders, log, onDestroy)", async () => {
  const h = await conformanceHost();
  const reached = h.host.newStream({ clusterName: "backends" });
  assert.deepEqual(reached.calls, [], "nothing before the request headers reach the filter");
  reached.decodeHeaders(request("normal"), true);
  reached.encodeHeaders([[":status", "200"]], true);
  reached.finish();
  assert.deepEqual(reached.calls, ["proxy_on_context_create", "proxy_on_request_headers", "proxy_on_response_headers", "proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
  const answered = h.host.newStream({ clusterName: "backends" });
  answered.encodeHeaders([[":status", "401"]], false);
  answered.encodeData(enc.encode("no"), true);
  answered.finish();
  assert.deepEqual(answered.calls, ["proxy_on_context_create", "proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
  assert.equal(h.host.workers[0].vm.streams.size, 0);
});

test("HTTP/3: the filters go before the deferred access log, so on_log comes after on_done and on_delete, and a stream that never reached the filter gets no on_done or on_delete; a client reset is logged at once (conn_manager_impl.cc doDeferredStreamDestroy)", async () => {
  const h = await conformanceHost();
  const reached = h.host.newStream({ clusterName: "backends", protocol: "HTTP/3" });
  reached.decodeHeaders(request("normal"), true);
  reached.encodeHeaders([[":status", "200"]], true);
  reached.finish();
  assert.deepEqual(reached.calls, ["proxy_on_context_create", "proxy_on_request_headers", "proxy_on_response_headers", "proxy_on_done", "proxy_on_delete", "proxy_on_log"]);
  const answered = h.host.newStream({ clusterName: "backends", protocol: "HTTP/3" });
  answered.encodeHeaders([[":status", "401"]], true);
  answered.finish();
  assert.deepEqual(answered.calls, ["proxy_on_context_create", "proxy_on_log"]);
  // A stream the client reset is logged at once, before its filters go.
  const reset = h.host.newStream({ clusterName: "backends", protocol: "HTTP/3" });
  reset.decodeHeaders(request("normal"), false);
  reset.reset();
  assert.deepEqual(reset.calls, ["proxy_on_context_create", "proxy_on_request_headers", "proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
  assert.equal(h.host.workers[0].vm.streams.size, 0, "the host forgets them");
});
