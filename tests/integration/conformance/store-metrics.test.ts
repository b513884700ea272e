// Higress's store_metrics as its patched HTTP health checker does it (higress-group/envoy source/extensions/
// health_checkers/http/health_checker_impl.cc: HttpActiveHealthCheckSession::healthCheckResult stores every
// completed probe's body, invalidateProbeResponse clears it to "" on a timeout, reset or disconnect), checked on
// src-host/gateway/health-checker.ts HealthChecker.record; and how the Higress build treats the Healthy host with
// empty metrics that this produces (assembly/platform/endpoint-refresh.ts applyEndpointMetrics: unknown, not idle).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HealthChecker } from "../../../src-host/gateway/health-checker.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";

/** A /metrics server whose answer the test sets: a status and body, or silence. */
async function metricsServer() {
  const state = { status: 200, body: "vllm:num_requests_waiting 0\n", silent: false, resetAfterHeaders: false };
  const server: Server = createServer((_req, res) => {
    if (state.silent) return;
    if (state.resetAfterHeaders) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("vllm:num_requests_waiting 1");
      setTimeout(() => res.socket?.destroy(), 5);
      return;
    }
    res.writeHead(state.status, { "content-type": "text/plain" });
    res.end(state.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  return { state, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test("every completed probe stores its body whatever its status; a timeout or reset stores \"\" (health_checker_impl.cc healthCheckResult, invalidateProbeResponse)", async () => {
  const m = await metricsServer();
  const checker = new HealthChecker("c", [m.address], { intervalMs: 60_000, timeoutMs: 150, unhealthyThreshold: 3 });
  const host = () => checker.hosts()[0];
  await checker.checkNow();
  assert.equal(host().healthStatus, "Healthy");
  assert.equal(host().metrics, "vllm:num_requests_waiting 0\n");

  m.state.status = 503;
  m.state.body = "overloaded\n";
  await checker.checkNow();
  assert.equal(host().metrics, "overloaded\n", "a 503 probe's body is stored");
  assert.equal(host().healthStatus, "Healthy", "one failure is below unhealthyThreshold 3");

  m.state.silent = true;
  await checker.checkNow();
  assert.equal(host().metrics, "", "a timed-out probe clears the stored body");
  assert.equal(host().healthStatus, "Healthy", "so a Healthy host reports empty metrics");

  m.state.silent = false;
  m.state.status = 200;
  m.state.body = "vllm:num_requests_waiting 2\n";
  await checker.checkNow();
  assert.equal(host().metrics, "vllm:num_requests_waiting 2\n");

  m.state.resetAfterHeaders = true;
  await checker.checkNow();
  assert.equal(host().metrics, "", "a reset mid-body clears it too");
});

test("the Higress build treats a Healthy host with empty metrics as unknown, not as idle (endpoint-refresh.ts applyEndpointMetrics)", () => {
  const h = pickerHost({ flavor: "higress" });
  h.setPods([
    { address: "10.0.6.1:8000", waiting: 3, running: 6, kv: 0.5 },
    { address: "10.0.6.2:8000", waiting: 3, running: 6, kv: 0.5 },
  ]);
  // The second host's probe timed out: Healthy, metrics "".
  h.cluster.hostList[1].metrics = "";
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  const chosen = new Map<string, number>();
  for (let i = 0; i < 6; i++) {
    const s = h.send(chat(text(500 + i, 500), [], "q"));
    chosen.set(h.chosen(s)!, (chosen.get(h.chosen(s)!) ?? 0) + 1);
    h.complete(s);
  }
  assert.deepEqual([...chosen.keys()], ["10.0.6.1:8000"], "an empty page earns no queue or KV credit");
  assert.equal(h.counter("metrics_parse_errors"), 0, "an empty page is not a parse error");
  // With its metrics back, the host competes again.
  h.cluster.hostList[1].metrics = vllmPage({ waiting: 0, running: 0, kv: 0.05 });
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  assert.equal(h.chosen(h.send(chat(text(520, 500), [], "q"))), "10.0.6.2:8000");
});
