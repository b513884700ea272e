// The picker's counters are held in its memory and written to the host in batches (assembly/abi/plugin-metric.ts):
// no proxy_increment_metric on a request, yet every count reaches the host within a second (its tick) and when its
// configuration goes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chat, pickerHost, text } from "../../support/picker.ts";

const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"];
/** assembly/picker/picker-root.ts METRICS_FLUSH_MS. */
const METRICS_FLUSH_MS = 1000;

function countingPicker() {
  const calls = { increments: 0 };
  const h = pickerHost({
    fault: (name) => {
      if (name === "proxy_increment_metric") calls.increments++;
      return undefined;
    },
  });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  return { h, calls };
}

/** The host's counters as they stand, without running the plugin's tick (PluginHost.stats, not scrape). */
function now(h: ReturnType<typeof pickerHost>, name: string): number {
  const v = h.host.stats()[`endpoint_picker.${name}`];
  return typeof v === "number" ? v : 0;
}

test("requests cost no host call per counter: increments are batched, and the tick writes them out", () => {
  const { h, calls } = countingPicker();
  const startMs = h.clock.nowMs();
  const before = calls.increments;
  const requests = 6;
  for (let i = 0; i < requests; i++) h.complete(h.send(chat(text(10 + i, 2000), [], "q" + i)));
  // Each request adds to requests, decisions, prefix_total_chars and inflight (+1 and -1): one call each before.
  assert.ok(calls.increments - before < requests, `${calls.increments - before} increment calls for ${requests} requests`);
  // The worker's timer writes them out: no request needed, the clock only moves to the next tick.
  h.clock.advanceTo(startMs + METRICS_FLUSH_MS);
  assert.equal(now(h, "requests"), requests);
  assert.equal(now(h, "decisions"), requests);
  assert.equal(now(h, "inflight"), 0);
});

test("a busy worker makes no increment call on a request: its counts wait for its tick, at most METRICS_FLUSH_MS", () => {
  const { h, calls } = countingPicker();
  const startMs = h.clock.nowMs();
  const before = calls.increments;
  const requests = 40;
  for (let i = 0; i < requests; i++) h.complete(h.send(chat(text(50 + i, 2000), [], "q" + i)));
  assert.equal(calls.increments - before, 0, "increment calls before the tick");
  h.clock.advanceTo(startMs + METRICS_FLUSH_MS);
  assert.equal(now(h, "decisions"), requests);
  assert.equal(now(h, "requests"), requests);
  assert.equal(now(h, "inflight"), 0);
});

test("the counts a configuration holds back are written when it goes", () => {
  const { h } = countingPicker();
  for (let i = 0; i < 3; i++) h.complete(h.send(chat(text(90 + i, 2000), [], "q" + i)));
  h.host.close();
  assert.equal(now(h, "decisions"), 3);
  assert.equal(now(h, "requests"), 3);
});

test("a replaced configuration's counts are written when its root context goes", () => {
  const { h } = countingPicker();
  for (let i = 0; i < 3; i++) h.complete(h.send(chat(text(120 + i, 2000), [], "q" + i)));
  h.host.replaceConfiguration(JSON.stringify({ debug: { header: true } }));
  assert.equal(now(h, "decisions"), 3);
});

test("a scrape runs the worker's timer now, without moving the clock, and the timer keeps its schedule", () => {
  const { h } = countingPicker();
  const startMs = h.clock.nowMs();
  for (let i = 0; i < 2; i++) h.complete(h.send(chat(text(150 + i, 2000), [], "q" + i)));
  assert.equal(h.counter("decisions"), 2); // PluginHost.scrape
  assert.equal(h.clock.nowMs(), startMs);
  for (let i = 2; i < 4; i++) h.complete(h.send(chat(text(150 + i, 2000), [], "q" + i)));
  h.clock.advanceTo(startMs + METRICS_FLUSH_MS);
  assert.equal(now(h, "decisions"), 4);
});
