// The stock-Envoy build on a host that answers proxy_http_call as Envoy's source does (src-host/host/
// http-call.ts): the metrics poller (assembly/route/metrics-poller.ts MetricsPoller.onResponse) must read
// the HTTP status from `:status` in the call's response headers, never from proxy_get_status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, type Cluster, type HttpCallOutcome } from "../../../src-host/host/cluster.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";
import { vllmPage, type EndpointLoad } from "../../../src-host/harness/vllm-page.ts";

const PODS = ["10.0.2.1:8000", "10.0.2.2:8000", "10.0.2.3:8000"];
const IDLE: EndpointLoad = { waiting: 0, running: 0, kv: 0.02 };
const SATURATED: EndpointLoad = { waiting: 40, running: 64, kv: 0.97 };

type Answer = EndpointLoad | "reset" | "refused" | "silent" | { status: number };

/** One metrics cluster per pod, answering as the pod's current state says. */
function metricsClusters(answers: Map<string, Answer>): ClusterRegistry {
  const registry = new ClusterRegistry();
  PODS.forEach((address, i) => {
    const cluster: Cluster = {
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch(_req, respond: (o: HttpCallOutcome) => void) {
        const a = answers.get(address)!;
        if (a === "silent") return;
        if (a === "reset") return respond("reset");
        if (a === "refused") return respond(null);
        if ("status" in a) return respond({ headers: [[":status", String(a.status)]], body: new TextEncoder().encode("oops"), trailers: [] });
        respond({ headers: [[":status", "200"], ["content-type", "text/plain; version=0.0.4"]], body: new TextEncoder().encode(vllmPage(a)), trailers: [] });
      },
    };
    registry.add(cluster);
  });
  return registry;
}

const config = {
  endpoints: PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })),
  metrics: { pollIntervalMs: 200, pollTimeoutMs: 150, snapshotTtlMs: 50 },
};

function stockHost(answers: Map<string, Answer>) {
  return pickerHost({ flavor: "envoy", workers: 2, config, clusters: metricsClusters(answers) });
}

test("the stock build routes by polled metrics on an Envoy-faithful host: every request goes to the idle endpoint (metrics-poller.ts MetricsPoller.onResponse reads :status; envoy context.cc Context::onHttpCallSuccess)", () => {
  const answers = new Map<string, Answer>([[PODS[0], SATURATED], [PODS[1], IDLE], [PODS[2], SATURATED]]);
  const h = stockHost(answers);
  h.clock.advanceTo(h.clock.nowMs() + 6 * 200); // six poll rounds
  const chosen: Array<string | null> = [];
  for (let i = 0; i < 8; i++) {
    const s = h.send(chat(text(100 + i, 600), [], `question ${i}`), [], { worker: i % 2 });
    chosen.push(h.chosen(s));
    h.complete(s);
  }
  assert.deepEqual(chosen, Array(8).fill(PODS[1]));
  assert.equal(h.counter("poll_failures"), 0);
  assert.equal(h.counter("decisions"), 8);
});

test("a failed call leaves proxy_get_status at BrokenConnection for good; later polls still count by :status (envoy context.cc Context::onHttpCallFailure never resets status_code_)", () => {
  const answers = new Map<string, Answer>([[PODS[0], "reset"], [PODS[1], SATURATED], [PODS[2], SATURATED]]);
  const h = stockHost(answers);
  h.clock.advanceTo(h.clock.nowMs() + 3 * 200);
  assert.ok(h.counter("poll_failures") >= 3, "resets are failures");
  // The reset endpoint recovers as the idle one; the others stay busy. Routing follows the new metrics.
  answers.set(PODS[0], IDLE);
  h.clock.advanceTo(h.clock.nowMs() + 3 * 200);
  const failures = h.counter("poll_failures");
  h.clock.advanceTo(h.clock.nowMs() + 3 * 200);
  assert.equal(h.counter("poll_failures"), failures, "successful polls after a failure are not failures");
  for (let i = 0; i < 4; i++) assert.equal(h.chosen(h.send(chat(text(200 + i, 600), [], "q"))), PODS[0]);
});

test("a 5xx answer, a refused connection (router 503) and a timeout (router 504) are poll failures; the endpoint is avoided from the first", () => {
  for (const bad of [{ status: 500 }, "refused", "silent"] as Answer[]) {
    const answers = new Map<string, Answer>([[PODS[0], IDLE], [PODS[1], SATURATED], [PODS[2], SATURATED]]);
    const h = stockHost(answers);
    h.clock.advanceTo(h.clock.nowMs() + 2 * 200);
    assert.equal(h.chosen(h.send(chat(text(300, 600), [], "q"))), PODS[0]);
    answers.set(PODS[0], bad);
    // The next poll goes out within one interval and fails (a timeout takes pollTimeoutMs), then the snapshot TTL.
    h.clock.advanceTo(h.clock.nowMs() + 200 + 150 + 60);
    assert.ok(h.counter("poll_failures") >= 1, `${JSON.stringify(bad)}: ${h.counter("poll_failures")} failures`);
    for (let i = 0; i < 4; i++) {
      assert.notEqual(h.chosen(h.send(chat(text(310 + i, 600), [], "q"))), PODS[0], JSON.stringify(bad));
    }
  }
});
