// assembly/picker/rule-selector.ts: Higress `_rules_` through the host. Each request uses the configuration of
// the first rule it matches (by route_name, :authority, cluster_name or route prefix, as Higress's rule matcher
// does), else the default one; each configuration keeps its own host snapshot and state, allocated on its first
// request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, StaticCluster } from "../../../src-host/host/cluster.ts";
import type { FilterStream } from "../../../src-host/host/filter-stream.ts";
import type { HeaderList } from "../../../src-host/host/header-map.ts";
import type { StreamInfo } from "../../../src-host/host/stream.ts";
import { chat, pickerHost, text, type PickerHarness } from "../../support/picker.ts";
import { vllmPage, type EndpointLoad } from "../../../src-host/harness/vllm-page.ts";

const DEBUG = "x-endpoint-picker-debug";
const BACKENDS = ["10.0.0.1:8000", "10.0.0.2:8000"];
const VLLM_CLUSTER = "outbound|8000||vllm.llm.svc.cluster.local";
const VLLM_PODS = ["10.1.0.1:8000", "10.1.0.2:8000"];

function clusterOf(name: string, pods: Array<{ address: string } & EndpointLoad>): StaticCluster {
  return new StaticCluster(
    name,
    pods.map((p) => ({ address: p.address, healthStatus: "Healthy", metrics: vllmPage(p) })),
  );
}

/** Sends a chat request on a stream with the given route/cluster and :authority. */
function send(h: PickerHarness, info: StreamInfo, authority = "gateway", headers: HeaderList = [], seed = 1): FilterStream {
  const bytes = new TextEncoder().encode(JSON.stringify(chat(text(seed, 600), [], "q" + seed)));
  const s = h.host.newStream({ clusterName: "backends", ...info });
  s.decodeHeaders(
    [
      [":method", "POST"],
      [":path", "/v1/chat/completions"],
      [":authority", authority],
      [":scheme", "http"],
      ["content-type", "application/json"],
      ["content-length", String(bytes.length)],
      ...headers,
    ],
    false,
  );
  s.decodeData(bytes, true);
  return s;
}

/** Whether the response carries the debug header (only configurations with debug.header set add it). */
function debugged(h: PickerHarness, s: FilterStream): boolean {
  h.complete(s);
  return s.state.responseHeaders!.get(DEBUG) !== undefined;
}

function harness(config: object, extra: StaticCluster[] = []): PickerHarness {
  const clusters = new ClusterRegistry();
  for (const c of extra) clusters.add(c);
  const h = pickerHost({ config, clusters });
  h.setPods(BACKENDS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  return h;
}

test("a request on a rule's route uses the rule's configuration, others the default one", () => {
  const h = harness({ debug: { header: false }, _rules_: [{ _match_route_: ["llm/chat"], debug: { header: true } }] });
  assert.equal(debugged(h, send(h, { routeName: "llm/chat" })), true);
  assert.equal(debugged(h, send(h, { routeName: "llm/other" })), false);
  assert.equal(debugged(h, send(h, {})), false, "no route_name");
  assert.equal(debugged(h, send(h, { routeName: "llm/chat/x" })), false, "route names match exactly");
  assert.equal(h.counter("decisions"), 4);
});

test("a rule's configuration replaces the default one instead of merging with it", () => {
  const h = harness({ debug: { header: true }, _rules_: [{ _match_route_: ["plain"], seed: 3 }] });
  assert.equal(debugged(h, send(h, { routeName: "other" })), true);
  assert.equal(debugged(h, send(h, { routeName: "plain" })), false);
});

test("rule weights decide for the rule's requests", () => {
  // Default: queue only, so the idle endpoint wins. Rule: kv cache only, so the endpoint with free KV wins.
  const h = harness({
    weights: { queue: 1, kvCache: 0, prefixCache: 0, inflight: 0 },
    _rules_: [{ _match_route_: ["kv"], weights: { queue: 0, kvCache: 1, prefixCache: 0, inflight: 0 } }],
  });
  h.setPods([
    { address: BACKENDS[0], waiting: 0, running: 1, kv: 0.9 },
    { address: BACKENDS[1], waiting: 8, running: 20, kv: 0.1 },
  ]);
  for (let i = 0; i < 3; i++) {
    const d = send(h, { routeName: "default-route" }, "gateway", [], 10 + i);
    assert.equal(h.chosen(d), BACKENDS[0]);
    h.complete(d);
    const r = send(h, { routeName: "kv" }, "gateway", [], 20 + i);
    assert.equal(h.chosen(r), BACKENDS[1]);
    h.complete(r);
  }
});

test("domain rules match the :authority without its port: *.suffix, prefix.* and exact", () => {
  const h = harness({
    debug: { header: false },
    _rules_: [
      { _match_domain_: ["*.example.com"], debug: { header: true } },
      { _match_domain_: ["api.*", "exact.host"], debug: { header: true } },
    ],
  });
  const cases: Array<[string, boolean]> = [
    ["a.example.com", true],
    ["a.b.example.com:8443", true],
    ["example.com", false],
    ["a.example.com.evil", false],
    ["api.internal", true],
    ["exact.host:80", true],
    ["exact.hostname", false],
    ["[::1]:8080", false],
    ["gateway", false],
  ];
  for (const [authority, expected] of cases) {
    assert.equal(debugged(h, send(h, {}, authority)), expected, authority);
  }
  assert.equal(h.counter("decisions"), cases.length);
});

test("service rules match cluster_name's fqdn, or fqdn:port, as Higress does", () => {
  const vllm8000 = clusterOf(VLLM_CLUSTER, VLLM_PODS.map((address) => ({ address })));
  const vllm9000 = clusterOf("outbound|9000||vllm.llm.svc.cluster.local", VLLM_PODS.map((address) => ({ address })));
  const other = clusterOf("outbound|8000||other.llm.svc.cluster.local", VLLM_PODS.map((address) => ({ address })));
  const byName = harness({ debug: { header: false }, _rules_: [{ _match_service_: ["vllm.llm.svc.cluster.local"], debug: { header: true } }] }, [vllm8000, vllm9000, other]);
  assert.equal(debugged(byName, send(byName, { clusterName: vllm8000.name })), true);
  assert.equal(debugged(byName, send(byName, { clusterName: vllm9000.name })), true);
  assert.equal(debugged(byName, send(byName, { clusterName: other.name })), false);
  assert.equal(debugged(byName, send(byName, { clusterName: "backends" })), false);
  assert.equal(byName.counter("decisions"), 4);

  const withPort = harness({ debug: { header: false }, _rules_: [{ _match_service_: ["vllm.llm.svc.cluster.local:8000"], debug: { header: true } }] }, [vllm8000, vllm9000]);
  assert.equal(debugged(withPort, send(withPort, { clusterName: vllm8000.name })), true);
  assert.equal(debugged(withPort, send(withPort, { clusterName: vllm9000.name })), false);
});

test("each configuration keeps its own host snapshot, even within the snapshot TTL", () => {
  const vllm = clusterOf(VLLM_CLUSTER, VLLM_PODS.map((address) => ({ address })));
  const h = harness({ metrics: { snapshotTtlMs: 60000 }, _rules_: [{ _match_service_: ["vllm.llm.svc.cluster.local"], metrics: { snapshotTtlMs: 60000 } }] }, [vllm]);
  for (let i = 0; i < 4; i++) {
    const d = send(h, { clusterName: "backends" }, "gateway", [], i);
    assert.ok(BACKENDS.includes(h.chosen(d)!), `default request ${i} went to ${h.chosen(d)}`);
    h.complete(d);
    const r = send(h, { clusterName: VLLM_CLUSTER }, "gateway", [], i);
    assert.ok(VLLM_PODS.includes(h.chosen(r)!), `rule request ${i} went to ${h.chosen(r)}`);
    h.complete(r);
  }
});

test("rules are tried in order and the first match wins", () => {
  const h = harness({
    debug: { header: false },
    _rules_: [
      { _match_domain_: ["*.example.com"], seed: 1 },
      { _match_route_: ["r"], debug: { header: true } },
    ],
  });
  assert.equal(debugged(h, send(h, { routeName: "r" }, "a.example.com")), false);
  assert.equal(debugged(h, send(h, { routeName: "r" }, "gateway")), true);
});

test("route prefix rules, and route-and-service rules that need both", () => {
  const vllm = clusterOf(VLLM_CLUSTER, VLLM_PODS.map((address) => ({ address })));
  const h = harness(
    {
      debug: { header: false },
      _rules_: [
        { _match_route_: ["both"], _match_service_: ["vllm.llm.svc.cluster.local"], debug: { header: true } },
        { _match_route_prefix_: ["llm-"], debug: { header: true } },
      ],
    },
    [vllm],
  );
  assert.equal(debugged(h, send(h, { routeName: "both", clusterName: VLLM_CLUSTER })), true);
  assert.equal(debugged(h, send(h, { routeName: "both", clusterName: "backends" })), false);
  assert.equal(debugged(h, send(h, { routeName: "llm-chat" })), true);
  assert.equal(debugged(h, send(h, { routeName: "chat-llm-" })), false);
  assert.equal(h.counter("decisions"), 4);
});

test("without a default configuration (only _rules_), requests no rule matches are left alone", () => {
  const h = harness({ _rules_: [{ _match_route_: ["r"] }] });
  const other = send(h, { routeName: "x" }, "gateway", [["x-gateway-destination-endpoint", "10.9.9.9:1"]]);
  assert.equal(h.chosen(other), null);
  assert.equal(other.state.properties.get("endpoint_picker.fallback"), undefined);
  assert.ok(!other.requestHeaders.some(([k]) => k === "x-gateway-destination-endpoint"), "a client's override is still removed");
  h.complete(other);
  assert.equal(h.counter("requests"), 0);
  const matched = send(h, { routeName: "r" });
  assert.ok(BACKENDS.includes(h.chosen(matched)!));
  h.complete(matched);
  assert.equal(h.counter("requests"), 1);
  assert.equal(h.counter("decisions"), 1);
});

test("a rule's state is allocated on its first request, not at configure time", () => {
  const rules = [0, 1, 2].map((i) => ({ _match_route_: [`r${i}`] }));
  const plain = harness({});
  const withRules = harness({ _rules_: rules, seed: 1 });
  const memory = (h: PickerHarness) => h.host.workers[0].vm.linearMemoryBytes();
  // The index of one configuration at the defaults holds 64 × 8192 entries of at least an 8-byte hash.
  const oneIndexAtLeast = 64 * 8192 * 8;
  const before = memory(withRules);
  assert.ok(before - memory(plain) < oneIndexAtLeast, `configured with 3 rules: ${before} bytes vs ${memory(plain)} without`);
  const s = send(withRules, { routeName: "r1" });
  assert.ok(BACKENDS.includes(withRules.chosen(s)!));
  withRules.complete(s);
  assert.ok(memory(withRules) - before >= oneIndexAtLeast, `after the first request on a rule: ${memory(withRules)} bytes`);
});

test("stock Envoy build: each rule's endpoints are its own host list", () => {
  const h = pickerHost({
    flavor: "envoy",
    config: {
      endpoints: [{ address: "10.0.2.1:8000", metricsCluster: "m" }],
      _rules_: [{ _match_route_: ["r"], endpoints: [{ address: "10.0.3.1:8000", metricsCluster: "m" }] }],
    },
  });
  for (let i = 0; i < 3; i++) {
    const d = send(h, { routeName: "other" }, "gateway", [], i);
    assert.equal(h.chosen(d), "10.0.2.1:8000");
    h.complete(d);
    const r = send(h, { routeName: "r" }, "gateway", [], i);
    assert.equal(h.chosen(r), "10.0.3.1:8000");
    h.complete(r);
  }
});

test("stock Envoy build: the default config and each rule poll their own endpoints' metrics", async () => {
  const { ClusterRegistry } = await import("../../../src-host/host/cluster.ts");
  
  const polled = new Map<string, number>();
  const clusters = new ClusterRegistry();
  for (const name of ["m-default", "m-rule"]) {
    clusters.add({
      name,
      hosts: () => [],
      dispatch(_req, respond) {
        polled.set(name, (polled.get(name) ?? 0) + 1);
        respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(vllmPage({ waiting: 1 })), trailers: [] });
      },
    });
  }
  const h = pickerHost({
    flavor: "envoy",
    workers: 2,
    clusters,
    config: {
      endpoints: [{ address: "10.0.2.1:8000", metricsCluster: "m-default" }],
      metrics: { pollIntervalMs: 100 },
      _rules_: [{ _match_route_: ["r"], endpoints: [{ address: "10.0.3.1:8000", metricsCluster: "m-rule" }], metrics: { pollIntervalMs: 100 } }],
    },
  });
  // A rule's state is created by its first request on each worker.
  for (let w = 0; w < 2; w++) h.complete(send(h, { routeName: "r" }, "gateway", [], w));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  assert.ok((polled.get("m-default") ?? 0) >= 8, `default polled ${polled.get("m-default")}`);
  assert.ok((polled.get("m-rule") ?? 0) >= 8, `rule polled ${polled.get("m-rule")}`);
  assert.ok((polled.get("m-rule") ?? 0) <= 12, "one worker polls each configuration, not every worker");
});

test("stock Envoy build: route, route-prefix and service rules read the names under xds (Envoy 1.33+ has no top-level route_name or cluster_name)", () => {
  const h = pickerHost({
    flavor: "envoy",
    config: {
      endpoints: [{ address: "10.0.2.1:8000", metricsCluster: "m" }],
      _rules_: [
        { _match_service_: ["vllm.llm.svc.cluster.local:8000"], endpoints: [{ address: "10.0.3.1:8000", metricsCluster: "m" }] },
        { _match_route_prefix_: ["llm-"], endpoints: [{ address: "10.0.4.1:8000", metricsCluster: "m" }] },
      ],
    },
  });
  const cases: Array<[StreamInfo, string]> = [
    [{ routeName: "other", clusterName: VLLM_CLUSTER }, "10.0.3.1:8000"],
    [{ routeName: "llm-chat" }, "10.0.4.1:8000"],
    [{ routeName: "chat" }, "10.0.2.1:8000"],
    [{ routeName: "llm-chat", clusterName: VLLM_CLUSTER }, "10.0.3.1:8000"],
  ];
  for (const [info, endpoint] of cases) {
    const s = send(h, info);
    assert.equal(h.chosen(s), endpoint, JSON.stringify(info));
    h.complete(s);
  }
});
