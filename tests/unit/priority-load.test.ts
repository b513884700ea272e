// The host's model of Envoy's healthy/degraded split (src-host/host/priority-load.ts), on the cases of
// tests/as/degraded-load.spec.ts, which the plugin's own computation (assembly/platform/degraded-load.ts) must match.
import { test } from "node:test";
import assert from "node:assert/strict";
import { hostsForDraw, priorityLoad } from "../../src-host/host/priority-load.ts";

test("degraded hosts get the healthy ones' shortfall; the rest of the cases are 0 or panic", () => {
  assert.deepEqual(priorityLoad(5, 2, 7), { healthy: 100, degraded: 0, panic: false });
  assert.deepEqual(priorityLoad(3, 3, 6), { healthy: 70, degraded: 30, panic: false });
  assert.deepEqual(priorityLoad(6, 4, 10), { healthy: 84, degraded: 16, panic: false });
  assert.deepEqual(priorityLoad(1, 1, 4), { healthy: 50, degraded: 50, panic: false });
  assert.deepEqual(priorityLoad(2, 1, 5), { healthy: 67, degraded: 33, panic: false });
  assert.deepEqual(priorityLoad(0, 3, 3), { healthy: 0, degraded: 100, panic: false });
  assert.equal(priorityLoad(1, 1, 5).panic, true);
  assert.equal(priorityLoad(0, 0, 4).panic, true);
});

test("a host pending its first check or draining by EDS is left out of the total; in panic every host is used", () => {
  const h = (address: string, healthStatus: string) => ({ address, healthStatus, metrics: "" });
  // 5 healthy, 2 degraded, 1 pending: 140 x 5 / 7 = 100, no degraded share.
  const hosts = [..."12345"].map((i) => h(`10.0.0.${i}:80`, "Healthy")).concat([h("10.0.0.6:80", "Degraded"), h("10.0.0.7:80", "DegradedActiveHc"), h("10.0.0.8:80", "PendingActiveHc")]);
  for (let draw = 1; draw <= 100; draw++) assert.ok(hostsForDraw(hosts, draw).every((x) => x.healthStatus === "Healthy"));
  // 4 healthy, 1 degraded, 2 draining by EDS (excluded): 140 x 4 / 5 = 112, no degraded share. Counted, the two
  // would make it 140 x 4 / 7 = 80, and the degraded host would take 20 draws in 100.
  const draining = [..."1234"].map((i) => h(`10.0.2.${i}:80`, "Healthy")).concat([h("10.0.2.5:80", "Degraded"), h("10.0.2.6:80", "Draining"), h("10.0.2.7:80", "Draining")]);
  for (let draw = 1; draw <= 100; draw++) assert.ok(hostsForDraw(draining, draw).every((x) => x.healthStatus === "Healthy"));
  const panic = [h("10.0.1.1:80", "Healthy"), h("10.0.1.2:80", "Unhealthy"), h("10.0.1.3:80", "Unhealthy")];
  assert.equal(hostsForDraw(panic, 1).length, 3);
});
