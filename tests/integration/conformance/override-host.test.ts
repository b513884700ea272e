// Where the router sends a request the plugin named a host for, by flavor (src-host/host/override-host.ts):
// stock Envoy's override_host policy takes the named host whatever its health (envoy source/extensions/
// load_balancing_policies/override_host/load_balancer.cc OverrideHostLoadBalancer::LoadBalancerImpl::findHost);
// Higress's override goes through LoadBalancerContextBase::selectOverrideHost, which only takes hosts whose
// health is in override_host_status (default UNKNOWN, HEALTHY, DEGRADED). Since stock Envoy will route to a
// dead pod it is told to, the stock build must never name a host its polls found failing
// (assembly/route/metrics-poller.ts marks it unhealthy, assembly/picker/decide.ts keeps only healthy candidates).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Router } from "../../../src-host/gateway/router.ts";
import { ClusterRegistry, StaticCluster, type Cluster, type HttpCallOutcome } from "../../../src-host/host/cluster.ts";
import { OVERRIDE_HEADER } from "../../../src-host/host/override-host.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";

const HOSTS = [
  { address: "10.0.7.1:8000", healthStatus: "Unhealthy", metrics: "" },
  { address: "10.0.7.2:8000", healthStatus: "Healthy", metrics: "" },
  { address: "10.0.7.3:8000", healthStatus: "Degraded", metrics: "" },
];

test("stock override_host routes to the named host even when it is Unhealthy; the first known entry wins (load_balancer.cc findHost, getSelectedHostsFromHeader)", () => {
  const router = new Router(new StaticCluster("c", HOSTS), "envoy");
  const routeFor = (value: string) => router.route({ overrideHost: null, requestHeaders: [[OVERRIDE_HEADER, value]] });
  assert.deepEqual(routeFor("10.0.7.1:8000"), { host: HOSTS[0], reason: "override" });
  assert.equal(routeFor(" 10.9.9.9:1 , 10.0.7.3:8000,10.0.7.2:8000")?.host, HOSTS[2]);
  assert.equal(routeFor("10.9.9.9:1")?.reason, "fallback:override-unknown-host");
});

test("Higress's override skips an Unhealthy host and takes a Degraded one (load_balancer_context_base.cc selectOverrideHost, default override_host_status)", () => {
  const router = new Router(new StaticCluster("c", HOSTS), "higress");
  const routeFor = (value: string) => router.route({ overrideHost: value, requestHeaders: [] });
  assert.equal(routeFor("10.0.7.1:8000")?.reason, "fallback:override-unhealthy-host");
  assert.deepEqual(routeFor("10.0.7.3:8000"), { host: HOSTS[2], reason: "override" });
});

test("the stock build stops naming an endpoint once a poll failed, on every worker, and names it again after a good poll (metrics-poller.ts FAILURES_BEFORE_UNHEALTHY)", () => {
  const pods = ["10.0.8.1:8000", "10.0.8.2:8000"];
  const down = new Set<string>();
  const clusters = new ClusterRegistry();
  pods.forEach((address, i) => {
    const c: Cluster = {
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch: (_req, respond: (o: HttpCallOutcome) => void) =>
        respond(down.has(address) ? null : { headers: [[":status", "200"]], body: new TextEncoder().encode(vllmPage({ waiting: i === 0 ? 0 : 20, kv: 0.1 })), trailers: [] }),
    };
    clusters.add(c);
  });
  const config = { endpoints: pods.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })), metrics: { pollIntervalMs: 100, snapshotTtlMs: 50 } };
  const h = pickerHost({ flavor: "envoy", workers: 2, config, clusters });
  h.clock.advanceTo(h.clock.nowMs() + 300);
  assert.equal(h.chosen(h.send(chat(text(600, 400), [], "q"))), pods[0], "the idle pod wins while it answers");
  down.add(pods[0]);
  h.clock.advanceTo(h.clock.nowMs() + 100 + 60); // one failed poll, then the snapshot TTL
  for (let i = 0; i < 8; i++) {
    const s = h.send(chat(text(610 + i, 400), [], "q"), [], { worker: i % 2 });
    assert.equal(h.chosen(s), pods[1], `request ${i}`);
    h.complete(s);
  }
  down.delete(pods[0]);
  h.clock.advanceTo(h.clock.nowMs() + 100 + 60);
  assert.equal(h.chosen(h.send(chat(text(630, 400), [], "q"))), pods[0]);
});

test("an endpoint named by host name is reported at configure time: override_host matches hosts by ip:port only (envoy load_balancer.cc findHost: crossPriorityHostMap is keyed by address()->asString(), a DNS cluster's hosts by their resolved IPs)", () => {
  const config = {
    endpoints: [
      { address: "10.0.9.1:8000", metricsCluster: "m0" },
      { address: "vllm-1.vllm.default.svc.cluster.local:8000", metricsCluster: "m1" },
    ],
  };
  const h = pickerHost({ flavor: "envoy", workers: 1, config, clusters: new ClusterRegistry() });
  const warnings = h.logs.filter((m) => m.includes("host name"));
  assert.ok(warnings.length >= 1, h.logs.join("\n"));
  assert.match(warnings[0], /endpoints\[1\]\.address: "vllm-1\.vllm\.default\.svc\.cluster\.local:8000" is a host name/);
  assert.ok(!h.logs.some((m) => m.includes("10.0.9.1:8000") && m.includes("host name")));
});

test("an IPv6 endpoint is named in the header as Envoy names the host, \"[\" + inet_ntop + \"]:port\" (envoy address_impl.cc Ipv6Instance), however the configuration wrote it", () => {
  const pods = ["[FD00:0:0:0:0:0:0:0A]:8000", "[fd00::b]:8000"];
  const registry = new ClusterRegistry();
  pods.forEach((_, i) => registry.add({
    name: `m${i}`,
    hosts: () => [],
    dispatch(_req, respond: (o: HttpCallOutcome) => void) {
      const page = vllmPage(i === 0 ? { waiting: 0, running: 0, kv: 0.01 } : { waiting: 30, running: 60, kv: 0.95 });
      respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(page), trailers: [] });
    },
  }));
  const config = { endpoints: pods.map((address, i) => ({ address, metricsCluster: `m${i}` })), metrics: { pollIntervalMs: 200, snapshotTtlMs: 50 } };
  const h = pickerHost({ flavor: "envoy", workers: 1, config, clusters: registry });
  h.clock.advanceTo(h.clock.nowMs() + 3 * 200);
  assert.equal(h.chosen(h.send(chat(text(7, 600), [], "q"))), "[fd00::a]:8000");
});
