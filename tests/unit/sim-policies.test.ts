// Baseline policies on a tiny cluster: round-robin cycles, least-request takes the idle pod, the session
// hash is stable (and only moves a removed pod's sessions), precise follows the real cache, and the
// inference extension's score math and prefix index on hand-computed cases.
import { test } from "node:test";
import assert from "node:assert/strict";
import xxhash from "xxhash-wasm";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { consistentHashPolicy, HashRing } from "../../src-host/sim/policies/consistent-hash.ts";
import { gieScores } from "../../src-host/sim/policies/gie-approx.ts";
import { GiePrefixIndex, gieBlockHashes } from "../../src-host/sim/policies/gie-prefix-index.ts";
import { leastRequestPolicy } from "../../src-host/sim/policies/least-request.ts";
import { estimateTtftMs } from "../../src-host/sim/policies/oracle.ts";
import { attentionCostFor } from "../../src-host/backend/engine.ts";
import type { PolicyContext } from "../../src-host/sim/policies/policy.ts";
import { precisePolicy } from "../../src-host/sim/policies/precise.ts";
import { roundRobinPolicy } from "../../src-host/sim/policies/round-robin.ts";
import { pseudoText } from "../../src-host/sim/pseudo-text.ts";
import { SimPod, engineConfig } from "../../src-host/sim/sim-pod.ts";
import { SimRequest } from "../../src-host/sim/sim-request.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const tokenizer = new VocabularyTokenizer();
const workload = parseWorkload({
  seed: 1,
  pods: { count: 3, kvTokens: 8192, prefillTokensPerSec: 10_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
  arrival: { qps: 1, durationS: 1 },
  traffic: [{ type: "shared-prefix", groups: 1, promptsPerGroup: 1, systemTokens: 1, questionTokens: 1, outputTokens: 1 }],
});

function cluster(n: number): SimPod[] {
  return Array.from({ length: n }, (_, i) => new SimPod(i, engineConfig(workload.pods, i), 0));
}

function ctx(pods: SimPod[]): PolicyContext {
  return { seed: 1, clock: new VirtualClock(0), workload, allPods: () => pods, healthCheckIntervalMs: 1000, resume: () => {} };
}

let nextId = 0;
function request(system: string, question: string, session = "s"): SimRequest {
  const spec = {
    generator: 0, sessionKey: session, maxTokens: 4, slot: 0,
    messages: [{ role: "system" as const, content: system }, { role: "user" as const, content: question }],
  };
  return new SimRequest(nextId++, spec, "m", 0, tokenizer, workload.pods.blockTokens);
}

test("round-robin cycles through the pods", () => {
  const pods = cluster(3);
  const p = roundRobinPolicy(ctx(pods));
  const r = request(" a", " b");
  assert.deepEqual(Array.from({ length: 7 }, () => p.pick(r, pods, 0).pod!.id), [0, 1, 2, 0, 1, 2, 0]);
});

test("least-request picks the idle pod", () => {
  const pods = cluster(4);
  [3, 2, 0, 5].forEach((n, i) => (pods[i].inflight = n));
  const p = leastRequestPolicy(ctx(pods));
  for (let i = 0; i < 10; i++) assert.equal(p.pick(request(" a", " b"), pods, 0).pod!.id, 2);
});

test("consistent hash: the same session always lands on the same pod; removing a pod moves only its sessions", () => {
  const pods = cluster(5);
  const c = ctx(pods);
  const p = consistentHashPolicy(c);
  const keys = Array.from({ length: 300 }, (_, i) => `session-${i}`);
  const owner = new Map(keys.map((k) => [k, p.pick(request(" a", " b", k), pods, 0).pod!]));
  for (const k of keys) assert.equal(p.pick(request(" c", " d", k), pods, 0).pod, owner.get(k));
  assert.ok(new Set(owner.values()).size === 5, "sessions spread over every pod");
  // Pod 3 goes down; the gateway's health checks take it out of the ring.
  pods[3].up = false;
  const fewer = pods.filter((pod) => pod.id !== 3);
  c.clock.advanceTo(c.clock.nowMs() + 2 * c.healthCheckIntervalMs);
  let moved = 0;
  for (const k of keys) {
    const now = p.pick(request(" a", " b", k), fewer, 0).pod!;
    if (owner.get(k)!.id === 3) {
      moved++;
      assert.notEqual(now.id, 3);
    } else assert.equal(now, owner.get(k), `${k} kept its pod`);
  }
  assert.ok(moved > 0);
  assert.equal(new HashRing(pods).lookup("x"), new HashRing(pods).lookup("x"));
});

test("precise picks the pod that really holds the prefix", () => {
  const pods = cluster(3);
  const system = pseudoText(1, "shared system", 600).text;
  const warm = request(system, pseudoText(1, "q1", 20).text);
  // Serve one request on pod 1 until it finishes, so its prefix sits in pod 1's cache (unreferenced).
  const engine = pods[1].engine;
  engine.submit({ id: "warm", promptTokens: warm.promptTokens, maxTokens: 2 }, 0);
  let t = 0;
  while (engine.nextEventTime() !== Infinity) engine.advance((t = engine.nextEventTime()));
  assert.equal(pods[1].kvUsage(), 0, "no load difference: the blocks are free but cached");
  const next = request(system, pseudoText(1, "q2", 20).text);
  assert.ok(pods[1].cachedTokens(next.blockHashes, next.promptTokens.length) >= 512);
  const p = precisePolicy(ctx(pods));
  for (let i = 0; i < 5; i++) assert.equal(p.pick(next, pods, t).pod!.id, 1);
  // A prompt nobody holds is a tie on every signal; precise then spreads it (random tie-break).
  const cold = new Set<number>();
  for (let i = 0; i < 40; i++) cold.add(p.pick(request(pseudoText(1, `cold${i}`, 100).text, " q"), pods, t).pod!.id);
  assert.ok(cold.size > 1);
});

test("gie-approx: weighted score = 3 x matched/total + 2 x queue min-max + 2 x (1 - kv usage)", () => {
  const scores = gieScores([2, 0, 1], 4, [
    { waiting: 0, kvUsage: 0.5 },
    { waiting: 4, kvUsage: 0 },
    { waiting: 2, kvUsage: 0.25 },
  ]);
  // pod 0: 3*0.5 + 2*1 + 2*0.5 = 4.5; pod 1: 0 + 0 + 2 = 2; pod 2: 3*0.25 + 2*0.5 + 2*0.75 = 3.25
  assert.deepEqual(scores.map((s) => +s.toFixed(9)), [4.5, 2, 3.25]);
  // Equal queues give every pod the full queue score; no blocks gives no prefix score.
  assert.deepEqual(gieScores([0, 0], 0, [{ waiting: 3, kvUsage: 0 }, { waiting: 3, kvUsage: 1 }]), [4, 2]);
});

test("gie-approx: block hashes chain xxh64 over 64-byte blocks seeded by the model; the index keeps an LRU per pod", async () => {
  const xx = await xxhash();
  const input = new TextEncoder().encode("x".repeat(64 * 3 + 10));
  const hashes = gieBlockHashes(xx, "llama", input);
  assert.equal(hashes.length, 3, "the partial last block is ignored");
  // Oracle through the streaming API: block bytes then the parent as 8 little-endian bytes.
  let parent = xx.create64(0n).update("llama").digest();
  for (let b = 0; b < 3; b++) {
    const le = new Uint8Array(8);
    new DataView(le.buffer).setBigUint64(0, parent, true);
    parent = xx.create64(0n).update(input.subarray(b * 64, b * 64 + 64)).update(le).digest();
    assert.equal(hashes[b], parent);
  }
  assert.equal(gieBlockHashes(xx, "llama", input.subarray(0, 63)).length, 0, "shorter than a block: no hashes");
  assert.notEqual(gieBlockHashes(xx, "other", input)[0], hashes[0], "the model seeds the chain");
  assert.equal(gieBlockHashes(xx, "llama", new Uint8Array(64 * 300)).length, 256, "at most 256 blocks");

  const index = new GiePrefixIndex(3);
  index.add([1, 2, 3], 7);
  index.add([1, 2, 9], 8);
  const byPod = (m: Map<number, number>) => [...m].sort((a, b) => a[0] - b[0]);
  assert.deepEqual(byPod(index.longestPrefix([1, 2, 3, 4])), [[7, 3], [8, 2]]);
  index.add([10], 7); // pod 7 holds 3 entries: its least recently added hash (1) goes
  assert.deepEqual(byPod(index.longestPrefix([2, 3])), [[7, 2], [8, 1]]);
  // The extension's walk goes on while any pod holds the block, counting each holder: pod 7 lost block 1
  // but still gets credit for 2 and 3.
  assert.deepEqual(byPod(index.longestPrefix([1, 2, 3])), [[7, 2], [8, 2]]);
  assert.deepEqual(byPod(index.longestPrefix([5, 1, 2])), []);
  assert.equal(index.sizeOf(7), 3);
});

test("oracle: the TTFT estimate includes the request's attention over its whole context, as the engine costs it", () => {
  const pods = cluster(1);
  const r = request(pseudoText(1, "long system", 3000).text, pseudoText(1, "q", 50).text);
  const withAttention = estimateTtftMs(pods[0], r, workload.pods);
  const without = estimateTtftMs(pods[0], r, { ...workload.pods, attentionMsPerMTokenPairs: 0 });
  const n = r.promptTokens.length;
  const expected = (attentionCostFor(workload.pods.prefillTokensPerSec) * n * ((n + 1) / 2)) / 1e6;
  assert.ok(expected > 0);
  assert.ok(Math.abs(withAttention - without - expected) < 1e-9, `${withAttention} - ${without} != ${expected}`);
});

test("oracle: a pod's TTFT estimate scales with its own speed (a pool variant or a slow fault)", () => {
  const pods = cluster(2);
  const r = request(pseudoText(1, "long system", 3000).text, pseudoText(1, "q", 50).text);
  const full = estimateTtftMs(pods[0], r, workload.pods);
  pods[1].slowDown(4);
  assert.ok(Math.abs(estimateTtftMs(pods[1], r, workload.pods) - 4 * full) < 1e-9);
});
