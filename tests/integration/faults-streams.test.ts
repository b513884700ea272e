// Streams that end early, and traps under each failure policy: a reset before or after the body or after the
// response headers gives the lease back; a trap answers that stream 503 (only the legacy fail_open lets it
// through), and on Higress the next stream recovers the VM, at most every 5 s (stock Envoy's FAIL_RELOAD is in
// tests/integration/conformance/failure-policy.test.ts, with the sources).
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

// On Higress (the picker's default build here): a failed VM is recovered by the next new stream, at most every 5 s.
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

test("Higress, FAIL_CLOSED: a trap answers 503, the next request recovers the VM and is routed; a trap within 5 s of that recovery leaves 503s until the 5 s have passed", () => {
  const { h, s } = trapping("FAIL_CLOSED");
  assert.equal(h.host.traps, 1);
  assert.equal(s.requestState, "local-reply");
  assert.equal(s.localReply?.status, 503);
  const next = sendBody(h.host, body(2));
  assert.equal(h.host.workers[0].recoveries, 1);
  assert.ok(PODS.includes(h.chosen(next)!), `chosen ${h.chosen(next)}`);
  completeStream(next);
  assert.equal(pickerCounters(h.host).get("inflight"), 0);
  const recoveredAt = h.clock.nowMs();
  h.host.workers[0].vm.failed = true; // it traps again
  h.clock.advanceTo(recoveredAt + 4000);
  assert.equal(sendBody(h.host, body(3)).localReply?.status, 503);
  h.clock.advanceTo(recoveredAt + 5000);
  const later = sendBody(h.host, body(4));
  assert.equal(h.host.workers[0].recoveries, 2);
  assert.ok(PODS.includes(h.chosen(later)!));
});
