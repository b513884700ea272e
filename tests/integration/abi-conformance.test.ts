// The ABI layer and the host against each other: every host function the plugin uses, with the exact
// status codes and byte layouts of proxy-wasm 0.2.1 and Envoy's semantics.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../src-host/host/abi.ts";
import { serializeHeaderMap, toPairs } from "../../src-host/host/header-map.ts";
import type { Cluster } from "../../src-host/host/cluster.ts";
import { conformanceHost } from "../support/conformance.ts";

// The spec's example: {{"a": "1"}, {"b": "22"}} (abi-versions/v0.2.1 "Serialization").
const SPEC_EXAMPLE = Uint8Array.from([
  2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0x61, 0, 0x31, 0, 0x62, 0, 0x32, 0x32, 0,
]);

const metricsCluster = (respondAfterMs: number | null): Cluster => ({
  name: "metrics",
  hosts: () => [],
  dispatch(_req, respond) {
    if (respondAfterMs === null) return;
    setImmediate(() => {});
    pending.push({ at: respondAfterMs, respond });
  },
});
let pending: Array<{ at: number; respond: (r: any) => void }> = [];

test("host header-map codec matches the spec's byte layout", () => {
  assert.deepEqual(serializeHeaderMap([["a", "1"], ["b", "22"]]), SPEC_EXAMPLE);
});

test("a map a module passes in reads as cpp-host's PairsUtil::toPairs does: malformed is empty, not an error", () => {
  assert.deepEqual(toPairs(SPEC_EXAMPLE), [["a", "1"], ["b", "22"]]);
  assert.deepEqual(toPairs(new Uint8Array(0)), []);
  assert.deepEqual(toPairs(Uint8Array.of(0)), [], "the one-byte empty map");
  assert.deepEqual(toPairs(SPEC_EXAMPLE.subarray(0, SPEC_EXAMPLE.length - 1)), [], "a missing NUL");
  assert.deepEqual(toPairs(Uint8Array.of(...SPEC_EXAMPLE, 0)), [], "a byte left over");
  const many = serializeHeaderMap(Array.from({ length: 1025 }, (_, i): [string, string] => [`k${i}`, "v"]));
  assert.deepEqual(toPairs(many), [], "over PROXY_WASM_HOST_PAIRS_MAX_COUNT");
  assert.equal(toPairs(serializeHeaderMap(Array.from({ length: 1024 }, (_, i): [string, string] => [`k${i}`, "v"]))).length, 1024);
});

test("host header-map codec: the ASCII fast path and the UTF-8 path give the same layout", () => {
  const ascii: Array<[string, string]> = [[":method", "POST"], ["content-type", "application/json"], ["x-empty", ""]];
  const utf8: Array<[string, string]> = [["x-name", "café ✓"], ["x-emoji", "🙂"]];
  for (const pairs of [ascii, utf8, [...ascii, ...utf8]]) {
    const bytes = serializeHeaderMap(pairs);
    assert.deepEqual(toPairs(bytes), pairs);
    const size = 4 + pairs.length * 8 + pairs.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v) + 2, 0);
    assert.equal(bytes.length, size);
  }
});

test("host header-map codec: a map larger than the reused buffer, then a small one, serialize exactly", () => {
  const big: Array<[string, string]> = Array.from({ length: 300 }, (_, i) => [`x-h${i}`, "é".repeat(20) + "v".repeat(i)]);
  const bigBytes = serializeHeaderMap(big);
  assert.deepEqual(toPairs(bigBytes), big);
  assert.deepEqual(serializeHeaderMap([["a", "1"], ["b", "22"]]), SPEC_EXAMPLE);
  assert.deepEqual(toPairs(bigBytes), big, "an earlier result is not overwritten by a later serialization");
});

test("the plugin's header-map writer and reader match the spec's byte layout", async () => {
  const h = await conformanceHost();
  const vm = h.host.workers[0].vm;
  const ex = vm.instance.exports as any;
  const ptr = ex.conformance_serialize_example();
  const len = ex.conformance_serialized_length();
  assert.deepEqual(vm.memory.read(ptr, len), SPEC_EXAMPLE);

  const parse = (bytes: Uint8Array) => {
    const p = ex.conformance_alloc(Math.max(1, bytes.length));
    new Uint8Array((ex.memory as WebAssembly.Memory).buffer).set(bytes, p);
    ex.conformance_parse(p, bytes.length);
    return h.last("parse");
  };
  assert.equal(parse(SPEC_EXAMPLE), "a=1;b=22;");
  assert.equal(parse(Uint8Array.of(0)), "");
  assert.equal(parse(new Uint8Array(0)), "");
  assert.equal(parse(SPEC_EXAMPLE.subarray(0, 12)), "malformed");
  // A count that lies about the data: the reader stops at the first pair that runs past the end.
  assert.match(parse(SPEC_EXAMPLE.subarray(0, 26))!, /^short:a=1;$/);
});

test("root context: configuration, properties, shared data CAS, queues, metrics, ticks and HTTP calls", async () => {
  pending = [];
  const h = await conformanceHost({ logLevel: 1 }, [metricsCluster(5)]);
  const expect = (name: string, value: string) => assert.equal(h.last(name), value, name);
  expect("vm_config", "vm-config");
  expect("plugin_config", "conformance");
  // envoy context.cc Context::getBuffer: the VM configuration in any callback (buffer_.set(wasm()->vm_configuration())),
  // the plugin's only while its temp_plugin_ is set: in the root's on_context_create and on_configure (cpp-host
  // ContextBase::onStart, onConfigure), not in on_vm_start.
  expect("configure_vm_config", `${Status.Ok}:vm-config`);
  expect("create_plugin_config", `${Status.Ok}:conformance`);
  expect("vm_start_plugin_config", `${Status.NotFound}:`);
  expect("log_level", "1");
  expect("time_nonzero", "true");
  expect("prop_root_id", "conformance_root");
  expect("prop_vm_id", "conformance_vm");
  expect("prop_name", "conformance_plugin");
  expect("prop_missing", String(Status.NotFound));
  // envoy context.cc Context::getBuffer never returns null for a body (Buffer::set returns this): on a root
  // context the request body is there and empty, so cpp-host exports.cc get_buffer_bytes is Ok with nothing.
  expect("root_request_body", `${Status.Ok}:0`);
  expect("buffer_status_config", String("conformance".length));
  // Context::setProperty: a root context has no stream info, so NotFound, and nothing is there to read back.
  expect("set_property", String(Status.NotFound));
  expect("get_set_property", "<none>");

  expect("shared_get_missing", String(Status.NotFound));
  // Shared data is process-wide: the canary VM ran first, so only its set found a new key (which succeeds
  // whatever the cas); the worker's set with the same made-up cas then mismatches.
  assert.deepEqual(h.values("shared_set_new"), ["0", String(Status.CasMismatch)]);
  expect("shared_get", "v1");
  expect("shared_set_cas_ok", "0");
  expect("shared_set_cas_stale", String(Status.CasMismatch));
  expect("shared_set_cas_zero", "0");
  expect("shared_cas_changed", "true");

  expect("queue_register", "0");
  expect("queue_resolve_missing", String(Status.NotFound));
  expect("queue_dequeue_empty", String(Status.Empty));
  expect("queue_enqueue", "0");
  // on_queue_ready is posted to the registering worker's dispatcher (envoy wasm.cc Wasm::callOnThreadFunction):
  // not during the configure that enqueued.
  assert.deepEqual(h.values("queue_ready"), []);
  expect("queue_dequeue", "item-1");
  expect("queue_bad_id", String(Status.NotFound));

  expect("metric_increment_zero", String(Status.BadArgument));
  expect("metric_increment_negative", String(Status.BadArgument));
  expect("metric_increment", "0");
  // The stat is process-wide too: the worker sees the canary's increments.
  assert.deepEqual(h.values("metric_get"), ["5", "10"]);
  expect("metric_gauge_record", "0");
  expect("metric_gauge_decrement", "0");
  expect("metric_gauge_get", "40");
  expect("metric_histogram_record", "0");
  expect("metric_unknown", String(Status.NotFound));
  expect("metric_bad_type", String(0xffffffff));

  expect("http_call_missing_authority", String(Status.BadArgument));
  expect("http_call_unknown_cluster", String(Status.BadArgument));
  expect("http_call", "0");
  expect("http_call_id_nonzero", "true");
  // cpp-host wasm.h nextHttpCallId: tokens step by kCalloutIncrement (4) from CalloutType::HttpCall (0), per VM.
  assert.deepEqual(h.values("http_call_token"), ["4", "4"]);
  expect("tick_set", "0");

  // Canary and worker each configured: one canary plus one worker.
  assert.equal(h.values("plugin_config").length, 2);
  // vm_start comes before configure in each VM.
  const order = h.checks.map(([n]) => n).filter((n) => n === "vm_config" || n === "plugin_config");
  assert.deepEqual(order, ["vm_config", "plugin_config", "vm_config", "plugin_config"]);

  // Ticks: period 10 ms, the plugin stops them after the second.
  h.clock.advanceTo(h.clock.nowMs() + 100);
  assert.deepEqual(h.values("tick"), ["1", "2"]);
  // Only the worker's enqueue is delivered: the canary that enqueued first is gone by then.
  assert.deepEqual(h.values("queue_ready"), ["true"]);

  // The HTTP call is answered asynchronously, with headers and body readable in the callback.
  for (const p of pending) p.respond({ headers: [[":status", "200"], ["content-type", "text/plain"]], body: new TextEncoder().encode("ok-body"), trailers: [] });
  assert.equal(h.last("http_response_headers"), undefined, "answers come on a later turn, not inside the dispatch");
  h.clock.advanceTo(h.clock.nowMs());
  expect("http_response_headers", "2");
  expect("http_response_status", "200");
  expect("http_response_body", "ok-body");
  expect("http_response_content_type", "text/plain");
  expect("effective_context_root", "0");
  expect("effective_context_bad", String(Status.BadArgument));
  // Stats are process-wide: canary and worker defined the same counter.
  assert.equal(h.host.stats()["conformance_requests"], 10);
});

test("an HTTP call that never answers is answered at its timeout by the router's 504 (see tests/conformance/http-call.test.ts)", async () => {
  const h = await conformanceHost({}, [metricsCluster(null)]);
  assert.equal(h.last("http_response_headers"), undefined);
  h.clock.advanceTo(h.clock.nowMs() + 1500);
  assert.equal(h.last("http_response_status"), "504");
  assert.equal(h.last("http_response_body"), "upstream request timeout");
});

test("proc_exit is logged and does not unwind the module", async () => {
  const h = await conformanceHost({ pluginConfig: "proc-exit" });
  assert.equal(h.last("after_proc_exit"), "alive");
  assert.ok(h.logs.some((m) => m.includes("proc_exit(3)")));
});
