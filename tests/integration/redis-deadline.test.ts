// A Redis call that the host does not end in time: Higress bounds a call by redis.timeoutMs only once its
// connection is up, and waits for the cluster's connect_timeout (seconds) before that (envoy raw_client_impl.cc
// RawClientImpl connect_or_op_timer_). The plugin keeps its own deadline: a request waits at most
// redis.timeoutMs (given up at the next request or tick after it), counted as a timeout, and the back-off
// that follows keeps the next requests from waiting on the same Redis.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tcpRedis } from "../../src-host/host/redis-client.ts";
import { chat, debugOf, pickerHost, text, type PickerHarness } from "../support/picker.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"];
const TIMEOUT_MS = 30;

/** A Redis whose connection never comes up (a resolver that never answers stands for a blackholed address), with
 *  Envoy's default cluster connect_timeout of 5 s: far longer than these tests wait. */
const unreachable = () => tcpRedis(6379, "redis.blackhole.test", { connectTimeoutMs: 5000, lookup: () => {} });

const REDIS = { cluster: CLUSTER, timeoutMs: TIMEOUT_MS };

function gateway(config: object = { redis: REDIS }): PickerHarness {
  const h = pickerHost({
    workers: 1,
    redis: new Map([[CLUSTER, unreachable()]]),
    config: { metrics: { snapshotTtlMs: 0 }, debug: { header: true }, ...config },
  });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  return h;
}

const conversation = (i: number, chars = 3000) => chat(text(i, chars), [], `question ${i}`);

/** Moves the clock to the next timer (the root tick) and returns its time. */
function toNextTick(h: PickerHarness): number {
  const due = h.clock.nextDue();
  h.clock.advanceTo(due);
  return due;
}

test("with no other request, the tick lets a request that waits for Redis go once redis.timeoutMs has passed", () => {
  const h = gateway();
  const start = h.clock.nowMs();
  const s = h.send(conversation(1));
  assert.equal(s.requestState, "paused", "the request asks Redis");
  h.clock.advanceTo(start + TIMEOUT_MS - 1);
  assert.equal(s.requestState, "paused", "not before the timeout");
  h.clock.advanceTo(start + TIMEOUT_MS + 25);
  assert.equal(s.requestState, "forwarded", "let go within a tick of the timeout");
  assert.ok(PODS.includes(h.chosen(s)!), "routed by load");
  assert.equal(h.counter("redis.timeout"), 1);
  assert.ok(debugOf(s).chain > 0, "decided with its prefix chain");

  const next = h.send(conversation(2));
  assert.equal(next.requestState, "forwarded", "the back-off keeps the next request from waiting");
  assert.ok(h.counter("redis.backoff") >= 1);
  assert.equal(h.host.traps, 0);
  h.host.close();
});

test("a request that arrives after the deadline lets the overdue one go first, and is routed as itself", () => {
  const h = gateway();
  const tick = toNextTick(h);
  h.clock.advanceTo(tick + 1);
  const waiting = h.send(conversation(3));
  assert.equal(waiting.requestState, "paused");
  // Past the deadline, before the next tick.
  h.clock.advanceTo(tick + 1 + TIMEOUT_MS);
  assert.ok(h.clock.nextDue() > h.clock.nowMs(), "no tick at this instant");
  assert.equal(waiting.requestState, "paused");
  const later = h.send(conversation(4, 6000));
  assert.equal(waiting.requestState, "forwarded", "the overdue request went on");
  assert.equal(later.requestState, "forwarded", "the new one did not wait (back-off)");
  // Each stream carries its own override and decision: the later one's longer prompt makes a longer chain.
  for (const s of [waiting, later]) assert.ok(PODS.includes(h.chosen(s)!));
  assert.ok(debugOf(later).chain > debugOf(waiting).chain, `chains ${debugOf(later).chain} and ${debugOf(waiting).chain}`);
  assert.equal(h.counter("redis.timeout"), 1);
  assert.equal(h.host.traps, 0);
  h.host.close();
});

// Without load sharing nothing else keeps the tick short; Redis does, in the default configuration or in a rule.
for (const [what, config] of [
  ["the default configuration", { redis: REDIS, scoring: { shareLoadAcrossWorkers: false } }],
  ["only a rule", { scoring: { shareLoadAcrossWorkers: false }, _rules_: [{ _match_domain_: ["gateway"], scoring: { shareLoadAcrossWorkers: false }, redis: REDIS }] }],
] as const) {
  test(`Redis in ${what} keeps a tick that lets a waiting request go after the timeout, with load sharing off`, () => {
    const h = gateway(config);
    const start = h.clock.nowMs();
    const s = h.send(conversation(5));
    assert.equal(s.requestState, "paused", "the request asks Redis");
    h.clock.advanceTo(start + TIMEOUT_MS + 25);
    assert.equal(s.requestState, "forwarded");
    assert.equal(h.counter("redis.timeout"), 1);
    h.host.close();
  });
}

test("a gateway shut down while a request waits for Redis calls the plugin back no more (Context::~Context cancels)", () => {
  const h = gateway();
  const s = h.send(conversation(6));
  assert.equal(s.requestState, "paused");
  h.host.close();
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  assert.ok(!s.calls.includes("proxy_on_redis_call_response"));
  assert.equal(s.requestState, "paused");
});
