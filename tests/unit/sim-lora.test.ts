// LoRA adapters in the engine and the simulator: vLLM's max_loras limit on a batch (a request whose adapter would
// exceed it waits, the others go by), the load of an adapter a pod does not keep, adapters in workloads and
// requests (their KV chained apart), the pods' vllm:lora_requests_info, and the oracle's view of the load.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, type EngineConfigInput } from "../../src-host/backend/engine.ts";
import { renderVllmMetrics } from "../../src-host/backend/metrics.ts";
import { createGenerator } from "../../src-host/sim/generators/create-generator.ts";
import { estimateTtftMs } from "../../src-host/sim/policies/oracle.ts";
import { roundRobinPolicy } from "../../src-host/sim/policies/round-robin.ts";
import { SimPod, engineConfig } from "../../src-host/sim/sim-pod.ts";
import { SimRequest } from "../../src-host/sim/sim-request.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload, WorkloadError } from "../../src-host/sim/workload.ts";

const tokenizer = new VocabularyTokenizer();
const ENGINE: EngineConfigInput = { blockSize: 16, kvTokens: 65536, prefillTokensPerSec: 10_000, stepOverheadMs: 5 };

function prompt(seed: number, n = 64): number[] {
  return Array.from({ length: n }, (_, i) => 1000 + ((seed * 7919 + i * 104729) % 30000));
}

test("a batch holds at most maxLoras adapters: a request with another one waits, requests behind it go by", () => {
  const engine = new Engine({ ...ENGINE, maxLoras: 2 });
  engine.submit({ id: 1, promptTokens: prompt(1), maxTokens: 8, lora: "a" }, 0);
  engine.submit({ id: 2, promptTokens: prompt(2), maxTokens: 8, lora: "b" }, 0);
  engine.submit({ id: 3, promptTokens: prompt(3), maxTokens: 8, lora: "c" }, 0);
  engine.submit({ id: 4, promptTokens: prompt(4), maxTokens: 8, lora: "a" }, 0);
  engine.submit({ id: 5, promptTokens: prompt(5), maxTokens: 8 }, 0);
  engine.advance(0); // the first step begins
  const m = engine.metrics();
  assert.deepEqual(m.runningLoraAdapters.sort(), ["a", "b"]);
  assert.deepEqual(m.waitingLoraAdapters, ["c"]);
  assert.equal(engine.numRunning, 4, "a's second request and the base model's joined the batch");
  assert.equal(engine.numWaiting, 1);
  // c runs once a and b have left the batch, first of the waiting requests.
  const events = engine.advance(10_000);
  const firstTokens = events.filter((e) => e.type === "first_token").map((e) => e.id);
  assert.deepEqual(firstTokens.slice(-1), [3]);
  assert.equal(events.filter((e) => e.type === "finished").length, 5);
});

test("without maxLoras adapters are only labels: every request joins the batch", () => {
  const engine = new Engine(ENGINE);
  for (let i = 0; i < 5; i++) engine.submit({ id: i, promptTokens: prompt(i), maxTokens: 8, lora: `l${i}` }, 0);
  engine.advance(0);
  assert.equal(engine.numRunning, 5);
  assert.equal(engine.loraLoads, 0);
});

/** When the step that admits a lone request of `lora` ends. */
function firstStepEnd(engine: Engine, id: number, lora: string | undefined, at: number): number {
  engine.submit({ id, promptTokens: prompt(id), maxTokens: 1, lora }, at);
  engine.advance(at);
  const end = engine.nextEventTime();
  engine.advance(end);
  return end - at;
}

test("a step whose batch uses an adapter the pod does not keep takes loraLoadMs longer; a kept one loads free", () => {
  const plain = new Engine({ ...ENGINE, maxLoras: 1 });
  const loading = new Engine({ ...ENGINE, maxLoras: 1, loraLoadMs: 120 });
  assert.equal(firstStepEnd(loading, 1, "a", 0) - firstStepEnd(plain, 1, "a", 0), 120);
  assert.equal(loading.isLoraLoaded("a"), true);
  assert.equal(firstStepEnd(loading, 2, "a", 1000) - firstStepEnd(plain, 2, "a", 1000), 0, "a is kept");
  assert.equal(firstStepEnd(loading, 3, undefined, 2000) - firstStepEnd(plain, 3, undefined, 2000), 0, "the base model loads nothing");
  assert.equal(loading.loraLoads, 1);
});

test("the pod keeps the maxCpuLoras most recently used adapters", () => {
  const engine = new Engine({ ...ENGINE, maxLoras: 1, maxCpuLoras: 2, loraLoadMs: 50 });
  let t = 0;
  for (const lora of ["a", "b", "a", "c", "a", "b"]) firstStepEnd(engine, t, lora, (t += 1000));
  // a, b load; a is kept; c loads and b (least recently used) goes; a is kept; b loads again.
  assert.equal(engine.loraLoads, 4);
  assert.equal(engine.isLoraLoaded("a"), true);
  assert.equal(engine.isLoraLoaded("b"), true);
  assert.equal(engine.isLoraLoaded("c"), false);
  assert.throws(() => new Engine({ ...ENGINE, maxLoras: 4, maxCpuLoras: 2 }), RangeError);
});

function loraWorkload(lora?: unknown, adapters = 6): Record<string, any> {
  return {
    seed: 5,
    pods: {
      count: 2, kvTokens: 65536, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 },
      ...(lora === undefined ? {} : { lora }),
    },
    arrival: { qps: 8, durationS: 15 },
    traffic: [{
      type: "multi-turn", conversations: 30, turns: [2, 4], systemTokens: 200, userTokens: [20, 60], assistantTokens: [10, 30],
      thinkTimeS: [0.5, 2], adapters, adapterSkew: 1,
    }],
  };
}

test("workload: adapters need pods.lora; pods.lora is checked and reaches each pod's engine", () => {
  const rejects = (w: Record<string, any>, path: string) =>
    assert.throws(() => parseWorkload(w), (e: unknown) => e instanceof WorkloadError && e.message.startsWith(path), path);
  rejects(loraWorkload(undefined), "workload.traffic[0].adapters");
  rejects(loraWorkload({ maxLoras: 0, loadMs: 10 }), "workload.pods.lora.maxLoras");
  rejects(loraWorkload({ maxLoras: 4, maxCpuLoras: 2, loadMs: 10 }), "workload.pods.lora.maxCpuLoras");
  rejects(loraWorkload({ maxLoras: 4 }), "workload.pods.lora.loadMs");
  rejects(loraWorkload({ maxLoras: 4, loadMs: 10, slots: 2 }), "workload.pods.lora.slots");
  const w = parseWorkload(loraWorkload({ maxLoras: 3, loadMs: 40 }));
  const pod = new SimPod(0, engineConfig(w.pods, 1, 0), 0);
  assert.deepEqual([pod.engine.config.maxLoras, pod.engine.config.maxCpuLoras, pod.engine.config.loraLoadMs], [3, 3, 40]);
  assert.deepEqual(pod.metricsLora, { maxLoras: 3 });
  const plain = parseWorkload({ ...loraWorkload(undefined, 0) });
  assert.equal(new SimPod(0, engineConfig(plain.pods, 1, 0), 0).metricsLora, undefined, "no adapters, no lora series");
});

test("a conversation keeps one adapter, popular ones more often; without adapters requests name the base model", () => {
  const w = parseWorkload(loraWorkload({ maxLoras: 2, loadMs: 10 }, 8));
  const gen = createGenerator(w.traffic[0], 0, w.seed);
  const count = new Map<string, number>();
  const bySession = new Map<string, string>();
  for (let i = 0; i < 400; i++) {
    const spec = gen.next(i)!;
    const lora = spec.lora!;
    assert.match(lora, /^lora-[0-7]$/);
    assert.equal(bySession.get(spec.sessionKey) ?? lora, lora, "one adapter per conversation");
    bySession.set(spec.sessionKey, lora);
    count.set(lora, (count.get(lora) ?? 0) + 1);
    gen.complete(spec, i);
    gen.release(spec.slot);
  }
  assert.ok((count.get("lora-0") ?? 0) > (count.get("lora-7") ?? 0), JSON.stringify([...count]));
  const plain = createGenerator(parseWorkload(loraWorkload(undefined, 0)).traffic[0], 0, 5);
  assert.equal(plain.next(0)!.lora, undefined);
});

test("the same messages under two adapters share no KV block; the body names the adapter", () => {
  const messages = [{ role: "system" as const, content: "shared system prompt ".repeat(20) }, { role: "user" as const, content: "hi" }];
  const req = (lora?: string) => new SimRequest(0, { generator: 0, sessionKey: "s", messages, maxTokens: 4, slot: 0, lora }, lora ?? "base", 0, tokenizer, 16);
  const a = req("lora-1");
  const b = req("lora-2");
  const base = req();
  assert.ok(a.blockHashes.length > 2);
  for (const other of [b, base]) assert.ok(a.blockHashes.every((h) => !other.blockHashes.includes(h)));
  assert.equal(JSON.parse(a.body).model, "lora-1");
});

test("a pod's metrics page carries vllm:lora_requests_info with its max_lora and running adapters", () => {
  const w = parseWorkload(loraWorkload({ maxLoras: 4, loadMs: 10 }));
  const pod = new SimPod(0, engineConfig(w.pods, 1, 0), 0);
  pod.engine.submit({ id: 1, promptTokens: prompt(1), maxTokens: 8, lora: "lora-3" }, 0);
  pod.engine.advance(0);
  pod.engine.advance(pod.engine.nextEventTime());
  const page = renderVllmMetrics(pod.engine.metrics(), { modelName: "m", nowSeconds: 100, createdSeconds: 0, lora: pod.metricsLora });
  assert.match(page, /vllm:lora_requests_info\{max_lora="4",running_lora_adapters="lora-3",waiting_lora_adapters=""\}/);
});

test("oracle: a pod that does not keep the request's adapter is estimated slower by its load", () => {
  const w = parseWorkload(loraWorkload({ maxLoras: 2, loadMs: 70 }));
  const pods = [0, 1].map((i) => new SimPod(i, engineConfig(w.pods, i, i), 0));
  pods[1].engine.submit({ id: 1, promptTokens: prompt(1), maxTokens: 1, lora: "lora-0" }, 0);
  pods[1].engine.advance(0);
  pods[1].engine.advance(pods[1].engine.nextEventTime());
  const spec = { generator: 0, sessionKey: "s", messages: [{ role: "user" as const, content: "hello there" }], maxTokens: 4, slot: 0, lora: "lora-0" };
  const r = new SimRequest(9, spec, "lora-0", 0, tokenizer, 16);
  assert.ok(Math.abs(estimateTtftMs(pods[0], r, w.pods) - estimateTtftMs(pods[1], r, w.pods) - 70) < 1e-9);
});

test("a LoRA workload runs end to end: adapters load, every request is answered", async () => {
  const w = parseWorkload(loraWorkload({ maxLoras: 2, loadMs: 100 }, 12));
  const run = await runPolicy(w, "round-robin", roundRobinPolicy, { tokenizer });
  assert.ok(run.summary.requests > 50);
  assert.equal(run.summary.failed, 0);
});

test("the run's summary counts adapter loads, over a restart too; workloads without adapters leave the field out", async () => {
  const w = parseWorkload({ ...loraWorkload({ maxLoras: 2, loadMs: 100 }, 12), faults: [{ type: "restart", atS: 8, pod: 0, downS: 1 }] });
  const run = await runPolicy(w, "round-robin", roundRobinPolicy, { tokenizer });
  assert.ok(run.summary.lora_loads! > 4, `12 adapters on 2 pods keeping 2 each: ${run.summary.lora_loads} loads`);
  const plain = await runPolicy(parseWorkload(loraWorkload(undefined, 0)), "round-robin", roundRobinPolicy, { tokenizer });
  assert.equal("lora_loads" in plain.summary, false);
});
