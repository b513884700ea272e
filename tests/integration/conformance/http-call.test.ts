// proxy_http_call as Envoy delivers it, checked through the conformance plugin (tests/conformance/plugin.ts):
// what proxy_on_http_call_response receives, what the response maps and proxy_get_status say, for a
// response, a reset, a timeout and a connection failure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../../src-host/host/abi.ts";
import type { Cluster, HttpCallOutcome } from "../../../src-host/host/cluster.ts";
import { conformanceHost } from "../../support/conformance.ts";

/** A "metrics" cluster whose calls wait in `calls` until the test answers them. */
function heldCluster(calls: Array<(o: HttpCallOutcome) => void>): Cluster {
  return { name: "metrics", hosts: () => [], dispatch: (_req, respond) => calls.push(respond) };
}

const ok = (status: number, body = "text"): HttpCallOutcome => ({
  headers: [[":status", String(status)], ["content-type", "text/plain"]],
  body: new TextEncoder().encode(body),
  trailers: [],
});

async function setup() {
  const calls: Array<(o: HttpCallOutcome) => void> = [];
  const h = await conformanceHost({}, [heldCluster(calls)]);
  const settle = () => h.clock.advanceTo(h.clock.nowMs());
  // Answer the calls both VMs made in configure, so only the test's own calls remain.
  for (const respond of calls.splice(0)) respond(ok(200));
  settle();
  const before = h.values("http_response_headers").length;
  const worker = h.host.workers[0];
  const dispatch = (timeoutMs: number) => worker.vm.call("conformance_http_call", [timeoutMs], worker.rootContextId);
  const callbacks = () => h.values("http_response_headers").length - before;
  return { h, calls, worker, dispatch, settle, callbacks };
}

test("a response of any status reaches the root context with :status in the header map; proxy_get_status stays 0 (envoy context.cc Context::onHttpCallSuccess, cpp-host exports.cc get_status)", async () => {
  const { h, calls, worker, dispatch, settle } = await setup();
  dispatch(1000);
  assert.equal(h.last("http_call_dispatch"), "0");
  calls.shift()!(ok(503, "busy"));
  settle();
  assert.equal(h.last("http_response_context"), String(worker.rootContextId));
  assert.equal(h.last("http_response_headers"), "2");
  assert.equal(h.last("http_response_status"), "503");
  assert.equal(h.last("http_response_body"), "busy");
  assert.equal(h.last("proxy_status_code"), "0", "proxy_get_status is the context's status_code_, not the HTTP status");
});

test("a reset is delivered with no headers and no body, and proxy_get_status says BrokenConnection from then on (envoy context.cc Context::onHttpCallFailure)", async () => {
  const { h, calls, dispatch, settle } = await setup();
  dispatch(1000);
  calls.shift()!("reset");
  settle();
  assert.equal(h.last("http_response_headers"), "0");
  assert.equal(h.last("http_response_body_size"), "0");
  assert.equal(h.last("http_response_status"), "0", "no :status: the response map is not available");
  assert.equal(h.last("http_response_pairs"), "0", "getHeaderMapPairs of an absent map is Ok and empty");
  assert.equal(h.last("http_response_body"), "<none>", "getBuffer(HttpCallResponseBody) is NotFound");
  assert.equal(h.last("proxy_status_code"), String(Status.BrokenConnection));
  // The code is never reset: a later success still reads BrokenConnection, with its real :status.
  dispatch(1000);
  calls.shift()!(ok(200));
  settle();
  assert.equal(h.last("http_response_status"), "200");
  assert.equal(h.last("proxy_status_code"), String(Status.BrokenConnection));
});

test("a call that times out is answered by the router's 504 local reply (envoy router.cc Filter::onResponseTimeout, async_client_impl.h AsyncStreamImpl::sendLocalReply)", async () => {
  const { h, calls, dispatch, callbacks } = await setup();
  dispatch(300);
  h.clock.advanceTo(h.clock.nowMs() + 299);
  assert.equal(callbacks(), 0);
  h.clock.advanceTo(h.clock.nowMs() + 1);
  assert.equal(h.last("http_response_status"), "504");
  assert.equal(h.last("http_response_body"), "upstream request timeout");
  assert.equal(h.last("proxy_status_code"), "0");
  // The late answer is dropped (the handler is gone).
  calls.shift()!(ok(200));
  h.clock.advanceTo(h.clock.nowMs() + 10);
  assert.equal(callbacks(), 1);
});

test("a connection failure is answered by the router's 503 local reply (envoy router.cc Filter::onUpstreamReset)", async () => {
  const { h, calls, dispatch, settle } = await setup();
  dispatch(1000);
  calls.shift()!(null);
  settle();
  assert.equal(h.last("http_response_status"), "503");
  assert.match(h.last("http_response_body")!, /^upstream connect error or disconnect\/reset before headers/);
  assert.equal(h.last("proxy_status_code"), "0");
});

test("a timeout of 0 means no timeout; a negative one is BadArgument (envoy context.cc Context::httpCall)", async () => {
  const { h, calls, dispatch, settle, callbacks } = await setup();
  dispatch(0);
  assert.equal(h.last("http_call_dispatch"), "0");
  h.clock.advanceTo(h.clock.nowMs() + 3_600_000);
  assert.equal(callbacks(), 0);
  calls.shift()!(ok(200));
  settle();
  assert.equal(h.last("http_response_status"), "200");
  dispatch(-1 >>> 0);
  assert.equal(h.last("http_call_dispatch"), String(Status.BadArgument));
});

test("a call dispatched from a stream context is answered on the root context (cpp-host exports.cc http_call uses root_context())", async () => {
  const { h, calls, worker, settle } = await setup();
  const s = h.host.newStream({}, 0);
  s.decodeHeaders([[":method", "GET"], [":path", "/"], [":authority", "a"], ["x-scenario", "http-call"]], true);
  assert.equal(h.last("http_call_dispatch"), "0");
  s.encodeHeaders([[":status", "200"]], true);
  s.finish();
  calls.shift()!(ok(200, "late"));
  settle();
  assert.equal(h.last("http_response_context"), String(worker.rootContextId));
  assert.equal(h.last("http_response_body"), "late", "the stream is gone, the root still gets the answer");
});

test("a malformed trailer map does not stop a call: cpp-host's PairsUtil::toPairs reads it as none (exports.cc http_call)", async () => {
  const { h, calls, worker } = await setup();
  worker.vm.call("conformance_http_call_malformed_trailers", [], worker.rootContextId);
  assert.equal(h.last("http_call_malformed_trailers"), String(Status.Ok));
  assert.equal(calls.length, 1, "the call went out");
});

test("the response is read through the calling root context: its streams see it, another root context does not (envoy context.cc Context::getConstMap / getBuffer: rootContext()->http_call_response_)", async () => {
  const { h, calls, worker, dispatch, settle } = await setup();
  const s = h.host.newStream();
  const otherRoot = worker.vm.createRootContext();
  for (const [reader, want] of [
    [s.contextId, `${Status.Ok}:200`],
    [otherRoot, `${Status.NotFound}:0`],
  ] as const) {
    worker.vm.call("conformance_http_response_reader", [reader], worker.rootContextId);
    dispatch(1000);
    calls.shift()!(ok(200));
    settle();
    assert.equal(h.last("http_response_via"), want, `read from context ${reader}`);
  }
});
