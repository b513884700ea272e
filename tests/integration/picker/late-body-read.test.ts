// Higress before 2.2 (higress-group/envoy envoy-1.27, the host's envoy127BodyOrder) gives a buffering filter the body
// without its last chunk at the end of the stream. The picker sees the body come short of its Content-Length, keeps
// the request paused, and reads the whole body on the root's next tick (assembly/picker/late-body-reads.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FilterStream } from "../../../src-host/host/filter-stream.ts";
import { VirtualClock } from "../../../src-host/host/clock.ts";
import { SimRedis } from "../../../src-host/sim/sim-redis.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";

const PODS = ["10.0.5.1:8000", "10.0.5.2:8000", "10.0.5.3:8000"];
const enc = new TextEncoder();
const dec = new TextDecoder();

const REDIS = "outbound|6379||redis.default.svc.cluster.local";
const REDIS_RTT_MS = 50;

function harness(envoy127BodyOrder: boolean, withRedis = false) {
  const clock = new VirtualClock();
  const h = withRedis
    ? pickerHost({ flavor: "higress", envoy127BodyOrder, clock, redis: new Map([[REDIS, new SimRedis(clock, REDIS_RTT_MS)]]),
      config: { redis: { cluster: REDIS, timeoutMs: 5000 } } })
    : pickerHost({ flavor: "higress", envoy127BodyOrder, clock });
  h.setPods(PODS.map((address, i) => ({ address, waiting: [6, 0, 3][i], kv: 0.1 })));
  return h;
}

/** Sends `body` in `pieces` chunks, the last with data and the end of the stream, announcing `contentLength`. */
function sendInChunks(h: ReturnType<typeof harness>, body: string, pieces: number, contentLength = enc.encode(body).length): FilterStream {
  const bytes = enc.encode(body);
  const s = h.host.newStream({ clusterName: "backends" });
  s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"],
    ["content-length", String(contentLength)]], false);
  const step = Math.ceil(bytes.length / pieces);
  for (let at = 0; at < bytes.length; at += step) s.decodeData(bytes.subarray(at, at + step), at + step >= bytes.length);
  return s;
}

const tick = (h: ReturnType<typeof harness>) => h.clock.advanceTo(h.clock.nowMs() + 1);
const tickPeriod = (h: ReturnType<typeof harness>) => {
  const worker = h.host.workers[0];
  return worker.vm.roots.get(worker.rootContextId)!.tickPeriodMs;
};
const lateWarnings = (h: ReturnType<typeof harness>) => h.logs.filter((m) => m.includes("shorter than its Content-Length")).length;

test("envoy-1.27 order: a body whose last chunk has data is read on the next tick and routed where upstream Envoy's order routes it", () => {
  const body = JSON.stringify(chat(text(11, 5000), [["hi", "hello"]], "and then?"));
  const upstream = harness(false);
  const reference = sendInChunks(upstream, body, 4);
  assert.equal(upstream.counter("late_body_reads"), 0, "upstream order: the body is whole at the end of the stream");
  assert.ok(upstream.chosen(reference));

  const h = harness(true);
  const period = tickPeriod(h);
  const s = sendInChunks(h, body, 4);
  assert.equal(s.requestState, "paused", "held until the tick reads the whole body");
  assert.equal(tickPeriod(h), 1, "a short tick while the read waits");
  assert.equal(h.chosen(s), null);
  tick(h);
  assert.equal(s.requestState, "forwarded");
  assert.equal(tickPeriod(h), period, "the usual period after");
  assert.equal(h.chosen(s), upstream.chosen(reference));
  assert.equal(dec.decode(s.takeReleasedBody()), body, "the whole body goes upstream");
  assert.equal(h.counter("late_body_reads"), 1);
  assert.equal(h.counter("decisions"), 1);
  assert.equal(h.counter("fallback.invalid_json"), 0);

  const again = sendInChunks(h, body, 3);
  tick(h);
  assert.equal(h.chosen(again) !== null, true);
  assert.equal(h.counter("late_body_reads"), 2);
  assert.equal(lateWarnings(h), 1, "one warning per VM");
});

test("envoy-1.27 order: a body still short of its Content-Length on the tick fails open as body_incomplete and goes on", () => {
  const h = harness(true);
  const body = JSON.stringify(chat(text(12, 3000), [], "q"));
  const s = sendInChunks(h, body, 3, enc.encode(body).length + 10);
  tick(h);
  assert.equal(s.requestState, "forwarded");
  assert.equal(h.chosen(s), null);
  assert.equal(h.counter("fallback.body_incomplete"), 1);
  assert.equal(dec.decode(s.state.properties.get("endpoint_picker.fallback")!), "body_incomplete");
  assert.equal(h.counter("decisions"), 0);
});

test("envoy-1.27 order: a stream that ends before the tick gives its slot back and is not routed", () => {
  const h = harness(true);
  const body = JSON.stringify(chat(text(13, 3000), [], "q"));
  const s = sendInChunks(h, body, 3);
  s.reset();
  tick(h);
  assert.equal(h.chosen(s), null);
  assert.equal(h.counter("decisions"), 0);
  assert.equal(h.counter("fallback.body_incomplete"), 0);
  const next = sendInChunks(h, body, 3);
  tick(h);
  assert.ok(h.chosen(next));
});

test("a single-chunk body is decided in its callback in either order, without a late read", () => {
  for (const order of [false, true]) {
    const h = harness(order);
    const s = sendInChunks(h, JSON.stringify(chat(text(14, 500), [], "q")), 1);
    assert.ok(h.chosen(s), `envoy127BodyOrder ${order}`);
    assert.equal(h.counter("late_body_reads"), 0);
  }
});

test("envoy-1.27 order: a late read that asks Redis waits for its reply, then routes and lets the request go", () => {
  const h = harness(true, true);
  const s = sendInChunks(h, JSON.stringify(chat(text(15, 3000), [], "q")), 3);
  tick(h);
  assert.equal(h.counter("late_body_reads"), 1);
  assert.equal(s.requestState, "paused", "the late read asked Redis");
  h.clock.advanceTo(h.clock.nowMs() + REDIS_RTT_MS + 1);
  assert.equal(s.requestState, "forwarded");
  assert.ok(h.chosen(s));
  assert.equal(h.counter("decisions"), 1);
  assert.equal(h.host.traps, 0);
});

test("envoy-1.27 order: late reads queued faster than the short tick do not put it off (each tick period set re-arms the timer: envoy wasm.cc Wasm::setTimerPeriod)", () => {
  const h = harness(true);
  const body = JSON.stringify(chat(text(16, 3000), [], "q"));
  const start = h.clock.nowMs();
  const first = sendInChunks(h, body, 3);
  h.clock.advanceTo(start + 0.6);
  const second = sendInChunks(h, body, 3);
  h.clock.advanceTo(start + 1.2);
  assert.equal(first.requestState, "forwarded", "read on the tick 1 ms after the first late read");
  assert.equal(second.requestState, "forwarded");
  assert.equal(h.counter("late_body_reads"), 2);
});
