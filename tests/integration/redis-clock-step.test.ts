// The plugin reads the wall clock (proxy_get_current_time_nanoseconds is Envoy's system time), which an NTP step
// can move backwards. A step back must not keep a request waiting for Redis past redis.timeoutMs, nor keep Redis
// switched off (backing off) for as long as the step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tcpRedis } from "../../src-host/host/redis-client.ts";
import { chat, pickerHost, text, type PickerHarness } from "../support/picker.ts";
import { SteppedWallClock } from "../support/stepped-clock.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"];
const TIMEOUT_MS = 30;
const HOUR_MS = 3_600_000;

/** A Redis whose connection never comes up, with Envoy's default 5 s connect_timeout (see redis-deadline.test.ts). */
const unreachable = () => tcpRedis(6379, "redis.blackhole.test", { connectTimeoutMs: 5000, lookup: () => {} });

function gateway(): { h: PickerHarness<SteppedWallClock>; clock: SteppedWallClock } {
  const clock = new SteppedWallClock();
  const h = pickerHost({
    workers: 1,
    clock,
    redis: new Map([[CLUSTER, unreachable()]]),
    config: { metrics: { snapshotTtlMs: 0 }, redis: { cluster: CLUSTER, timeoutMs: TIMEOUT_MS } },
  });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  clock.pass(1000);
  return { h, clock };
}

const conversation = (i: number) => chat(text(i, 3000), [], `question ${i}`);

test("a wall clock stepped back while a request waits for Redis still lets it go within a tick of redis.timeoutMs", () => {
  const { h, clock } = gateway();
  const s = h.send(conversation(1));
  assert.equal(s.requestState, "paused", "the request asks Redis");
  clock.offsetMs -= HOUR_MS;
  clock.pass(TIMEOUT_MS + 60);
  assert.equal(s.requestState, "forwarded", "not held until the host gives the call up (connect_timeout)");
  assert.ok(PODS.includes(h.chosen(s)!), "routed by load");
  assert.equal(h.counter("redis.timeout"), 1);
  assert.equal(h.host.traps, 0);
  h.host.close();
});

test("a wall clock stepped back after a Redis failure does not keep Redis switched off for the length of the step", () => {
  const { h, clock } = gateway();
  const first = h.send(conversation(2));
  assert.equal(first.requestState, "paused");
  clock.pass(TIMEOUT_MS + 60);
  assert.equal(first.requestState, "forwarded");
  assert.equal(h.counter("redis.timeout"), 1);
  h.complete(first);
  clock.offsetMs -= HOUR_MS;
  // Longer than the longest back-off (5 s).
  clock.pass(6000);
  const backoffBefore = h.counter("redis.backoff");
  const next = h.send(conversation(3));
  assert.equal(h.counter("redis.lookups"), 2, "Redis is asked again");
  assert.equal(h.counter("redis.backoff"), backoffBefore, "not backing off");
  assert.equal(next.requestState, "paused");
  assert.equal(h.host.traps, 0);
  h.host.close();
});
