// Leases of requests that wait for Redis (Higress build). Envoy sends the reply of a proxy_redis_call to the root
// context (cpp-host exports.cc redis_call runs on root_context()), so the reply may come after the request that
// waited for it has ended: such a request takes no lease.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pickerCounters } from "../../src-host/fuzz/picker-driver.ts";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { SimRedis } from "../../src-host/sim/sim-redis.ts";
import { chat, pickerHost, text } from "../support/picker.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"];
const RTT_MS = 200;

function gateway() {
  const clock = new VirtualClock();
  const h = pickerHost({
    workers: 1,
    clock,
    redis: new Map([[CLUSTER, new SimRedis(clock, RTT_MS)]]),
    config: { metrics: { snapshotTtlMs: 0 }, redis: { cluster: CLUSTER, timeoutMs: 5000 } },
  });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  return h;
}

const conversation = (i: number) => chat(text(i, 3000), [], `question ${i}`);

test("a request reset while it waits for Redis takes no lease when the reply comes afterwards", () => {
  const h = gateway();
  const s = h.send(conversation(1));
  assert.equal(s.requestState, "paused", "the request asks Redis");
  s.reset();
  assert.deepEqual(s.calls.slice(-3), ["proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
  h.clock.advanceTo(h.clock.nowMs() + RTT_MS + 1);
  assert.equal(pickerCounters(h.host).get("inflight") ?? 0, 0);
  assert.equal(h.counter("decisions"), 0, "nothing was decided for it");
  // The call's entry was given back: the next request asks Redis and is routed.
  const next = h.send(conversation(2));
  assert.equal(next.requestState, "paused");
  h.clock.advanceTo(h.clock.nowMs() + RTT_MS + 1);
  assert.equal(next.requestState, "forwarded");
  assert.equal(pickerCounters(h.host).get("inflight"), 1);
  h.complete(next);
  assert.equal(pickerCounters(h.host).get("inflight"), 0);
  assert.equal(h.host.traps, 0);
  h.host.close();
});

test("a Redis reply between a stream's on_done and its on_delete routes nothing (not an order Envoy makes)", () => {
  // Envoy runs on_done and on_delete back to back (context.cc Context::onDestroy); the stream is driven by hand here.
  const h = gateway();
  const s = h.send(conversation(3));
  assert.equal(s.requestState, "paused");
  const worker = h.host.workers[0];
  worker.vm.call("proxy_on_log", [s.contextId], s.contextId);
  worker.vm.call("proxy_on_done", [s.contextId], s.contextId);
  h.clock.advanceTo(h.clock.nowMs() + RTT_MS + 1);
  worker.vm.call("proxy_on_delete", [s.contextId], s.contextId);
  worker.vm.streams.delete(s.contextId);
  worker.streams.delete(s.contextId);
  assert.equal(s.requestState, "paused", "the ended request was not let go");
  assert.equal(pickerCounters(h.host).get("inflight") ?? 0, 0, "no lease taken after on_done");
  assert.equal(h.counter("decisions"), 0);
  assert.equal(h.host.traps, 0);
  h.host.close();
});
