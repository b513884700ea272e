// assembly/platform/departed-endpoints.ts through the stock Envoy build: an endpoint whose polls keep failing is
// taken for gone, evicted and forgotten (its index entries with it), and comes back, with nothing remembered, once a
// poll succeeds; one failed poll alone only marks it unhealthy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, type Cluster, type HttpCallOutcome } from "../../../src-host/host/cluster.ts";
import { StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";
import { VirtualClock } from "../../../src-host/host/clock.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";
import type { DebugScores } from "../../../src-host/fuzz/debug-header.ts";
import { debugOf, matchedOn } from "../../support/picker.ts";

const PODS = ["10.9.0.1:8000", "10.9.0.2:8000"];
const POLL_MS = 200;
// Taken for gone once its last successful poll is older than 2 × POLL_MS + TIMEOUT_MS with its record unhealthy.
const TIMEOUT_MS = 100;
// One user message: no preamble, so no hot-preamble credit (hot-preamble.ts) spreads its match to other endpoints.
const PROMPT = {
  model: "m",
  messages: [{ role: "user", content: Array.from({ length: 300 }, (_, i) => `rule ${i} of the house style`).join("; ") }],
};
const OTHER_PROMPT = { model: "m", messages: [{ role: "user", content: "what time is it?" }] };

interface Stock {
  harness: StaticClusterHarness;
  /** Per endpoint, whether its polls fail (503). */
  down: Set<string>;
}

function stock(): Stock {
  const down = new Set<string>();
  const clusters = new ClusterRegistry();
  PODS.forEach((address, i) => {
    const cluster: Cluster = {
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch(_req, respond: (o: HttpCallOutcome) => void) {
        const failed = down.has(address);
        const body = failed ? "unavailable" : vllmPage({ waiting: 0, kv: 0.1 });
        respond({ headers: [[":status", failed ? "503" : "200"]], body: new TextEncoder().encode(body), trailers: [] });
      },
    };
    clusters.add(cluster);
  });
  const harness = new StaticClusterHarness({
    flavor: "envoy",
    workers: 1,
    clusters,
    pluginConfig: JSON.stringify({
      endpoints: PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })),
      metrics: { pollIntervalMs: POLL_MS, pollTimeoutMs: TIMEOUT_MS, snapshotTtlMs: 0 },
      debug: { header: true },
    }),
    log: () => {},
  });
  return { harness, down };
}

function advance(s: Stock, ms: number): void {
  s.harness.clock.advanceTo(s.harness.clock.nowMs() + ms);
}

/** Routes the prompt and returns the decision as its debug header tells it. */
function decide(s: Stock, prompt: object = PROMPT): DebugScores {
  const stream = s.harness.send(prompt);
  const debug = debugOf(stream);
  s.harness.complete(stream);
  return debug;
}

test("an endpoint whose polls keep failing is evicted with its index entries, and comes back without them", () => {
  const s = stock();
  advance(s, POLL_MS * 2);
  const holder = decide(s).endpoint;
  const other = PODS.find((p) => p !== holder)!;
  const held = matchedOn(decide(s), holder);
  assert.ok(typeof held === "number" && held > 0, `the index remembers the prompt on ${holder}: ${held}`);

  s.down.add(holder);
  advance(s, POLL_MS);
  assert.equal(matchedOn(decide(s, OTHER_PROMPT), holder), "excluded", "one failed poll: tracked, unhealthy");
  assert.equal(s.harness.counter("evicted_endpoints"), 0);
  advance(s, POLL_MS * 2 + TIMEOUT_MS);
  const gone = decide(s, OTHER_PROMPT);
  assert.equal(matchedOn(gone, holder), "untracked", "polls failing for long: taken for gone");
  assert.equal(gone.endpoint, other);
  assert.equal(s.harness.counter("evicted_endpoints"), 1);

  s.down.delete(holder);
  advance(s, POLL_MS * 2);
  // Neither its index entries nor the prefix hints the worker published for it (shared data keeps those) count.
  const back = decide(s);
  assert.deepEqual([matchedOn(back, holder), matchedOn(back, other)], [0, 0], "back after a successful poll, with nothing remembered");
});

test("one failed poll between good ones forgets nothing", () => {
  const s = stock();
  advance(s, POLL_MS * 2);
  const holder = decide(s).endpoint;
  s.down.add(holder);
  advance(s, POLL_MS);
  assert.equal(matchedOn(decide(s), holder), "excluded");
  s.down.delete(holder);
  advance(s, POLL_MS);
  const back = decide(s);
  const held = matchedOn(back, holder);
  assert.ok(typeof held === "number" && held > 0, `still remembered: ${held}`);
  assert.equal(back.endpoint, holder);
  assert.equal(s.harness.counter("evicted_endpoints"), 0);
});

test("with a poll timeout past the interval, one timed-out poll is not taken for two", () => {
  // A poll that times out holds back the next (one call per endpoint at a time): with TIMEOUT_LONG > POLL_MS the
  // second failed poll ends later than 2 × POLL_MS + TIMEOUT_LONG after the last success.
  const TIMEOUT_LONG = 500;
  const clusters = new ClusterRegistry();
  let calls = 0;
  let hanging = "";
  const clock = new VirtualClock();
  PODS.forEach((address, i) => {
    clusters.add({
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch(_req, respond: (o: HttpCallOutcome) => void) {
        const ok = () => respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(vllmPage({ waiting: 0, kv: 0.1 })), trailers: [] });
        if (address !== hanging) return ok();
        // The first call after it hangs times out; the next is answered, slowly but within the timeout.
        if (calls++ === 0) return;
        clock.after(TIMEOUT_LONG - 100, ok);
      },
    });
  });
  const harness = new StaticClusterHarness({
    flavor: "envoy",
    workers: 1,
    clusters,
    clock,
    pluginConfig: JSON.stringify({
      endpoints: PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })),
      metrics: { pollIntervalMs: POLL_MS, pollTimeoutMs: TIMEOUT_LONG, snapshotTtlMs: 0 },
      debug: { header: true },
    }),
    log: () => {},
  });
  const s: Stock = { harness, down: new Set() };
  advance(s, POLL_MS * 2);
  const holder = decide(s).endpoint;
  hanging = holder;
  const before = matchedOn(decide(s), holder);
  assert.ok(typeof before === "number" && before > 0, `the index remembers the prompt on ${holder}: ${before}`);
  for (let t = 0; calls < 2 || t < POLL_MS * 2 + TIMEOUT_LONG * 2; t += 50) {
    advance(s, 50);
    assert.notEqual(matchedOn(decide(s, OTHER_PROMPT), holder), "untracked", `one failed poll, at +${t + 50} ms`);
  }
  assert.equal(s.harness.counter("evicted_endpoints"), 0);
  const after = matchedOn(decide(s), holder);
  assert.ok(typeof after === "number" && after > 0, `still remembered: ${after}`);
});
