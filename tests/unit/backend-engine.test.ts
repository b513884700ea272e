import assert from "node:assert/strict";
import { test } from "node:test";
import { computeBlockHashes } from "../../src-host/backend/block-hash.ts";
import {
  DEFAULT_ENGINE_CONFIG, Engine, EngineRequestError, resolveEngineConfig, type EngineConfigInput, type EngineEvent, type EngineRequest, type FinishedEvent,
} from "../../src-host/backend/engine.ts";

const CONFIG: EngineConfigInput = {
  blockSize: 16, kvTokens: 16384, maxNumSeqs: 8, maxBatchTokens: 512,
  prefillTokensPerSec: 10_000, stepOverheadMs: 5, decodePerSeqMs: 0.5,
};

function tokens(n: number, start: number): number[] {
  return Array.from({ length: n }, (_, i) => start + i);
}

/** Runs the engine in virtual time until idle; returns all events in order. */
function drain(engine: Engine, events: EngineEvent[] = []): EngineEvent[] {
  for (let t = engine.nextEventTime(); t !== Infinity; t = engine.nextEventTime()) engine.advance(t, events);
  return events;
}

/** Submits `arrivals` in time order, advancing between them, then drains. */
function simulate(engine: Engine, arrivals: { at: number; req: EngineRequest }[], check?: () => void): EngineEvent[] {
  const events: EngineEvent[] = [];
  for (const { at, req } of arrivals) {
    while (engine.nextEventTime() <= at) {
      engine.advance(engine.nextEventTime(), events);
      check?.();
    }
    engine.submit(req, at);
  }
  for (let t = engine.nextEventTime(); t !== Infinity; t = engine.nextEventTime()) {
    engine.advance(t, events);
    check?.();
  }
  return events;
}

function finished(events: EngineEvent[]): Map<string | number, FinishedEvent> {
  const m = new Map<string | number, FinishedEvent>();
  for (const e of events) if (e.type === "finished") m.set(e.id, e);
  return m;
}

test("a lone request's TTFT is the chunked prefill time of its prompt", () => {
  const engine = new Engine(CONFIG);
  const { attentionMsPerMTokenPairs: attention, decodeMsPerKContextTokens: kvRead } = engine.config;
  const prompt = 1300; // chunks of 512, 512, 276
  engine.submit({ id: "a", promptTokens: tokens(prompt, 1), maxTokens: 4 }, 100);
  const done = finished(drain(engine)).get("a")!;
  // Each chunk attends over the tokens before it and causally over itself.
  const chunkMs = (n: number, before: number) => 5 + (n * 1000) / 10_000 + (attention * (n * before + (n * (n + 1)) / 2)) / 1e6;
  const prefill = chunkMs(512, 0) + chunkMs(512, 512) + chunkMs(276, 1024);
  assert.ok(Math.abs(done.ttftMs - prefill) < 1e-9, `ttft ${done.ttftMs} vs ${prefill}`);
  // Then three single-sequence decode steps, each reading the KV of the whole sequence so far.
  const decodeMs = (context: number) => 5 + 0.5 + (kvRead * context) / 1000;
  assert.ok(Math.abs(done.e2eMs - (prefill + decodeMs(1301) + decodeMs(1302) + decodeMs(1303))) < 1e-9);
  assert.deepEqual(done.usage, { promptTokens: prompt, completionTokens: 4, cachedTokens: 0 });
  assert.equal(done.finishReason, "length");
  assert.equal(engine.kvUsage(), 0, "all blocks are unpinned after finishing");
});

/** CONFIG with explicit context costs, so the expected durations do not depend on their derivation. */
const CONTEXT_COSTS: EngineConfigInput = { ...CONFIG, kvTokens: 65_536, attentionMsPerMTokenPairs: 2, decodeMsPerKContextTokens: 0.1 };

/** TTFT of `newTokens` fresh prompt tokens after `cached` tokens that an earlier request left in the cache. */
function ttftAtop(config: EngineConfigInput, cached: number, newTokens: number): number {
  const engine = new Engine(config);
  const prefix = tokens(cached, 1);
  if (cached > 0) {
    engine.submit({ id: "warm", promptTokens: prefix, maxTokens: 1 }, 0);
    drain(engine);
  }
  engine.submit({ id: "q", promptTokens: [...prefix, ...tokens(newTokens, 900_000)], maxTokens: 1 }, 1e6);
  const done = finished(drain(engine)).get("q")!;
  assert.equal(done.usage.cachedTokens, cached);
  return done.ttftMs;
}

/** Decode time (first token to last) of a lone request with a prompt of `promptTokens` and 4 output tokens. */
function decodeMsAt(config: EngineConfigInput, promptTokens: number): number {
  const engine = new Engine(config);
  engine.submit({ id: "d", promptTokens: tokens(promptTokens, 1), maxTokens: 4 }, 0);
  const done = finished(drain(engine)).get("d")!;
  return done.e2eMs - done.ttftMs;
}

test("prefilling atop a long cached prefix takes longer than the same new tokens atop none: attention reads the context", () => {
  const atop = ttftAtop(CONTEXT_COSTS, 8000, 512);
  const alone = ttftAtop(CONTEXT_COSTS, 0, 512);
  assert.ok(atop > alone, `${atop} > ${alone}`);
  // The difference is the pairs of the 512 new tokens with the 8000 cached ones, and nothing else.
  assert.ok(Math.abs(atop - alone - (2 * 512 * 8000) / 1e6) < 1e-9, `${atop - alone}`);
});

test("a decode step over long contexts takes longer than over short ones: every step reads each sequence's KV", () => {
  const long = decodeMsAt(CONTEXT_COSTS, 8000);
  const short = decodeMsAt(CONTEXT_COSTS, 100);
  assert.ok(long > short, `${long} > ${short}`);
  // Three decode steps, each reading 7900 more context tokens.
  assert.ok(Math.abs(long - short - (3 * 0.1 * 7900) / 1000) < 1e-9, `${long - short}`);
});

test("a chunked prefill attends the same token pairs as a one-shot one: each chunk is costed with its own context", () => {
  const ttft = (maxBatchTokens: number) => {
    const engine = new Engine({ ...CONTEXT_COSTS, maxBatchTokens });
    engine.submit({ id: "a", promptTokens: tokens(1300, 1), maxTokens: 1 }, 0);
    return finished(drain(engine)).get("a")!.ttftMs;
  };
  const oneShot = ttft(2048);
  const chunked = ttft(512); // 512, 512, 276: two more step overheads
  assert.ok(Math.abs(oneShot - (5 + 130 + (2 * 1300 * 1301) / 2 / 1e6)) < 1e-9, `one-shot ${oneShot}`);
  assert.ok(Math.abs(chunked - 2 * 5 - oneShot) < 1e-9, `chunked ${chunked} vs one-shot ${oneShot}`);
});

test("with both context costs 0 the step durations are the old ones: overhead, decoding sequences and prefill tokens only", () => {
  const off: EngineConfigInput = { ...CONTEXT_COSTS, attentionMsPerMTokenPairs: 0, decodeMsPerKContextTokens: 0 };
  const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} vs ${expected}`);
  near(ttftAtop(off, 8000, 512), 5 + 51.2);
  near(ttftAtop(off, 0, 512), 5 + 51.2);
  near(decodeMsAt(off, 8000), 3 * 5.5);
  near(decodeMsAt(off, 100), 3 * 5.5);
});

test("unset context costs follow the configured GPU: a faster prefill is faster at attention, a shorter step at reading KV", () => {
  const base = resolveEngineConfig({ prefillTokensPerSec: 8000, stepOverheadMs: 6 });
  const fast = resolveEngineConfig({ prefillTokensPerSec: 20_000, stepOverheadMs: 3 });
  assert.ok(base.attentionMsPerMTokenPairs > 0 && base.decodeMsPerKContextTokens > 0);
  assert.ok(Math.abs(fast.attentionMsPerMTokenPairs / base.attentionMsPerMTokenPairs - 8000 / 20_000) < 1e-12);
  assert.ok(Math.abs(fast.decodeMsPerKContextTokens / base.decodeMsPerKContextTokens - 3 / 6) < 1e-12);
  assert.deepEqual(resolveEngineConfig({}), { ...DEFAULT_ENGINE_CONFIG });
  const given = resolveEngineConfig({ prefillTokensPerSec: 20_000, attentionMsPerMTokenPairs: 0, decodeMsPerKContextTokens: 0.5 });
  assert.equal(given.attentionMsPerMTokenPairs, 0);
  assert.equal(given.decodeMsPerKContextTokens, 0.5);
  for (const key of ["attentionMsPerMTokenPairs", "decodeMsPerKContextTokens"] as const) {
    for (const bad of [-1, NaN, Infinity]) {
      assert.throws(() => resolveEngineConfig({ [key]: bad }), new RegExp(`${key} must be >= 0`));
    }
  }
});

test("a repeated prompt is served from the prefix cache with a shorter TTFT under the same load", () => {
  const engine = new Engine(CONFIG);
  const prompt = tokens(2000, 7);
  const background = (id: string, at: number) => ({ at, req: { id, promptTokens: tokens(600, 50_000 + at), maxTokens: 40 } });
  const events = simulate(engine, [
    background("bg1", 0), { at: 0, req: { id: "first", promptTokens: prompt, maxTokens: 8 } },
    background("bg2", 10_000), { at: 10_000, req: { id: "second", promptTokens: prompt, maxTokens: 8 } },
  ]);
  const done = finished(events);
  const first = done.get("first")!;
  const second = done.get("second")!;
  assert.equal(first.usage.cachedTokens, 0);
  assert.equal(second.usage.cachedTokens, Math.floor((2000 - 1) / 16) * 16);
  assert.ok(second.ttftMs < first.ttftMs, `${second.ttftMs} < ${first.ttftMs}`);
  const m = engine.metrics();
  assert.equal(m.prefixCacheQueries, 2000 * 2 + 600 * 2);
  assert.equal(m.prefixCacheHits, second.usage.cachedTokens);
});

test("the next turn of a chat also hits the blocks its previous answer filled", () => {
  const engine = new Engine(CONFIG);
  const turn1 = tokens(100, 1);
  const answer = tokens(60, 9000);
  const events = simulate(engine, [{ at: 0, req: { id: 1, promptTokens: turn1, maxTokens: 60, outputTokens: answer } }]);
  const emitted = events.filter((e) => e.type === "finished");
  assert.equal(emitted.length, 1);
  const turn2 = [...turn1, ...answer, ...tokens(30, 20_000)];
  engine.submit({ id: 2, promptTokens: turn2, maxTokens: 1 }, 1e6);
  const done = finished(drain(engine)).get(2)!;
  // The last output token was never fed back through the model, so KV holds 100 + 59 tokens.
  assert.equal(done.usage.cachedTokens, Math.floor((100 + 59) / 16) * 16);
  assert.ok(done.usage.cachedTokens > Math.floor(100 / 16) * 16);
});

test("TTFT grows with queueing: requests arriving together are served in order, later ones wait longer", () => {
  const engine = new Engine({ ...CONFIG, maxNumSeqs: 2 });
  const arrivals = Array.from({ length: 6 }, (_, i) => ({ at: 0, req: { id: i, promptTokens: tokens(800, i * 10_000), maxTokens: 20 } }));
  let maxRunning = 0;
  const done = finished(simulate(engine, arrivals, () => (maxRunning = Math.max(maxRunning, engine.numRunning))));
  const ttfts = arrivals.map((a) => done.get(a.req.id)!.ttftMs);
  for (let i = 1; i < ttfts.length; i++) assert.ok(ttfts[i] >= ttfts[i - 1], `ttft[${i}] ${ttfts[i]} >= ${ttfts[i - 1]}`);
  assert.ok(ttfts[5] > 2 * ttfts[0]);
  assert.ok(maxRunning <= 2, "maxNumSeqs bounds the batch");
  assert.ok(done.get(5)!.queuedMs > 0);

  const alone = new Engine({ ...CONFIG, maxNumSeqs: 2 });
  const single = finished(simulate(alone, [arrivals[5]])).get(5)!;
  assert.ok(single.ttftMs < ttfts[5]);
});

test("batched decoding is slower per step but faster in total than serial decoding", () => {
  const reqs = (n: number) => Array.from({ length: n }, (_, i) => ({ at: 0, req: { id: i, promptTokens: tokens(32, i * 1000), maxTokens: 100 } }));
  const one = finished(simulate(new Engine(CONFIG), reqs(1))).get(0)!;
  const batch = finished(simulate(new Engine(CONFIG), reqs(8)));
  const slowest = Math.max(...[...batch.values()].map((f) => f.e2eMs));
  assert.ok(slowest > one.e2eMs, "a bigger batch makes each step longer");
  assert.ok(slowest < 8 * one.e2eMs, "but serving eight at once beats serving them one after another");
});

test("runs are deterministic in virtual time and scale exactly with speed", () => {
  const workload = (seed: number) => {
    let s = seed;
    const rnd = (n: number) => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return (s >>> 8) % n;
    };
    const shared = tokens(300, 1);
    let at = 0;
    return Array.from({ length: 60 }, (_, i) => {
      at += rnd(200);
      const own = tokens(1 + rnd(700), 100_000 + i * 1000);
      return { at, req: { id: i, promptTokens: rnd(2) ? [...shared, ...own] : own, maxTokens: 1 + rnd(50), streamTokens: i % 3 === 0 } };
    });
  };
  const a = simulate(new Engine({ ...CONFIG, kvTokens: 4096 }), workload(7));
  const b = simulate(new Engine({ ...CONFIG, kvTokens: 4096 }), workload(7));
  assert.deepEqual(a, b);
  assert.equal(finished(a).size, 60);

  const fast = simulate(new Engine({ ...CONFIG, kvTokens: 4096, speed: 10 }), workload(7).map((w) => ({ ...w, at: w.at / 10 })));
  assert.equal(fast.length, a.length);
  for (let i = 0; i < a.length; i++) {
    assert.equal(fast[i].type, a[i].type);
    assert.equal(fast[i].id, a[i].id);
    assert.ok(Math.abs(fast[i].time * 10 - a[i].time) < 1e-6 * Math.max(1, a[i].time), `event ${i} time`);
  }
  // Streamed requests get one token event per output token.
  for (const [id, f] of finished(a)) {
    const n = a.filter((e) => e.type === "token" && e.id === id).length;
    assert.equal(n, Number(id) % 3 === 0 ? f.usage.completionTokens : 0);
  }
});

test("when KV blocks run out requests are preempted and recomputed, and every request still finishes", () => {
  // 40 blocks of 16 tokens = 640 tokens; each request needs up to 300 + 200 tokens.
  const engine = new Engine({ ...CONFIG, kvTokens: 640, maxNumSeqs: 8 });
  const arrivals = Array.from({ length: 10 }, (_, i) => ({ at: i, req: { id: i, promptTokens: tokens(300, i * 1000), maxTokens: 200 } }));
  let peakUsage = 0;
  const done = finished(simulate(engine, arrivals, () => (peakUsage = Math.max(peakUsage, engine.kvUsage()))));
  assert.equal(done.size, 10);
  for (const f of done.values()) assert.equal(f.usage.completionTokens, 200);
  const m = engine.metrics();
  assert.ok(m.preemptionsTotal > 0);
  assert.equal(m.preemptionsTotal, [...done.values()].reduce((n, f) => n + f.preemptions, 0));
  assert.ok(peakUsage <= 1);
  assert.equal(engine.cache.freeBlocks, engine.config.numGpuBlocks);
  assert.equal(m.numRequestsRunning + m.numRequestsWaiting, 0);
});

test("a waiting request is admitted only when its whole prompt fits, not just its first chunk (vLLM scheduler_reserve_full_isl)", () => {
  // 40 blocks of 16 tokens, chunks of 128. a holds 16 blocks for its 250-token prompt, 19 with its output. b's
  // 400-token prompt needs 25 blocks: its first chunk (8 blocks) would fit beside a, the whole prompt does not.
  const engine = new Engine({ ...CONFIG, kvTokens: 640, maxBatchTokens: 128 });
  const events = simulate(engine, [
    { at: 0, req: { id: "a", promptTokens: tokens(250, 1), maxTokens: 50 } },
    { at: 1, req: { id: "b", promptTokens: tokens(400, 5000), maxTokens: 10 } },
  ]);
  const done = finished(events);
  assert.equal(done.size, 2);
  assert.equal(engine.metrics().preemptionsTotal, 0, "b never started a prefill it could not finish");
  assert.equal(done.get("a")!.preemptions, 0);
  // b waits for a to finish: while a runs, a's blocks and b's 25 do not fit in 40.
  assert.ok(done.get("b")!.queuedMs + 1 >= done.get("a")!.e2eMs, `b queued ${done.get("b")!.queuedMs} ms`);
});

test("requests that can never fit are refused, and aborts free their blocks", () => {
  const engine = new Engine({ ...CONFIG, kvTokens: 1024 });
  assert.equal(engine.config.maxModelLen, 1024);
  assert.throws(() => engine.submit({ id: "big", promptTokens: tokens(1000, 0), maxTokens: 100 }, 0), EngineRequestError);
  assert.throws(() => engine.submit({ id: "empty", promptTokens: [], maxTokens: 1 }, 0), EngineRequestError);
  engine.submit({ id: "x", promptTokens: tokens(500, 0), maxTokens: 100 }, 0);
  engine.submit({ id: "y", promptTokens: tokens(100, 5000), maxTokens: 5 }, 0);
  assert.throws(() => engine.submit({ id: "x", promptTokens: tokens(5, 0), maxTokens: 1 }, 0), /duplicate/);
  const events: EngineEvent[] = [];
  engine.advance(engine.nextEventTime(), events); // first step starts
  engine.advance(engine.nextEventTime(), events); // and ends
  assert.ok(engine.kvUsage() > 0);
  assert.ok(engine.abort("x", engine.nextEventTime() - 0.001));
  assert.equal(engine.abort("x", engine.nextEventTime()), false);
  drain(engine, events);
  assert.equal(events.filter((e) => e.id === "x" && e.type === "finished").length, 0);
  assert.equal(finished(events).get("y")?.usage.completionTokens, 5);
  assert.equal(engine.kvUsage(), 0);
  assert.equal(engine.metrics().requestSuccess.abort, 1);
});

test("supplied output tokens shorter than maxTokens finish with stop; precomputed hashes are honoured", () => {
  const engine = new Engine(CONFIG);
  const prompt = tokens(200, 3);
  const hashes = computeBlockHashes(prompt, 16);
  const frozen = Object.freeze(hashes.slice());
  const events = simulate(engine, [
    { at: 0, req: { id: "s", promptTokens: prompt, maxTokens: 50, outputTokens: [11, 12, 13], blockHashes: frozen } },
  ]);
  const f = finished(events).get("s")!;
  assert.equal(f.finishReason, "stop");
  assert.equal(f.usage.completionTokens, 3);
  assert.equal(engine.cache.lookup(prompt), Math.floor(199 / 16) * 16);
  assert.deepEqual(frozen, hashes, "the caller's hash array is not modified");
});

test("LoRA adapters of waiting and running requests are tracked", () => {
  const engine = new Engine({ ...CONFIG, maxNumSeqs: 1 });
  engine.submit({ id: 1, promptTokens: tokens(50, 0), maxTokens: 3, lora: "sql" }, 0);
  engine.submit({ id: 2, promptTokens: tokens(50, 100), maxTokens: 3, lora: "chat" }, 0);
  engine.advance(0);
  const m = engine.metrics();
  assert.deepEqual(m.runningLoraAdapters, ["sql"]);
  assert.deepEqual(m.waitingLoraAdapters, ["chat"]);
  drain(engine);
  assert.deepEqual(engine.metrics().runningLoraAdapters, []);
});

test("blocks are cached when they are scheduled, so a request admitted in the same step hits them (vLLM allocate_slots)", () => {
  const engine = new Engine(CONFIG);
  const prompt = tokens(64, 3);
  engine.submit({ id: "a", promptTokens: prompt, maxTokens: 2 }, 0);
  engine.submit({ id: "b", promptTokens: prompt, maxTokens: 2 }, 0);
  const done = finished(drain(engine));
  assert.equal(done.get("a")!.usage.cachedTokens, 0);
  // Both are admitted in the first step; b's lookup comes after a's allocation, which cached a's four blocks.
  // The hit stops one block short, as the last token is always recomputed.
  assert.equal(done.get("b")!.usage.cachedTokens, 48);
  assert.equal(engine.metrics().prefixCacheHits, 48);
});

test("prefix-cache counters count a request once, when it is admitted, not at each refused attempt (vLLM record_prefix_cache_stats)", () => {
  // 10 blocks of 16 tokens. a takes 7 blocks (100 prompt tokens, 8 with its output); b shares a's first 3 blocks
  // and needs 4 more, so it waits until a finishes.
  const engine = new Engine({ ...CONFIG, kvTokens: 160, maxModelLen: 160 });
  const shared = tokens(48, 9000);
  engine.submit({ id: "a", promptTokens: [...shared, ...tokens(52, 1)], maxTokens: 20 }, 0);
  engine.submit({ id: "b", promptTokens: [...shared, ...tokens(64, 5000)], maxTokens: 1 }, 0);
  const done = finished(drain(engine));
  assert.equal(done.size, 2);
  assert.equal(done.get("b")!.usage.cachedTokens, 48);
  // b is refused in each of a's 20 steps and admitted after: one query of 112 tokens, its 48 cached ones hits.
  const m = engine.metrics();
  assert.ok(done.get("b")!.queuedMs >= done.get("a")!.e2eMs);
  assert.equal(m.prefixCacheQueries, 100 + 112);
  assert.equal(m.prefixCacheHits, 48);
  assert.equal(m.preemptionsTotal, 0);
});

test("a LoRA adapter's blocks are keyed by its name: only requests for the same adapter hit them (vLLM extra keys)", () => {
  const engine = new Engine(CONFIG);
  const prompt = tokens(200, 11);
  const events = simulate(engine, [
    { at: 0, req: { id: "base", promptTokens: prompt, maxTokens: 1 } },
    { at: 1000, req: { id: "a1", promptTokens: prompt, maxTokens: 1, lora: "a" } },
    { at: 2000, req: { id: "b", promptTokens: prompt, maxTokens: 1, lora: "b" } },
    { at: 3000, req: { id: "a2", promptTokens: prompt, maxTokens: 1, lora: "a" } },
    { at: 4000, req: { id: "base2", promptTokens: prompt, maxTokens: 1 } },
  ]);
  const done = finished(events);
  const cached = (id: string) => done.get(id)!.usage.cachedTokens;
  assert.equal(cached("base"), 0);
  assert.equal(cached("a1"), 0, "the base model's KV is not the adapter's");
  assert.equal(cached("b"), 0);
  assert.equal(cached("a2"), 192);
  assert.equal(cached("base2"), 192);
});

test("blocks cached by the step in flight are announced when it ends, as vLLM publishes KV events after the forward pass", () => {
  const engine = new Engine(CONFIG);
  const prompt = tokens(200, 21);
  const hashes = computeBlockHashes(prompt, 16);
  engine.submit({ id: "a", promptTokens: prompt, maxTokens: 2 }, 0);
  engine.advance(0);
  assert.ok(engine.nextEventTime() > 0, "a's prefill step is in flight");
  assert.equal(engine.cache.peekCachedTokens(hashes, 200), 192, "the engine itself already hits them");
  assert.equal(engine.announcedCachedTokens(hashes, 200), 0);
  engine.advance(engine.nextEventTime());
  assert.equal(engine.announcedCachedTokens(hashes, 200), 192);
});

test("the metrics' gauges and prefix-cache counters are those of the last step's end, as vLLM publishes them (Scheduler.make_stats)", () => {
  const engine = new Engine(CONFIG);
  engine.submit({ id: "a", promptTokens: tokens(400, 1), maxTokens: 3 }, 0);
  assert.equal(engine.numWaiting, 1);
  let m = engine.metrics();
  assert.deepEqual([m.numRequestsWaiting, m.numRequestsRunning, m.kvCacheUsage, m.prefixCacheQueries], [0, 0, 0, 0]);
  engine.advance(0); // a's first step is in flight: admitted, not yet published
  m = engine.metrics();
  assert.deepEqual([m.numRequestsRunning, m.prefixCacheQueries], [0, 0]);
  const stepEnd = engine.nextEventTime();
  engine.advance(stepEnd);
  m = engine.metrics();
  assert.deepEqual([m.numRequestsRunning, m.numRequestsWaiting, m.prefixCacheQueries], [1, 0, 400]);
  assert.equal(m.kvCacheUsage, Math.ceil(400 / 16) / engine.config.numGpuBlocks, "a's 400 prompt tokens, not the next step's");
  // A hung engine publishes nothing: requests that queue meanwhile do not show until a step ends.
  engine.stall(stepEnd, stepEnd + 1000);
  engine.submit({ id: "b", promptTokens: tokens(64, 5000), maxTokens: 2 }, stepEnd + 10);
  engine.advance(stepEnd + 900);
  assert.equal(engine.numWaiting, 1);
  assert.equal(engine.metrics().numRequestsWaiting, 0);
  drain(engine);
  m = engine.metrics();
  assert.deepEqual([m.numRequestsRunning, m.numRequestsWaiting, m.kvCacheUsage, m.prefixCacheQueries], [0, 0, 0, 464]);
});

test("vllm:prompt_tokens counts a prompt when its first token comes, not when its prefill starts (vLLM IterationStats)", () => {
  const engine = new Engine(CONFIG); // chunks of 512: a 1300-token prompt takes three steps
  engine.submit({ id: "a", promptTokens: tokens(1300, 1), maxTokens: 2 }, 0);
  engine.advance(0);
  engine.advance(engine.nextEventTime()); // first chunk done
  assert.equal(engine.metrics().promptTokensTotal, 0);
  const events = drain(engine);
  assert.equal(events.filter((e) => e.type === "first_token").length, 1);
  assert.equal(engine.metrics().promptTokensTotal, 1300);
});

test("a stalled engine makes no progress until the stall ends but still queues requests and reports them waiting", () => {
  const engine = new Engine(CONFIG);
  engine.submit({ id: "a", promptTokens: tokens(400, 1), maxTokens: 3 }, 0);
  engine.advance(0);
  const stepEnd = engine.nextEventTime(); // the first prefill step is in flight
  engine.stall(1, 1001);
  assert.equal(engine.nextEventTime(), stepEnd + 1000);
  engine.submit({ id: "b", promptTokens: tokens(64, 5000), maxTokens: 2 }, 500);
  assert.equal(engine.numWaiting, 1);
  assert.deepEqual(engine.advance(900), []);
  const events = drain(engine);
  const first = events.filter((e) => e.type === "first_token");
  assert.equal(first.length, 2);
  for (const e of first) assert.ok(e.time > 1001, `first token at ${e.time}`);
  // An idle engine stalled: a request arriving during the stall starts at its end.
  const idle = new Engine(CONFIG);
  idle.stall(0, 2000);
  idle.submit({ id: "c", promptTokens: tokens(16, 1), maxTokens: 1 }, 10);
  assert.equal(idle.nextEventTime(), 2000);
});
