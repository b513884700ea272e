// Endpoint-side failures: metrics missing, stale, or cut at the gateway's 64 KiB in the middle of a family the
// picker reads; the override host call failing; the whole host list replaced at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../src-host/host/abi.ts";
import { FaultPlan } from "../../src-host/fuzz/fault-plan.ts";
import { GATEWAY_METRICS_CUT } from "../../src-host/fuzz/metrics-text.ts";
import { pickerCounters, requestViolations, sendBody } from "../../src-host/fuzz/picker-driver.ts";
import { completeStream } from "../../src-host/harness/plugin-request.ts";
import { chat, pickerHost, text } from "../support/picker.ts";
import { vllmPage } from "../../src-host/harness/vllm-page.ts";

const [A, B] = ["10.9.0.1:8000", "10.9.0.2:8000"];
const body = (i: number) => new TextEncoder().encode(JSON.stringify(chat(text(i, 900), [], "q" + i)));

test("endpoints without metrics are still routed to, on in-flight load alone", () => {
  const h = pickerHost();
  h.cluster.hostList = [A, B].map((address) => ({ address, healthStatus: "Healthy", metrics: "" }));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  const seen = new Set<string>();
  const open = [0, 1, 2, 3].map((i) => sendBody(h.host, body(i)));
  for (const s of open) seen.add(h.chosen(s)!);
  assert.deepEqual([...seen].sort(), [A, B]);
  open.forEach((s) => completeStream(s));
  assert.equal(h.host.traps, 0);
});

test("a /metrics body cut at 64 KiB inside the waiting family: the cut line is not read as a smaller value", () => {
  const h = pickerHost({ config: { weights: { queue: 1, kvCache: 0, prefixCache: 0, inflight: 0 } } });
  const line = 'vllm:num_requests_waiting{engine="0",model_name="m"} 100\n';
  // A's page ends, after the cut, with "...waiting{...} 1": read as a value it would make A the idle one.
  const before = GATEWAY_METRICS_CUT - (line.indexOf("} 1") + 3);
  let filler = "";
  for (let i = 0; filler.length + 40 < before; i++) filler += `vllm:filler{i="${i}"} ${i}\n`;
  filler += "#" + " ".repeat(before - filler.length - 2) + "\n";
  const pageA = (filler + line).slice(0, GATEWAY_METRICS_CUT);
  assert.ok(pageA.endsWith("} 1"), pageA.slice(-20));
  h.cluster.hostList = [
    { address: A, healthStatus: "Healthy", metrics: pageA },
    { address: B, healthStatus: "Healthy", metrics: vllmPage({ waiting: 5, running: 1 }) },
  ];
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  for (let i = 0; i < 4; i++) {
    const s = sendBody(h.host, body(i));
    assert.equal(h.chosen(s), B, "A has no readable queue signal; B, with one, scores higher");
    completeStream(s);
  }
  assert.equal(h.host.traps, 0);
});

function stockHost(metrics: object, bAnswers: () => boolean) {
  const h = pickerHost({
    flavor: "envoy",
    config: { endpoints: [A, B].map((address, i) => ({ address, metricsCluster: `m${i}` })), weights: { queue: 1, kvCache: 0, prefixCache: 0, inflight: 0 }, metrics },
  });
  [A, B].forEach((address, i) =>
    h.host.clusters.add({
      name: `m${i}`,
      hosts: () => [],
      dispatch: (_req, respond) => {
        if (address === B && !bAnswers()) return; // no answer: the call times out
        respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(vllmPage({ waiting: address === A ? 9 : 3, running: 1 })), trailers: [] });
      },
    }),
  );
  return h;
}

test("stock build: metrics older than staleAfterMs are ignored", () => {
  let up = true;
  // B's poll hangs (no timeout within the test), so its last record simply ages.
  const h = stockHost({ pollIntervalMs: 100, pollTimeoutMs: 60000, staleAfterMs: 500, snapshotTtlMs: 0 }, () => up);
  h.clock.advanceTo(h.clock.nowMs() + 500);
  let s = sendBody(h.host, body(1));
  assert.equal(h.chosen(s), B, "fresh metrics: B (3 waiting) beats A (9)");
  completeStream(s);
  up = false;
  h.clock.advanceTo(h.clock.nowMs() + 2000);
  s = sendBody(h.host, body(2));
  // B's record is stale: without a queue signal it scores 0 on the only weighted signal; A has one.
  assert.equal(h.chosen(s), A);
  completeStream(s);
  assert.equal(h.host.traps, 0);
});

test("stock build: failed polls do not make an endpoint's last metrics look fresh",
  () => {
    let up = true;
    const h = stockHost({ pollIntervalMs: 50, pollTimeoutMs: 100, staleAfterMs: 200, snapshotTtlMs: 0 }, () => up);
    h.clock.advanceTo(h.clock.nowMs() + 300);
    up = false;
    // Two failed polls (fewer than the three that mark B unhealthy), 400 ms after B's last answer.
    h.clock.advanceTo(h.clock.nowMs() + 400);
    const s = sendBody(h.host, body(3));
    assert.equal(h.chosen(s), A, "B's metrics are 400 ms old, past staleAfterMs");
  });

test("the override host call failing is a counted override_failed fail-open without a lease", () => {
  const plan = new FaultPlan();
  const h = pickerHost({ fault: plan.hook });
  h.setPods([A, B].map((address) => ({ address })));
  plan.fail("proxy_set_upstream_override_host", 1, { status: Status.InternalFailure }, true);
  const before = pickerCounters(h.host);
  const s = sendBody(h.host, body(1));
  assert.deepEqual(requestViolations(h.host, s, before, 0, new Set([A, B])), []);
  assert.equal((pickerCounters(h.host).get("fallback.override_failed") ?? 0) - (before.get("fallback.override_failed") ?? 0), 1);
  assert.equal(pickerCounters(h.host).get("inflight"), 0);
  completeStream(s);
  assert.equal(pickerCounters(h.host).get("inflight"), 0);
});

test("endpoints replaced entirely while at maxEndpoints: the first request after the change is still routed",
  () => {
    const h = pickerHost({ config: { limits: { maxEndpoints: 2 } } });
    h.setPods([A, B].map((address) => ({ address })));
    completeStream(sendBody(h.host, body(1)));
    h.setPods(["10.9.0.3:8000", "10.9.0.4:8000"].map((address) => ({ address })));
    const s = sendBody(h.host, body(2));
    assert.ok(["10.9.0.3:8000", "10.9.0.4:8000"].includes(h.chosen(s)!), `fail-open: ${[...pickerCounters(h.host)].filter(([k, v]) => k.startsWith("fallback") && v > 0)}`);
  });
