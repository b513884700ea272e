// Active health checking as Higress's store_metrics check does it: the /metrics body cut at 64 KiB, Envoy's
// thresholds and start-up rule, and the router skipping hosts that turned Unhealthy. Also the per-upstream
// clusters the stock build polls through proxy_http_call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { HealthChecker, METRICS_BODY_LIMIT_BYTES } from "../../src-host/gateway/health-checker.ts";
import { HttpCallCluster, metricsClusterName } from "../../src-host/gateway/http-call-cluster.ts";
import type { HttpCallOutcome } from "../../src-host/host/cluster.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { deadAddress, send } from "../support/node-upstreams.ts";

const { gateway, upstream, onClose } = gatewayHarness();

test("the stored metrics are the first 64 KiB of the body, cut at a byte boundary even mid-line or mid-character", async () => {
  const a = await upstream("a");
  const checker = new HealthChecker("c", [a.address], { intervalMs: 60_000, timeoutMs: 1000 });
  const lines: string[] = [];
  for (let i = 0; lines.join("").length < 3 * METRICS_BODY_LIMIT_BYTES; i++) lines.push(`vllm:num_requests_waiting{pod="p${i}"} ${i}\n`);
  a.metricsText = lines.join("");
  await checker.checkNow();
  const stored = checker.hosts()[0].metrics;
  assert.equal(stored, a.metricsText.slice(0, METRICS_BODY_LIMIT_BYTES));
  assert.ok(!stored.endsWith("\n"), "this page is cut mid-line");

  // Two-byte characters after a one-byte prefix: byte 65536 falls inside a character.
  a.metricsText = "x" + "é".repeat(METRICS_BODY_LIMIT_BYTES);
  await checker.checkNow();
  const oracle = new TextDecoder().decode(Buffer.from(a.metricsText).subarray(0, METRICS_BODY_LIMIT_BYTES));
  assert.equal(checker.hosts()[0].metrics, oracle);

  a.metricsText = "small page\n";
  await checker.checkNow();
  assert.equal(checker.hosts()[0].metrics, "small page\n");
});

test("Envoy health semantics: Unhealthy until the first pass, thresholds afterwards", async () => {
  const a = await upstream("a");
  const checker = new HealthChecker("c", [a.address], { intervalMs: 60_000, timeoutMs: 1000, unhealthyThreshold: 2, healthyThreshold: 3 });
  const status = () => checker.hosts()[0].healthStatus;
  assert.equal(status(), "Unhealthy");
  assert.equal(new HealthChecker("c", [a.address], { intervalMs: 1, timeoutMs: 1, startHealthy: true }).hosts()[0].healthStatus, "Healthy");
  await checker.checkNow();
  assert.equal(status(), "Healthy", "at start-up one passing check is enough");
  const goodMetrics = checker.hosts()[0].metrics;

  a.metricsStatus = 500;
  a.metricsText = "broken";
  await checker.checkNow();
  assert.equal(status(), "Healthy", "one failure is below the threshold");
  await checker.checkNow();
  assert.equal(status(), "Unhealthy");
  assert.notEqual(goodMetrics, "broken");
  assert.equal(checker.hosts()[0].metrics, "broken", "a completed probe stores its body whatever its status (tests/conformance/store-metrics.test.ts)");
  assert.equal(checker.status(a.address)?.last?.status, 500);

  a.metricsStatus = 200;
  a.metricsText = "recovered\n";
  await checker.checkNow();
  await checker.checkNow();
  assert.equal(status(), "Unhealthy", "two passes are below healthyThreshold 3");
  await checker.checkNow();
  assert.equal(status(), "Healthy");
  assert.equal(checker.hosts()[0].metrics, "recovered\n");
});

test("connection errors and timeouts are failures", async () => {
  // A server that accepts and never answers.
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  onClose(() => new Promise((resolve) => {
    silent.close(() => resolve());
    silent.closeAllConnections();
  }));
  const silentAddress = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const dead = await deadAddress();
  const checker = new HealthChecker("c", [silentAddress, dead], { intervalMs: 60_000, timeoutMs: 100, unhealthyThreshold: 1, startHealthy: true });
  await checker.checkNow();
  assert.deepEqual(checker.hosts().map((h) => h.healthStatus), ["Unhealthy", "Unhealthy"]);
  assert.match(checker.status(silentAddress)!.last!.error!, /timeout/);
  assert.equal(checker.status(dead)!.last!.status, 0);
});

test("a dead upstream is marked Unhealthy and skipped; it comes back after healthyThreshold passes", async () => {
  const a = await upstream("a");
  const b = await upstream("b");
  const g = await gateway({ upstreams: [a.address, b.address], healthCheck: { intervalMs: 60_000, timeoutMs: 500, unhealthyThreshold: 2, healthyThreshold: 1 } });
  const hc = g.healthChecker;
  assert.deepEqual(hc.hosts().map((h) => h.healthStatus), ["Healthy", "Healthy"], "the gateway waits for the first round");
  b.metricsStatus = 503; // b stays reachable, so a wrong route would show up as a request on b
  await hc.checkNow();
  await hc.checkNow();
  assert.equal(hc.status(b.address)!.host.healthStatus, "Unhealthy");
  for (let i = 0; i < 4; i++) assert.equal((await send(g.url, { body: "{}" })).status, 200);
  assert.equal(b.seen.length, 0);
  assert.equal(a.seen.length, 4);
  b.metricsStatus = 200;
  await hc.checkNow();
  for (let i = 0; i < 2; i++) await send(g.url, { body: "{}" });
  assert.equal(b.seen.length, 1, "round robin includes it again");
});

test("Higress: an override naming an Unhealthy host falls back to the healthy ones", async () => {
  const a = await upstream("a");
  const b = await upstream("b");
  const g = await gateway({
    upstreams: [a.address, b.address],
    healthCheck: { intervalMs: 60_000, timeoutMs: 500, unhealthyThreshold: 1 },
    plugin: { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress", config: {} },
  });
  b.metricsStatus = 500;
  await g.healthChecker.checkNow();
  const r = await send(g.url, { body: "{}", headers: { "x-target": b.address } });
  assert.equal(JSON.parse(r.body).upstream, "a");
  assert.deepEqual(g.stats().routes, { "fallback:override-unhealthy-host": 1 });
});

test("the metrics-<host:port> clusters answer proxy_http_call with the upstream's response, or null when nothing answered", async () => {
  const a = await upstream("a");
  const call = (cluster: HttpCallCluster) =>
    new Promise<HttpCallOutcome>((resolve) =>
      cluster.dispatch({ headers: [[":method", "GET"], [":path", "/metrics"], [":authority", "vllm"]], body: new Uint8Array(0), trailers: [], timeoutMs: 1000 }, resolve),
    );
  const res = await call(new HttpCallCluster(metricsClusterName(a.address), a.address));
  assert.ok(res && res !== "reset");
  assert.deepEqual(res.headers[0], [":status", "200"]);
  assert.ok(res.headers.some(([k, v]) => k === "content-type" && v === "text/plain"));
  assert.equal(new TextDecoder().decode(res.body), a.metricsText);
  const dead = await deadAddress();
  assert.equal(await call(new HttpCallCluster(metricsClusterName(dead), dead)), null);

  const g = await gateway({
    upstreams: [a.address],
    plugin: { wasm: await compileFixture("tests/guest/envoy-target.ts"), flavor: "envoy", config: {} },
  });
  assert.equal(g.host!.clusters.get(`metrics-${a.address}`)?.hosts()[0].address, a.address);
  assert.equal(g.host!.clusters.get("inference-backends"), g.healthChecker);
});
