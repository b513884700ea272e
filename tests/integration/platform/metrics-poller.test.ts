// assembly/platform/metrics-poller.ts through the stock Envoy build: what each poll asks for, that one worker of
// several polls, and how a poll's answer reaches the decision (parsed, unparseable, failed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, type Cluster, type HttpCallOutcome } from "../../../src-host/host/cluster.ts";
import type { HeaderList } from "../../../src-host/host/header-map.ts";
import { StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";
import { vllmPage, type EndpointLoad } from "../../../src-host/harness/vllm-page.ts";

const PODS = ["10.8.0.1:8000", "10.8.0.2:8000"];
const POLL_MS = 200;
const BODY = { model: "m", messages: [{ role: "user", content: "hello" }] };

type Answer = EndpointLoad | "garbage" | { status: number };

interface Polled {
  harness: StaticClusterHarness;
  /** Per metrics cluster, the request headers of each call it received. */
  calls: Map<string, HeaderList[]>;
  answers: Map<string, Answer>;
}

function polled(endpoints: object[], workers = 1, metrics: object = {}): Polled {
  const calls = new Map<string, HeaderList[]>();
  const answers = new Map<string, Answer>(PODS.map((p) => [p, { waiting: 0, kv: 0.1 }]));
  const clusters = new ClusterRegistry();
  PODS.forEach((address, i) => {
    const name = `metrics-${i}`;
    calls.set(name, []);
    const cluster: Cluster = {
      name,
      hosts: () => [],
      dispatch(req, respond: (o: HttpCallOutcome) => void) {
        calls.get(name)!.push(req.headers);
        const a = answers.get(address)!;
        const status = typeof a === "object" && "status" in a ? a.status : 200;
        const body = a === "garbage" ? "<html>not a metrics page</html>" : typeof a === "object" && "status" in a ? "oops" : vllmPage(a);
        respond({ headers: [[":status", String(status)]], body: new TextEncoder().encode(body), trailers: [] });
      },
    };
    clusters.add(cluster);
  });
  const harness = new StaticClusterHarness({
    flavor: "envoy",
    workers,
    clusters,
    pluginConfig: JSON.stringify({ endpoints, metrics: { pollIntervalMs: POLL_MS, snapshotTtlMs: 0, ...metrics } }),
    log: () => {},
  });
  return { harness, calls, answers };
}

function advance(p: Polled, ms: number): void {
  p.harness.clock.advanceTo(p.harness.clock.nowMs() + ms);
}

const header = (h: HeaderList, name: string) => h.find(([k]) => k === name)?.[1];

function route(p: Polled): string | null {
  const s = p.harness.send(BODY);
  const chosen = p.harness.chosen(s);
  p.harness.complete(s);
  return chosen;
}

test("each poll is a GET of the endpoint's metrics path on its own metrics cluster, with its authority", () => {
  const p = polled([
    { address: PODS[0], metricsCluster: "metrics-0" },
    { address: PODS[1], metricsCluster: "metrics-1", metricsPath: "/custom/metrics", authority: "pod-b.internal" },
  ], 1, { path: "/stats/prometheus" });
  advance(p, POLL_MS * 3);
  const [a, b] = [p.calls.get("metrics-0")!, p.calls.get("metrics-1")!];
  assert.ok(a.length >= 2 && b.length >= 2, `polled on every interval: ${a.length}, ${b.length}`);
  assert.equal(header(a[0], ":method"), "GET");
  assert.equal(header(a[0], ":path"), "/stats/prometheus", "metrics.path for an endpoint without its own");
  assert.equal(header(a[0], ":authority"), PODS[0], "the address when no authority is set");
  assert.equal(header(b[0], ":path"), "/custom/metrics");
  assert.equal(header(b[0], ":authority"), "pod-b.internal");
});

test("with several workers only one polls: one call per endpoint and interval", () => {
  const p = polled(PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })), 3);
  advance(p, POLL_MS * 10);
  const one = polled(PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })), 1);
  advance(one, POLL_MS * 10);
  for (const name of ["metrics-0", "metrics-1"]) {
    assert.equal(p.calls.get(name)!.length, one.calls.get(name)!.length, `${name}: three workers poll as often as one`);
  }
});

test("polled load decides, on every worker: the idle endpoint wins, and wins again when the load moves", () => {
  const p = polled(PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })), 2);
  p.answers.set(PODS[0], { waiting: 30, running: 60, kv: 0.9 });
  advance(p, POLL_MS * 2);
  assert.deepEqual([route(p), route(p)], [PODS[1], PODS[1]], "both workers see the poller's result");
  p.answers.set(PODS[0], { waiting: 0, kv: 0.05 });
  p.answers.set(PODS[1], { waiting: 30, running: 60, kv: 0.9 });
  advance(p, POLL_MS * 2);
  assert.deepEqual([route(p), route(p)], [PODS[0], PODS[0]]);
});

test("an unparseable page is a parse error, not a failed poll; a failed poll is counted and the endpoint is not named", () => {
  const p = polled(PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })));
  p.answers.set(PODS[1], "garbage");
  advance(p, POLL_MS * 2);
  assert.ok(p.harness.counter("metrics_parse_errors") > 0);
  assert.equal(p.harness.counter("poll_failures"), 0, "a 200 with a bad page is not a failed poll");
  p.answers.set(PODS[1], { status: 503 });
  p.answers.set(PODS[0], { waiting: 30, running: 60, kv: 0.9 });
  advance(p, POLL_MS * 2);
  assert.ok(p.harness.counter("poll_failures") > 0);
  // The busy endpoint still answers its polls; the failing one, though idle before, is not named.
  for (let i = 0; i < 4; i++) assert.equal(route(p), PODS[0]);
});
