// A cross-worker prefix hint naming an endpoint that cannot be picked now (unhealthy) is passed over for a shorter hint
// naming one that can. The stock Envoy build keeps a configured endpoint whose polls fail (a pod that left) as an
// unhealthy endpoint; a hint naming it used to stand as the request's longest match, so the other worker credited
// no endpoint with the shared prefix.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry } from "../../../src-host/host/cluster.ts";
import { vllmPage, type EndpointLoad } from "../../../src-host/harness/vllm-page.ts";
import { chat, debugOf, pickerHost, text } from "../../support/picker.ts";

const PODS = ["10.0.2.1:8000", "10.0.2.2:8000", "10.0.2.3:8000"];
const [A, B, C] = PODS;
const IDLE: EndpointLoad = { waiting: 0, running: 0, kv: 0.05 };
const BUSY: EndpointLoad = { waiting: 20, running: 40, kv: 0.95 };

test("a worker passes over another worker's hint naming an unhealthy endpoint for a shorter one naming a healthy endpoint", () => {
  const states = new Map<string, EndpointLoad | "down">(PODS.map((p) => [p, BUSY]));
  const clusters = new ClusterRegistry();
  PODS.forEach((address, i) =>
    clusters.add({
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch(_req, respond) {
        const s = states.get(address)!;
        if (s === "down") respond(null);
        else respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(vllmPage(s)), trailers: [] });
      },
    }),
  );
  const config = {
    endpoints: PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })),
    metrics: { pollIntervalMs: 200, snapshotTtlMs: 50 },
    debug: { header: true },
  };
  const h = pickerHost({ flavor: "envoy", workers: 2, config, clusters });
  const settle = () => h.clock.advanceTo(h.clock.nowMs() + 500);
  const shared = text(31, 2000);
  const longer = shared + text(32, 6000);

  // Worker 0 sends the long prompt to A, then the short one (its first part) to B: the hints at the short prompt's
  // positions name B, those further along the long prompt name A.
  states.set(A, IDLE);
  settle();
  const first = h.send(chat(longer, [], "q"), [], { worker: 0 });
  assert.equal(h.chosen(first), A);
  h.complete(first);
  states.set(A, BUSY);
  states.set(B, IDLE);
  settle();
  const second = h.send(chat(shared, [], "q"), [], { worker: 0 });
  assert.equal(h.chosen(second), B);
  h.complete(second);

  // A leaves: its polls fail and both workers hold it unhealthy.
  states.set(A, "down");
  h.clock.advanceTo(h.clock.nowMs() + 1000);

  // Worker 1 knows nothing itself; the longest hint for a prompt extending the long one names A.
  const s = h.send(chat(longer + text(33, 2000), [], "q"), [], { worker: 1 });
  const debug = debugOf(s);
  h.complete(s);
  assert.equal(debug.scores.get(A), "excluded");
  const atB = debug.scores.get(B);
  assert.ok(atB !== undefined && atB !== "excluded" && atB.m > 0, `B credited with the shared prefix: ${JSON.stringify(atB)}`);
  assert.equal(debug.endpoint, B);
});
