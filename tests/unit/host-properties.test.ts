// src-host/host/properties.ts: the names Envoy serves per gateway. Higress's Envoy keeps the top-level
// `route_name` and `cluster_name` tokens; stock Envoy (1.33 and later) answers them only under `xds`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveProperty } from "../../src-host/host/properties.ts";
import { StreamState } from "../../src-host/host/stream.ts";
import { RESPONSE_FLAG_BITS } from "../../src-host/host/response-flags.ts";

const plugin = { pluginName: "p", rootId: "r", vmId: "v" };
const text = (v: Uint8Array | null) => (v === null ? null : new TextDecoder().decode(v));

function answer(path: string[], flavor: "envoy" | "higress"): string | null {
  const stream = new StreamState(2, { routeName: "llm/chat", clusterName: "outbound|8000||vllm" }, 0);
  return text(resolveProperty(path, plugin, stream, new Map(), flavor));
}

test("stock Envoy serves the route and cluster names only under xds; Higress at the top level too", () => {
  assert.equal(answer(["xds", "route_name"], "envoy"), "llm/chat");
  assert.equal(answer(["xds", "cluster_name"], "envoy"), "outbound|8000||vllm");
  assert.equal(answer(["route_name"], "envoy"), null);
  assert.equal(answer(["cluster_name"], "envoy"), null);
  assert.equal(answer(["route_name"], "higress"), "llm/chat");
  assert.equal(answer(["cluster_name"], "higress"), "outbound|8000||vllm");
  assert.equal(answer(["xds", "route_name"], "higress"), "llm/chat");
});

test("response.flags is Envoy's int64 bit mask, 0 until a flag is set; upstream.address only once a host was chosen", () => {
  const stream = new StreamState(2, {}, 0);
  const flags = () => new DataView(resolveProperty(["response", "flags"], plugin, stream, new Map(), "envoy")!.buffer).getBigInt64(0, true);
  const upstream = () => text(resolveProperty(["upstream", "address"], plugin, stream, new Map(), "higress"));
  assert.equal(flags(), 0n);
  assert.equal(upstream(), null);
  stream.responseFlags |= RESPONSE_FLAG_BITS.UC;
  stream.upstreamAddress = "10.0.0.1:8000";
  assert.equal(flags(), 0x40n, "stream_info.h UpstreamConnectionTermination");
  assert.equal(upstream(), "10.0.0.1:8000");
});

test("response.code_details answers only once details were set (filters/common/expr/context.cc ResponseWrapper CodeDetails)", () => {
  const stream = new StreamState(2, {}, 0);
  const details = () => text(resolveProperty(["response", "code_details"], plugin, stream, new Map(), "envoy"));
  assert.equal(details(), null);
  stream.responseCodeDetails = "upstream_reset_before_response_started{connection_termination}";
  assert.equal(details(), "upstream_reset_before_response_started{connection_termination}");
});

test("request.size is the Content-Length when the request has one, request.total_size adds the headers' key and value bytes, the query stops at a fragment, and connection_id is a top-level token (filters/common/expr/context.cc RequestWrapper; wasm context.cc Context::findValue)", () => {
  const int = (v: Uint8Array | null) => (v === null ? null : new DataView(v.buffer).getBigInt64(0, true));
  const stream = new StreamState(2, { connectionId: 7 }, 0);
  const ask = (path: string[]) => resolveProperty(path, plugin, stream, new Map(), "envoy");
  stream.requestHeaders.set([[":path", "/v1/chat?a=1#frag"], ["content-length", "120"]], true);
  stream.requestBodySize = 20;
  assert.equal(int(ask(["request", "size"])), 120n);
  assert.equal(int(ask(["request", "total_size"])), BigInt(20 + ":path".length + "/v1/chat?a=1#frag".length + "content-length".length + 3));
  assert.equal(text(ask(["request", "query"])), "a=1");
  assert.equal(int(ask(["connection_id"])), 7n);
  stream.requestHeaders.set([[":path", "/"], ["content-length", "many"]], true);
  assert.equal(ask(["request", "size"]), null, "a Content-Length that is not a number answers nothing");
  stream.requestHeaders.set([[":path", "/"]], true);
  assert.equal(int(ask(["request", "size"])), 20n, "without one, the bytes received");
});
