// Streams that end early, and traps under each failure policy: a reset before or after the body or after the
// response headers gives the lease back; a trap answers that stream 503 (only the legacy fail_open lets it
// through), and under FAIL_RELOAD a fresh VM routes again once the reload backoff has passed
// (tests/conformance/failure-policy.test.ts has the sources).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FailurePolicy } from "../../src-host/host/abi.ts";
import { FaultPlan } from "../../src-host/fuzz/fault-plan.ts";
import { pickerCounters, sendBody } from "../../src-host/fuzz/picker-driver.ts";
import { completeStream } from "../../src-host/harness/plugin-request.ts";
import { chat, pickerHost, text } from "../support/picker.ts";

const PODS = ["10.8.0.1:8000", "10.8.0.2:8000"];
const enc = new TextEncoder();
const body = (i: number) => enc.encode(JSON.stringify(chat(text(i, 900), [], "q" + i)));

test("a stream reset before the body, after the body, or after the response headers leaves nothing in flight", () => {
  const h = pickerHost();
  h.setPods(PODS.map((address) => ({ address })));
  const s1 = h.host.newStream({ clusterName: "backends" });
  s1.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"], ["content-length", "100"]], false);
  s1.reset();
  const s2 = sendBody(h.host, body(2));
  assert.equal(pickerCounters(h.host).get("inflight"), 1);
  s2.reset();
  const s3 = sendBody(h.host, body(3));
  s3.encodeHeaders([[":status", "200"]], false);
  s3.reset();
  // Half a body, then a reset.
  const s4 = h.host.newStream({ clusterName: "backends" });
  const b = body(4);
  s4.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"], ["content-length", String(b.length)]], false);
  s4.decodeData(b.subarray(0, 100), false);
  s4.reset();
  assert.equal(h.host.traps, 0);
  assert.equal(pickerCounters(h.host).get("inflight"), 0);
  // And the picker still decides.
  const s5 = sendBody(h.host, body(5));
  assert.ok(PODS.includes(h.chosen(s5)!));
  completeStream(s5);
});

function trapping(policy: FailurePolicy, legacyFailOpen = false) {
  const plan = new FaultPlan();
  const h = pickerHost({ failurePolicy: policy, legacyFailOpen, fault: plan.hook });
  h.setPods(PODS.map((address) => ({ address })));
  plan.fail("proxy_get_buffer_bytes", 1, "trap");
  const s = sendBody(h.host, body(1));
  plan.disarm();
  return { h, s };
}

test("legacy fail_open: a trap while reading the body lets the request through untouched", () => {
  const { h, s } = trapping("FAIL_OPEN", true);
  assert.equal(h.host.traps, 1);
  assert.equal(s.requestState, "forwarded");
  assert.equal(s.bypass, true);
  assert.equal(h.chosen(s), null);
  assert.equal(s.localReply, null);
});

test("FAIL_CLOSED: a trap answers 503 and the failed VM keeps answering 503", () => {
  const { h, s } = trapping("FAIL_CLOSED");
  assert.equal(h.host.traps, 1);
  assert.equal(s.requestState, "local-reply");
  assert.equal(s.localReply?.status, 503);
  const next = sendBody(h.host, body(2));
  assert.equal(next.localReply?.status, 503);
});

test("FAIL_RELOAD: a trap answers 503, then a fresh VM routes the next request", () => {
  const { h, s } = trapping("FAIL_RELOAD");
  assert.equal(s.localReply?.status, 503);
  h.clock.advanceTo(h.clock.nowMs() + 1500);
  const next = sendBody(h.host, body(2));
  assert.equal(h.host.workers[0].reloads, 1);
  assert.equal(next.requestState, "forwarded");
  assert.ok(PODS.includes(h.chosen(next)!), `chosen ${h.chosen(next)}`);
  completeStream(next);
  assert.equal(h.host.traps, 1);
});
