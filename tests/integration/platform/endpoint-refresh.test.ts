// assembly/platform/endpoint-refresh.ts through the Higress build: a fetched metrics page becomes the endpoint's
// load, an unusable one is counted (an empty one is not: no health check ran yet), and an endpoint whose
// prefix-cache counters go backwards (its engine restarted) loses what the index remembered for it.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FilterStream } from "../../../src-host/host/filter-stream.ts";
import { StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";

const [A, B] = ["10.7.2.1:8000", "10.7.2.2:8000"];
const PROMPT = { model: "m", messages: [{ role: "user", content: "a long shared system prompt ".repeat(40) }] };

function harness(): StaticClusterHarness {
  // The worker's own index only: hints shared between workers are a separate store.
  return new StaticClusterHarness({ pluginConfig: JSON.stringify({ metrics: { snapshotTtlMs: 0 }, debug: { header: true }, prefix: { shareAcrossWorkers: false } }), log: () => {} });
}

function debugOf(h: StaticClusterHarness, s: FilterStream): string {
  s.encodeHeaders([[":status", "200"]], false);
  const v = s.state.responseHeaders?.get("x-endpoint-picker-debug") ?? "";
  s.encodeData(new Uint8Array(0), true);
  s.finish();
  return v;
}

const matched = (debug: string) => Number(/matched=(\d+)/.exec(debug)![1]);

const counters = (queries: number) => ({ metrics: { prefixCacheQueries: queries, prefixCacheHits: queries / 2 } });

/** A idle with its prefix-cache counters at queriesOfA, B busier with steady counters. */
function setCounters(h: StaticClusterHarness, queriesOfA: number): void {
  h.cluster.hostList = [
    { address: A, healthStatus: "Healthy", metrics: vllmPage({ waiting: 0 }, counters(queriesOfA)) },
    { address: B, healthStatus: "Healthy", metrics: vllmPage({ waiting: 1 }, counters(5000)) },
  ];
}

test("an empty metrics page is unknown load, not an error; an unusable one is counted", () => {
  const h = harness();
  h.cluster.hostList = [
    { address: A, healthStatus: "Healthy", metrics: "" },
    { address: B, healthStatus: "Healthy", metrics: vllmPage({ waiting: 1 }) },
  ];
  h.complete(h.send(PROMPT));
  assert.equal(h.counter("metrics_parse_errors"), 0);
  h.cluster.hostList[0] = { address: A, healthStatus: "Healthy", metrics: "# HELP nothing we read\nfoo_total 1\n" };
  h.complete(h.send(PROMPT));
  assert.equal(h.counter("metrics_parse_errors"), 1);
});

test("a parsed page is the endpoint's load: the endpoint with the shorter queue is chosen", () => {
  const h = harness();
  h.setEndpoints([{ address: A, waiting: 12, running: 30, kv: 0.7 }, { address: B, waiting: 0, kv: 0.1 }]);
  const s = h.send({ model: "m", messages: [{ role: "user", content: "hi" }] });
  assert.equal(h.chosen(s), B);
  h.complete(s);
});

test("prefix-cache counters going backwards (a restart) drop the endpoint's index entries", () => {
  const h = harness();
  const set = (queriesOfA: number) => setCounters(h, queriesOfA);
  set(1000);
  const first = h.send(PROMPT);
  assert.equal(h.chosen(first), A, "A is the less loaded");
  debugOf(h, first);
  set(2000); // growing counters: the same engine
  const again = debugOf(h, h.send(PROMPT));
  assert.ok(matched(again) > 0, "the index remembers the prompt on A");
  set(10); // counters restarted from zero
  assert.ok(matched(debugOf(h, h.send(PROMPT))) > 0, "one low page is not believed alone (a series missing, or cut short)");
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  set(20); // the next page reads low too: a restart
  const afterRestart = debugOf(h, h.send(PROMPT));
  assert.equal(matched(afterRestart), 0, "a restarted engine holds nothing the index remembered");
});

test("a page that reads low once, then as before, keeps the endpoint's index entries", () => {
  const h = harness();
  const set = (queriesOfA: number) => setCounters(h, queriesOfA);
  set(1000);
  debugOf(h, h.send(PROMPT));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  set(400); // one engine's series missing from the page
  assert.ok(matched(debugOf(h, h.send(PROMPT))) > 0, "one low page does not empty A's entries");
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  set(2000); // the whole page again
  assert.ok(matched(debugOf(h, h.send(PROMPT))) > 0, "the index still remembers the prompt on A");
});

test("hints other workers published before an endpoint restarted do not count for it", () => {
  const h = new StaticClusterHarness({
    workers: 2,
    pluginConfig: JSON.stringify({ metrics: { snapshotTtlMs: 0 }, debug: { header: true }, prefix: { shareAcrossWorkers: true } }),
    log: () => {},
  });
  const set = (queriesOfA: number) => setCounters(h, queriesOfA);
  set(1000);
  // Worker 1 learns A's counters, then worker 0 sends the prompt to A and publishes it.
  debugOf(h, h.send({ model: "m", messages: [{ role: "user", content: "unrelated" }] }, { worker: 1 }));
  h.clock.advanceTo(h.clock.nowMs() + 100); // its load change reaches the shared count
  const first = h.send(PROMPT, { worker: 0 });
  assert.equal(h.chosen(first), A);
  debugOf(h, first);
  h.clock.advanceTo(h.clock.nowMs() + 10);
  const shared = debugOf(h, h.send(PROMPT, { worker: 1 }));
  assert.ok(matched(shared) > 0, "worker 1 knows the prompt on A from worker 0's hint");
  h.clock.advanceTo(h.clock.nowMs() + 10);
  set(10); // A's engine restarted
  debugOf(h, h.send(PROMPT, { worker: 1 })); // worker 1's first low reading
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  set(20); // and a later one confirms it
  const afterRestart = debugOf(h, h.send(PROMPT, { worker: 1 }));
  assert.equal(matched(afterRestart), 0, "the hint predates the restart");
});

test("an SGLang engine's restart (its prompt and cached token counters go back) drops its index entries too", () => {
  const h = harness();
  const sglang = (waiting: number, prompt: number) =>
    `sglang:num_queue_reqs{model_name="m"} ${waiting}\nsglang:num_running_reqs{model_name="m"} 0\n` +
    `sglang:token_usage{model_name="m"} 0.1\nsglang:prompt_tokens_total{model_name="m"} ${prompt}\n` +
    `sglang:cached_tokens_total{model_name="m",cache_source="device"} ${prompt / 2}\n` +
    `sglang:max_total_num_tokens{model_name="m"} 400000\n`;
  const set = (promptOfA: number) => {
    h.cluster.hostList = [
      { address: A, healthStatus: "Healthy", metrics: sglang(0, promptOfA) },
      { address: B, healthStatus: "Healthy", metrics: sglang(3, 5000) },
    ];
  };
  set(1000);
  const first = h.send(PROMPT);
  assert.equal(h.chosen(first), A);
  debugOf(h, first);
  set(2000);
  assert.ok(matched(debugOf(h, h.send(PROMPT))) > 0, "the index remembers the prompt on A");
  set(10);
  debugOf(h, h.send(PROMPT)); // one low page, not believed alone
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  set(20);
  assert.equal(matched(debugOf(h, h.send(PROMPT))), 0, "a restarted engine holds nothing the index remembered");
});

test("a restarted SGLang engine is noticed before its first cached token (it has no cached_tokens_total series yet)", () => {
  const h = harness();
  // SGLang creates the cached_tokens_total series at the first cached token: a restarted server's page lacks it.
  const sglang = (waiting: number, prompt: number, cached: boolean) =>
    `sglang:num_queue_reqs{model_name="m"} ${waiting}\nsglang:num_running_reqs{model_name="m"} 0\n` +
    `sglang:token_usage{model_name="m"} 0.1\nsglang:prompt_tokens_total{model_name="m"} ${prompt}\n` +
    (cached ? `sglang:cached_tokens_total{model_name="m",cache_source="device"} ${prompt / 2}\n` : "") +
    `sglang:max_total_num_tokens{model_name="m"} 400000\n`;
  const set = (promptOfA: number, cached: boolean) => {
    h.cluster.hostList = [
      { address: A, healthStatus: "Healthy", metrics: sglang(0, promptOfA, cached) },
      { address: B, healthStatus: "Healthy", metrics: sglang(3, 5000, true) },
    ];
  };
  set(1000, true);
  const first = h.send(PROMPT);
  assert.equal(h.chosen(first), A);
  debugOf(h, first);
  set(2000, true);
  assert.ok(matched(debugOf(h, h.send(PROMPT))) > 0, "the index remembers the prompt on A");
  set(10, false);
  debugOf(h, h.send(PROMPT)); // one low page, not believed alone
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  set(20, false);
  assert.equal(matched(debugOf(h, h.send(PROMPT))), 0, "a restarted engine holds nothing the index remembered");
});
