// Leases and memory over a long run: 1,000,000 short requests through the Higress build on two workers, with
// endpoints coming and going every few thousand requests, up to 40 overlapping streams ending in random order
// (200, 5xx, resets before and after the body, 413 local replies, invalid bodies, answers from an earlier filter; a
// quarter on HTTP/3, whose filters go before the access log). Afterwards the inflight gauge
// is 0, and per endpoint and worker no lease is left (held-open requests spread exactly evenly under
// inflight-only scoring); linear memory does not grow after the first tenth of the run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runLeaseSoak } from "../../src-host/fuzz/lease-soak.ts";
import { pickerCounters, sendBody } from "../../src-host/fuzz/picker-driver.ts";
import { chosenEndpoint, completeStream } from "../../src-host/harness/plugin-request.ts";
import { StaticClusterHarness } from "../../src-host/harness/static-cluster-harness.ts";

// About 25 s on a 2-core machine; LEASE_SOAK_REQUESTS overrides it.
const REQUESTS = Number(process.env.LEASE_SOAK_REQUESTS ?? 1_000_000);

test(`after ${REQUESTS} requests with resets, local replies, errors and endpoint churn, every lease is back and memory is flat`, () => {
  const r = runLeaseSoak({ requests: REQUESTS, seed: 42 });
  assert.equal(r.inflightGauge, 0, "endpoint_picker.inflight after every stream ended");
  assert.ok(r.decisions > REQUESTS / 2, `only ${r.decisions} decisions`);
  for (const [w, seen] of r.spread.entries()) {
    assert.ok(!seen.has("none"), `worker ${w}: a held-open request was not decided`);
    assert.equal(seen.size, r.liveEndpoints, `worker ${w}: ${[...seen]}`);
    for (const [endpoint, n] of seen) assert.equal(n, 2, `worker ${w}: ${endpoint} got ${n} of ${2 * seen.size}: ${[...seen]}`);
  }
  assert.equal(r.outstandingAtEnd, 0);
  assert.equal(r.memoryAtEnd, r.memoryAfterWarmup, "linear memory grew after warm-up");
});

test("a lease on a departed endpoint is released without corrupting its successor's count", () => {
  const [A, B, C] = ["10.7.0.1:8000", "10.7.0.2:8000", "10.7.0.3:8000"];
  const harness = new StaticClusterHarness({
    // Inflight decides; two slots only, so C must take the slot A leaves.
    pluginConfig: JSON.stringify({ weights: { queue: 0, kvCache: 0, prefixCache: 0, inflight: 1 }, loadGuard: { factor: 0 }, limits: { maxEndpoints: 2 } }),
    log: () => {},
  });
  const h = harness.host;
  const set = (addresses: string[]) => {
    harness.setEndpoints(addresses.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
    harness.clock.advanceTo(harness.clock.nowMs() + 1000);
  };
  const body = new TextEncoder().encode('{"model":"m","messages":[{"role":"user","content":"q"}]}');
  const open = () => {
    const s = sendBody(h, body);
    return { s, at: chosenEndpoint(h, s) };
  };
  set([A, B]);
  const first = [open(), open(), open(), open()];
  const onA = first.filter((x) => x.at === A);
  const onB = first.filter((x) => x.at === B);
  assert.equal(onA.length, 2);
  assert.equal(onB.length, 2);
  set([B, C]);
  // The refresh that drops A gives its slot to C at once; C starts from zero.
  assert.deepEqual([open().at, open().at], [C, C], "C starts from zero in A's old slot");
  // B: 2 open, C: 2 open. End one on B, then both leases of the departed A.
  completeStream(onB[0].s);
  for (const x of onA) completeStream(x.s);
  // Correct counts: B 1, C 2, so B wins. Had A's leases been taken off C (0), C would win.
  assert.equal(open().at, B);
  assert.equal(pickerCounters(h).get("inflight"), 4);
});

test("HTTP/3 streams that never reached the filter, logged after their filters went, leave nothing behind in the plugin", () => {
  // An earlier filter answers each one (a 401): Envoy creates it in the VM only for its deferred access log, and no
  // on_done or on_delete follows (conn_manager_impl.cc doDeferredStreamDestroy, context.cc Context::log).
  const harness = new StaticClusterHarness({ workers: 1, pluginConfig: "{}", log: () => {} });
  harness.setEndpoints([{ address: "10.7.1.1:8000", waiting: 0, running: 0, kv: 0.1 }]);
  const h = harness.host;
  const answeredEarlier = (n: number) => {
    for (let i = 0; i < n; i++) {
      const s = h.newStream({ clusterName: harness.cluster.name, protocol: "HTTP/3" }, 0);
      s.encodeHeaders([[":status", "401"]], true);
      s.finish();
    }
  };
  answeredEarlier(5000);
  const before = h.workers[0].vm.linearMemoryBytes();
  answeredEarlier(100_000);
  assert.equal(h.workers[0].vm.linearMemoryBytes(), before, "linear memory grew");
  // And a request after them is decided and leaves nothing in flight.
  const s = sendBody(h, BODY_FOR_H3);
  assert.equal(chosenEndpoint(h, s), "10.7.1.1:8000");
  completeStream(s);
  assert.equal(pickerCounters(h).get("inflight"), 0);
});

const BODY_FOR_H3 = new TextEncoder().encode(JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello there" }] }));
