// What each failure policy does when the VM traps, as Envoy ≥ 1.35 does it:
// - the stream whose callback trapped, and every other stream in flight on that VM at its next callback, go
//   through proxy-wasm-cpp-host src/context.cc CHECK_FAIL: Continue only when the plugin's fail_open_ is set
//   (Envoy sets it from the deprecated PluginConfig.fail_open alone, source/extensions/common/wasm/plugin.h
//   Plugin), else Context::failStream's local 503 "wasm_fail_stream" (source/extensions/common/wasm/context.cc);
// - new streams: PluginConfig::createContext (source/extensions/common/wasm/wasm.cc): FAIL_OPEN adds no filter,
//   FAIL_CLOSED an empty Context (503), FAIL_RELOAD reloads the VM through maybeReloadHandleIfNeeded once a
//   JitteredLowerBoundBackOffStrategy interval, [base, 1.5 × base) with base 1 s, has passed since the last load,
//   and an empty Context (503) until then.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HeaderList } from "../../../src-host/host/header-map.ts";
import type { PluginHostOptions } from "../../../src-host/host/plugin-host.ts";

/** The stream's local reply, read afresh (an earlier assert.equal(…, null) narrows the property itself). */
const replyOf = (s: FilterStream) => s.localReply;
import { conformanceHost } from "../../support/conformance.ts";
import type { FilterStream } from "../../../src-host/host/filter-stream.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function request(scenario: string): HeaderList {
  return [[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "gateway"], ["content-type", "application/json"], ["x-scenario", scenario]];
}

// Stock Envoy: Higress's fork recovers a failed VM first (the last tests below).
async function host(options: Partial<PluginHostOptions>) {
  return conformanceHost({ flavor: "envoy", allowOnHeadersStopIteration: true, log: () => {}, ...options });
}

for (const where of ["trap-headers", "trap-body"]) {
  test(`failure_policy FAIL_OPEN: a trap in ${where} fails that stream with 503, a stream in flight fails at its next callback, new streams bypass the filter (cpp-host context.cc CHECK_FAIL; envoy wasm.cc PluginConfig::createContext)`, async () => {
    const h = await host({ failurePolicy: "FAIL_OPEN" });
    const inFlight = h.host.newStream({}, 0);
    inFlight.decodeHeaders(request("normal"), false);
    assert.equal(inFlight.requestState, "paused");
    const s = h.host.newStream({}, 0);
    s.decodeHeaders(request(where), false);
    s.decodeData(enc.encode("payload"), true);
    assert.equal(s.localReply?.status, 503);
    assert.equal(s.localReply?.details, "wasm_fail_stream");
    assert.equal(s.localReply?.grpcStatus, 14, "Grpc::Status::WellKnownGrpcStatus::Unavailable");
    s.finish();
    assert.ok(!s.calls.includes("proxy_on_log"), "on_log and on_done are skipped on a failed VM");
    // The other stream was waiting for its body; its next callback meets the failed VM.
    assert.equal(inFlight.localReply, null);
    inFlight.decodeData(enc.encode("late body"), true);
    assert.equal(replyOf(inFlight)?.status, 503);
    const next = h.host.newStream({}, 0);
    next.decodeHeaders(request("normal"), false);
    next.decodeData(enc.encode("again"), true);
    assert.equal(next.requestState, "forwarded");
    assert.equal(next.bypass, true);
    assert.deepEqual(next.calls, [], "no filter on a new stream");
    assert.equal(dec.decode(next.takeReleasedBody()), "again");
  });

  test(`legacy fail_open: true: a trap in ${where} lets that stream and the ones in flight continue untouched (plugin_->fail_open_ in CHECK_FAIL)`, async () => {
    const h = await host({ legacyFailOpen: true });
    assert.equal(h.host.failurePolicy, "FAIL_OPEN", "fail_open is FAIL_OPEN (wasm.cc PluginConfig)");
    const inFlight = h.host.newStream({}, 0);
    inFlight.decodeHeaders(request("normal"), false);
    const s = h.host.newStream({}, 0);
    s.decodeHeaders(request(where), false);
    s.decodeData(enc.encode("payload"), true);
    assert.equal(s.localReply, null);
    assert.equal(s.requestState, "forwarded");
    assert.equal(dec.decode(s.takeReleasedBody()), "payload");
    inFlight.decodeData(enc.encode("late body"), true);
    assert.equal(inFlight.requestState, "forwarded");
    assert.equal(dec.decode(inFlight.takeReleasedBody()), "late body");
    assert.equal(h.host.traps, 1);
  });

  test(`FAIL_CLOSED: a trap in ${where} answers 503, and every later stream gets 503 at its request headers (empty Context)`, async () => {
    const h = await host({ failurePolicy: "FAIL_CLOSED" });
    const s = h.host.newStream();
    s.decodeHeaders(request(where), false);
    s.decodeData(enc.encode("payload"), true);
    assert.equal(s.localReply?.status, 503);
    s.finish();
    const next = h.host.newStream();
    assert.equal(next.localReply, null, "the 503 comes from the first callback, not from creating the stream");
    next.decodeHeaders(request("normal"), false);
    assert.equal(replyOf(next)?.status, 503);
    assert.equal(replyOf(next)?.details, "wasm_fail_stream");
  });
}

test("FAIL_RELOAD: the trapping stream gets 503; new streams get 503 until [1 s, 1.5 s) after the VM's last load, then a fresh VM (envoy wasm.cc maybeReloadHandleIfNeeded, backoff_strategy.cc JitteredLowerBoundBackOffStrategy)", async () => {
  const logs: string[] = [];
  const h = await conformanceHost({ flavor: "envoy", allowOnHeadersStopIteration: true, failurePolicy: "FAIL_RELOAD", log: (_l, m) => logs.push(m) });
  const loadedAt = h.clock.nowMs();
  const s = h.host.newStream({}, 0);
  s.decodeHeaders(request("trap-headers"), false);
  assert.equal(s.localReply?.status, 503);
  s.finish();
  // Within a second of the last load: no reload, the failed VM answers 503.
  h.clock.advanceTo(loadedAt + 999);
  const early = h.host.newStream({}, 0);
  early.decodeHeaders(request("normal"), false);
  assert.equal(early.localReply?.status, 503);
  assert.equal(h.host.workers[0].reloads, 0);
  // 1.5 s after the last load any draw of the backoff has passed.
  h.clock.advanceTo(loadedAt + 1500);
  const configuredBefore = logs.filter((m) => m === "CHECK plugin_config conformance").length;
  const next = h.host.newStream({}, 0);
  assert.equal(h.host.workers[0].reloads, 1);
  next.decodeHeaders(request("normal"), false);
  next.decodeData(enc.encode("fine"), true);
  assert.equal(next.requestState, "forwarded");
  assert.equal(next.localReply, null);
  assert.equal(logs.filter((m) => m === "CHECK plugin_config conformance").length, configuredBefore + 1, "the new VM was configured");
});

test("FAIL_RELOAD: a VM that traps again right after a reload waits a full backoff from that reload", async () => {
  const h = await conformanceHost({ flavor: "envoy", allowOnHeadersStopIteration: true, failurePolicy: "FAIL_RELOAD", log: () => {} });
  const trap = () => {
    const s = h.host.newStream({}, 0);
    s.decodeHeaders(request("trap-headers"), false);
    s.finish();
  };
  trap();
  h.clock.advanceTo(h.clock.nowMs() + 1500);
  trap(); // reloads, and the new VM traps at once
  assert.equal(h.host.workers[0].reloads, 1);
  const reloadedAt = h.clock.nowMs();
  h.clock.advanceTo(reloadedAt + 900);
  const s = h.host.newStream({}, 0);
  s.decodeHeaders(request("normal"), false);
  assert.equal(s.localReply?.status, 503);
  assert.equal(h.host.workers[0].reloads, 1);
});

for (const legacyFailOpen of [false, true]) {
  test(`Higress${legacyFailOpen ? ", fail_open" : ""}: a new stream that finds the VM failed recovers it at once, then at most every 5 s; between tries the failed VM ${legacyFailOpen ? "is skipped" : "answers 503"} (wasm_filter.h createFilter under HIGRESS, wasm.cc PluginHandleSharedPtrThreadLocal::recover)`, async () => {
    const logs: string[] = [];
    const h = await conformanceHost({ flavor: "higress", legacyFailOpen, log: (_l, m) => logs.push(m) });
    const configured = () => logs.filter((m) => m === "CHECK plugin_config conformance").length;
    const trap = () => {
      const s = h.host.newStream({}, 0);
      s.decodeHeaders(request("trap-headers"), false);
      s.finish();
    };
    const normal = () => {
      const s = h.host.newStream({}, 0);
      s.decodeHeaders(request("normal"), false);
      s.decodeData(enc.encode("fine"), true);
      return s;
    };
    trap();
    assert.ok(h.host.workers[0].failed);
    const before = configured();
    const first = normal();
    assert.equal(h.host.workers[0].recoveries, 1, "the first recovery is at once");
    assert.equal(first.requestState, "forwarded");
    assert.equal(first.localReply, null);
    assert.deepEqual(first.calls.slice(0, 2), ["proxy_on_context_create", "proxy_on_request_headers"], "the recovered VM runs the filter");
    assert.equal(configured(), before + 1, "the new VM was configured");
    // It traps again: within 5 s of the last try there is no recovery.
    const recoveredAt = h.clock.nowMs();
    trap();
    h.clock.advanceTo(recoveredAt + 4999);
    const waiting = normal();
    assert.equal(h.host.workers[0].recoveries, 1);
    if (legacyFailOpen) {
      assert.equal(waiting.bypass, true, "fail_open: no filter on the failed VM");
      assert.equal(waiting.requestState, "forwarded");
    } else {
      assert.equal(waiting.localReply?.status, 503, "the failed VM's empty Context");
    }
    h.clock.advanceTo(recoveredAt + 5000);
    const later = normal();
    assert.equal(h.host.workers[0].recoveries, 2);
    assert.equal(later.localReply, null);
    assert.equal(later.requestState, "forwarded");
  });
}
