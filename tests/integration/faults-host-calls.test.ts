// Fault injection on every host call the plugin imports: each call, at each position within a request (the Nth
// call fails), returns each error status or an empty value. Every such request must still go upstream without a
// trap, as a valid decision or exactly one counted fail-open, and never with the client's own override header.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../src-host/host/abi.ts";
import type { Cluster } from "../../src-host/host/cluster.ts";
import { ConfigRejectedError } from "../../src-host/host/plugin-host.ts";
import { FaultPlan, type FaultAction } from "../../src-host/fuzz/fault-plan.ts";
import { pickerCounters, requestViolations, sendBody, CLIENT_OVERRIDE } from "../../src-host/fuzz/picker-driver.ts";
import { completeStream } from "../../src-host/harness/plugin-request.ts";
import { builtPluginModule } from "../../src-host/wasm/built-plugin.ts";
import { chat, pickerHost, text } from "../support/picker.ts";

const PODS = ["10.5.0.1:8000", "10.5.0.2:8000", "10.5.0.3:8000"];
const ERRORS: FaultAction[] = [Status.NotFound, Status.BadArgument, Status.InternalFailure, Status.InvalidMemoryAccess, Status.Unimplemented].map((status) => ({ status }));
// Host calls that hand back a value: a forced Ok returns an empty one. For the others, a forced Ok would be the
// host lying that it did the work, which no plugin can detect.
const GETTERS = new Set(["proxy_get_buffer_bytes", "proxy_get_header_map_value", "proxy_get_header_map_pairs", "proxy_get_upstream_hosts", "proxy_get_shared_data", "proxy_get_current_time_nanoseconds", "proxy_get_status", "proxy_get_property"]);
// Without working metrics the counters cannot move; these faults only need the request to go through untouched.
const TELEMETRY = new Set(["proxy_increment_metric", "proxy_define_metric", "proxy_log", "proxy_set_property"]);

function importsOf(flavor: "higress" | "envoy"): string[] {
  return WebAssembly.Module.imports(builtPluginModule(flavor)).map((i) => i.name);
}

function body(i: number): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(chat(text(i, 1200), [], "question " + i)));
}

function metricsCluster(name: string, waiting: number): Cluster {
  const page = new TextEncoder().encode(`vllm:num_requests_waiting{model_name="m"} ${waiting}\nvllm:num_requests_running{model_name="m"} 1\n`);
  return { name, hosts: () => [], dispatch: (_req, respond) => respond({ headers: [[":status", "200"]], body: page, trailers: [] }) };
}

function harness(flavor: "higress" | "envoy", plan: FaultPlan) {
  // The failure signal on: its response-status read is a request-path host call too (skipped when unweighted).
  const weights = { failure: 1 };
  const config = flavor === "envoy" ? { weights, endpoints: PODS.map((address, i) => ({ address, metricsCluster: `m${i}` })) } : { weights };
  const h = pickerHost({ flavor, config, fault: plan.hook });
  h.setPods(PODS.map((address, i) => ({ address, waiting: i, running: 1, kv: 0.2 })));
  // The stock build polls each endpoint's /metrics through these clusters.
  PODS.forEach((_, i) => h.host.clusters.add(metricsCluster(`m${i}`, i)));
  return h;
}

for (const flavor of ["higress", "envoy"] as const) {
  test(`${flavor}: the Nth call of any request-path host call failing or empty is a forwarded request, never a trap`, () => {
    const plan = new FaultPlan();
    const h = harness(flavor, plan);
    // Count the calls one request makes (headers through the end of the stream).
    plan.count();
    let n = 0;
    const probe = sendBody(h.host, body(n++));
    completeStream(probe);
    const perRequest = new Map(plan.calls);
    plan.disarm();
    const exercised = [...perRequest.keys()].sort();
    // The request path uses at least the gate, the body, the time and routing (its counters go to the host in
    // batches, on the tick: metric-batching.test.ts).
    for (const name of ["proxy_get_header_map_value", "proxy_get_buffer_bytes", "proxy_remove_header_map_value"]) {
      assert.ok(exercised.includes(name), `${name} not called on the request path: ${exercised}`);
    }
    for (const name of exercised) assert.ok(importsOf(flavor).includes(name));
    let cases = 0;
    for (const [name, count] of perRequest) {
      const actions = GETTERS.has(name) ? [...ERRORS, { status: Status.Ok }] : ERRORS;
      for (let nth = 1; nth <= count; nth++) {
        for (const action of actions) {
          // Let the snapshot expire so the host list is read again on this request.
          h.clock.advanceTo(h.clock.nowMs() + 1000);
          plan.fail(name, nth, action);
          const before = pickerCounters(h.host);
          const s = sendBody(h.host, body(n++));
          const label = `${name} call ${nth} -> ${JSON.stringify(action)}`;
          // Call counts vary a little between requests (a counter moves only when it has something to add).
          if (plan.fired === 0) {
            completeStream(s);
            plan.disarm();
            continue;
          }
          if (TELEMETRY.has(name)) {
            assert.equal(h.host.traps, 0, label);
            assert.equal(s.requestState, "forwarded", label);
            assert.ok(!s.requestHeaders.some(([, v]) => v === CLIENT_OVERRIDE), label);
          } else {
            assert.deepEqual(requestViolations(h.host, s, before, 0, new Set(PODS)), [], label);
          }
          completeStream(s);
          plan.disarm();
          cases++;
        }
      }
    }
    assert.ok(cases > 40, `only ${cases} cases`);
    // After all that, nothing is left in flight and a clean request is decided.
    const before = pickerCounters(h.host);
    const s = sendBody(h.host, body(n++));
    assert.deepEqual(requestViolations(h.host, s, before, 0, new Set(PODS)), []);
    assert.ok(h.chosen(s) !== null);
    completeStream(s);
  });

  test(`${flavor}: a host call failing on every call from the Nth on still lets requests through`, () => {
    const plan = new FaultPlan();
    const h = harness(flavor, plan);
    let n = 0;
    for (const name of importsOf(flavor)) {
      for (const action of [{ status: Status.InternalFailure }, { status: Status.NotFound }]) {
        plan.fail(name, 1, action, true);
        for (let i = 0; i < 3; i++) {
          h.clock.advanceTo(h.clock.nowMs() + 1000);
          const s = sendBody(h.host, body(n++));
          assert.equal(h.host.traps, 0, name);
          assert.equal(s.requestState, "forwarded", name);
          const chosen = h.chosen(s);
          assert.ok(chosen === null || PODS.includes(chosen), `${name}: ${chosen}`);
          assert.ok(!s.requestHeaders.some(([, v]) => v === CLIENT_OVERRIDE), name);
          completeStream(s);
        }
        plan.disarm();
      }
    }
  });

  test(`${flavor}: a host call failing during configure rejects the config with a log line or starts cleanly, never traps`, () => {
    const counting = new FaultPlan();
    // The failure signal on: its response-status read is a request-path host call too (skipped when unweighted).
  const weights = { failure: 1 };
  const config = flavor === "envoy" ? { weights, endpoints: PODS.map((address, i) => ({ address, metricsCluster: `m${i}` })) } : { weights };
    counting.count();
    pickerHost({ flavor, config, fault: counting.hook });
    const atConfigure = new Map(counting.calls);
    assert.ok(atConfigure.has("proxy_get_buffer_bytes") && atConfigure.has("proxy_define_metric"));
    for (const [name, count] of atConfigure) {
      for (const nth of [1, 2, count].filter((k, i, a) => k <= count && a.indexOf(k) === i)) {
        for (const action of [{ status: Status.InternalFailure }, ...(GETTERS.has(name) ? [{ status: Status.Ok }] : [])]) {
          const plan = new FaultPlan();
          plan.fail(name, nth, action);
          const logs: string[] = [];
          let h: ReturnType<typeof pickerHost>;
          try {
            h = pickerHost({ flavor, config, fault: plan.hook, log: (_l, m) => logs.push(m) });
          } catch (e) {
            assert.ok(e instanceof ConfigRejectedError, `${name}#${nth}: ${e}`);
            assert.ok(!logs.some((m) => m.includes("wasm trap")), `${name}#${nth}: ${logs}`);
            // Without a working proxy_log nothing can be said; otherwise the rejection is explained.
            if (name !== "proxy_log") assert.ok(logs.some((m) => m.startsWith("endpoint-picker: ")), `${name}#${nth}: ${logs}`);
            continue;
          }
          plan.disarm();
          h.setPods(PODS.map((address) => ({ address })));
          const s = sendBody(h.host, body(1));
          assert.equal(h.host.traps, 0, `${name}#${nth}`);
          assert.equal(s.requestState, "forwarded", `${name}#${nth}`);
          const chosen = h.chosen(s);
          assert.ok(chosen === null || PODS.includes(chosen), `${name}#${nth}: ${chosen}`);
          completeStream(s);
        }
      }
    }
  });
}

test("stock build: the metrics poller's host calls (http_call, get_status, shared data, buffer) failing never trap and never stop routing", () => {
  const names = ["proxy_http_call", "proxy_get_status", "proxy_get_shared_data", "proxy_set_shared_data", "proxy_get_buffer_bytes", "proxy_set_tick_period_milliseconds"];
  for (const name of names) {
    for (const action of [...ERRORS.slice(0, 3), "trap" as const]) {
      const plan = new FaultPlan();
      const h = pickerHost({
        flavor: "envoy",
        fault: plan.hook,
        failurePolicy: "FAIL_OPEN",
        config: { endpoints: PODS.map((address, i) => ({ address, metricsCluster: `m${i}` })), metrics: { pollIntervalMs: 100, snapshotTtlMs: 0 } },
      });
      PODS.forEach((_, i) => h.host.clusters.add(metricsCluster(`m${i}`, i)));
      plan.fail(name, 2, action, true);
      h.clock.advanceTo(h.clock.nowMs() + 1000);
      plan.disarm();
      const label = `${name} ${JSON.stringify(action)}`;
      // A trap inside a tick is the VM's failure (FAIL_OPEN bypasses it afterwards); an error status must not be.
      if (action !== "trap") assert.equal(h.host.traps, 0, label);
      const s = sendBody(h.host, body(7));
      assert.equal(s.requestState, "forwarded", label);
      const chosen = h.chosen(s);
      assert.ok(chosen === null || PODS.includes(chosen) || (action === "trap" && chosen === CLIENT_OVERRIDE), `${label}: ${chosen}`);
      // After a trap, FAIL_OPEN bypasses the filter, client header included (see security-override-header).
      if (action !== "trap") assert.ok(!s.requestHeaders.some(([, v]) => v === CLIENT_OVERRIDE), label);
      completeStream(s);
    }
  }
});

for (const flavor of ["envoy", "higress"] as const) {
  test(`${flavor}: when removing the client's x-gateway-destination-endpoint fails, a fail-open must not forward it`, () => {
    const plan = new FaultPlan();
    const h = harness(flavor, plan);
    plan.fail("proxy_remove_header_map_value", 1, { status: Status.InternalFailure }, true);
    // A GET is a fail-open at the gate; so is a body that is not JSON.
    const s = h.host.newStream({ clusterName: "backends" });
    s.decodeHeaders([[":method", "GET"], [":path", "/v1/models"], [":authority", "g"], ["x-gateway-destination-endpoint", CLIENT_OVERRIDE]], true);
    assert.equal(s.requestState, "forwarded");
    assert.ok(!s.requestHeaders.some(([, v]) => v === CLIENT_OVERRIDE), "client header forwarded after a failed removal");
  });
}

for (const flavor of ["envoy", "higress"] as const) {
  test(`${flavor}: the client's x-gateway-destination-endpoint is removed when the headers cannot be read, and only when sent otherwise`, () => {
    const plan = new FaultPlan();
    const h = harness(flavor, plan);
    const send = (headers: Array<[string, string]>) => {
      const s = h.send(chat(text(5, 800), [], "q"), headers);
      const forwarded = s.requestHeaders.some(([k]) => k.toLowerCase() === "x-gateway-destination-endpoint");
      completeStream(s);
      return forwarded;
    };
    // The gate reads the headers in one call; when that fails it cannot tell, so it removes the header anyway.
    plan.fail("proxy_get_header_map_pairs", 1, { status: Status.InternalFailure }, true);
    assert.equal(send([["x-gateway-destination-endpoint", CLIENT_OVERRIDE]]), false, "unreadable headers: removed anyway");
    assert.ok(plan.fired >= 1, "the header read failed");
    assert.ok((plan.calls.get("proxy_remove_header_map_value") ?? 0) >= 1);
    plan.count();
    assert.equal(send([["X-Gateway-Destination-Endpoint", CLIENT_OVERRIDE]]), false, "sent: removed");
    assert.ok((plan.calls.get("proxy_remove_header_map_value") ?? 0) >= 1);
    plan.count();
    send([]);
    assert.equal(plan.calls.get("proxy_remove_header_map_value") ?? 0, 0, "not sent: no removal call");
  });
}
