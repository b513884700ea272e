// assembly/platform/higress-platform.ts through the Higress build: the host list and metrics come from
// proxy_get_upstream_hosts, kept for metrics.snapshotTtlMs, unchanged metrics text is not parsed again, and
// endpoints that leave the cluster are forgotten.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";

const [A, B, C] = ["10.7.1.1:8000", "10.7.1.2:8000", "10.7.1.3:8000"];
const IDLE = { waiting: 0, running: 0, kv: 0.05 };
const BUSY = { waiting: 30, running: 60, kv: 0.9 };
const TTL = 1000;

function harness(): StaticClusterHarness {
  return new StaticClusterHarness({ pluginConfig: JSON.stringify({ metrics: { snapshotTtlMs: TTL } }), log: () => {} });
}

let n = 0;
function route(h: StaticClusterHarness): string | null {
  const s = h.send({ model: "m", messages: [{ role: "user", content: `question ${n++}` }] });
  const chosen = h.chosen(s);
  h.complete(s);
  return chosen;
}

const later = (h: StaticClusterHarness, ms: number) => h.clock.advanceTo(h.clock.nowMs() + ms);

test("the host list is kept for snapshotTtlMs, then read again", () => {
  const h = harness();
  h.setEndpoints([{ address: A, ...IDLE }, { address: B, ...BUSY }]);
  assert.equal(route(h), A);
  h.setEndpoints([{ address: A, ...BUSY }, { address: B, ...IDLE }]);
  later(h, TTL - 1);
  assert.equal(route(h), A, "within the TTL the old snapshot decides");
  later(h, 1);
  assert.equal(route(h), B, "after it the new load does");
});

test("an unhealthy host is not named; an endpoint that leaves the cluster is evicted and never named again", () => {
  const h = harness();
  h.setEndpoints([{ address: A, ...BUSY }, { address: B, ...IDLE, health: "Unhealthy" }, { address: C, ...BUSY }]);
  for (let i = 0; i < 4; i++) assert.notEqual(route(h), B);
  h.setEndpoints([{ address: A, ...IDLE }, { address: B, ...IDLE }]);
  later(h, TTL);
  assert.equal(h.counter("evicted_endpoints"), 0);
  for (let i = 0; i < 6; i++) assert.notEqual(route(h), C);
  h.setEndpoints([{ address: B, ...IDLE }]);
  later(h, TTL);
  for (let i = 0; i < 3; i++) assert.equal(route(h), B);
  assert.equal(h.counter("evicted_endpoints"), 2, "A and C left");
});

test("metrics text that did not change is not parsed again; a changed text is", () => {
  const h = harness();
  const set = (metricsA: string) => {
    h.cluster.hostList = [
      { address: A, healthStatus: "Healthy", metrics: metricsA },
      { address: B, healthStatus: "Healthy", metrics: "" },
    ];
    later(h, TTL);
  };
  set("<html>not metrics</html>");
  route(h);
  assert.equal(h.counter("metrics_parse_errors"), 1);
  for (let i = 0; i < 3; i++) {
    set("<html>not metrics</html>");
    route(h);
  }
  assert.equal(h.counter("metrics_parse_errors"), 1, "same text, same fingerprint: not parsed again");
  set("<html>other</html>");
  route(h);
  assert.equal(h.counter("metrics_parse_errors"), 2);
});
