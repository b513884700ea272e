// The simulator's index diagnostics: precision and recall of what a policy believed against what the pods
// held, and why a pod holding a longer prefix lost (index unaware or stale, load guard, or the load signal
// that outvoted the prefix signal). Then a whole run: the picker explains every decision it routed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { IndexDiagnostics, LOST_MIN_TOKENS, type PodBelief } from "../../src-host/sim/index-diagnostics.ts";
import { runPolicies } from "../../src-host/sim/run-policies.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

function belief(predictedFraction: number, contributions: Record<string, number>, guarded = false): PodBelief {
  return { predictedFraction, contributions: { queue: 0, kvCache: 0, inflight: 0, prefix: 0, ...contributions }, guarded };
}

test("precision and recall compare predicted and true cached tokens; the losing pod's cause is named", () => {
  const d = new IndexDiagnostics();
  // The index knew pod b held 90% but a full queue score on a outvoted it: b truly held 900 of 1000 tokens.
  d.add(
    { promptTokens: 1000, cachedByPod: new Map([["a", 100], ["b", 900]]) },
    { chosen: "a", pods: new Map([["a", belief(0.1, { queue: 2, prefix: 0.5 })], ["b", belief(0.9, { queue: 0, prefix: 1.5 })]]) },
  );
  // The index claimed 50% on a, which held nothing; b held 600 and the index did not know.
  d.add(
    { promptTokens: 1000, cachedByPod: new Map([["a", 0], ["b", 600]]) },
    { chosen: "a", pods: new Map([["a", belief(0.5, {})], ["b", belief(0, {})]]) },
  );
  // A good decision: the chosen pod held the most.
  d.add(
    { promptTokens: 1000, cachedByPod: new Map([["a", 800], ["b", 800 - LOST_MIN_TOKENS + 1]]) },
    { chosen: "a", pods: new Map([["a", belief(0.8, {})], ["b", belief(0.8, {})]]) },
  );
  // b was guarded.
  d.add(
    { promptTokens: 1000, cachedByPod: new Map([["a", 0], ["b", 500]]) },
    { chosen: "a", pods: new Map([["a", belief(0, {})], ["b", belief(0.5, {}, true)]]) },
  );
  const s = d.summary();
  assert.equal(s.decisions, 4);
  // Chosen pod: predicted 100 + 500 + 800 + 0 = 1400, true 100 + 0 + 800 + 0 = 900, overlap 100 + 0 + 800 = 900.
  assert.equal(s.precision_chosen, 900 / 1400);
  assert.equal(s.recall_chosen, 1);
  assert.equal(s.lost_share, 3 / 4);
  assert.equal(s.lost_token_share, (800 + 600 + 0 + 500) / 4000);
  assert.deepEqual(s.causes, { "outvoted by queue": 0.25, "index stale (chosen over-claimed)": 0.25, "load guard": 0.25 });
  assert.deepEqual(s.cause_tokens, { "outvoted by queue": 800 / 4000, "index stale (chosen over-claimed)": 600 / 4000, "load guard": 500 / 4000 });
  assert.equal(s.true_best, (900 + 600 + 800 + 500) / 4000);
});

test("a pod the policy did not score is left out, and a decision without the chosen pod's truth is skipped", () => {
  const d = new IndexDiagnostics();
  d.add({ promptTokens: 100, cachedByPod: new Map([["a", 10]]) }, { chosen: "gone", pods: new Map([["a", belief(0.1, {})]]) });
  d.add({ promptTokens: 100, cachedByPod: new Map([["a", 0], ["new", 90]]) }, { chosen: "a", pods: new Map([["a", belief(0, {})]]) });
  const s = d.summary();
  assert.equal(s.decisions, 1);
  assert.equal(s.lost_share, 0, "a pod the picker did not know yet is not counted as a loss");
});

/** Six short agent conversations on three small pods: a run of a second. */
function tinyAgents() {
  return parseWorkload({
    name: "tiny-agents",
    seed: 5,
    pods: { count: 3, kvTokens: 16_384, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
    arrival: { qps: 10, durationS: 8 },
    traffic: [{ type: "multi-turn", conversations: 6, turns: [3, 6], systemTokens: 400, userTokens: [50, 200], assistantTokens: [10, 30], thinkTimeS: [0.1, 0.3] }],
  });
}

test("a simulated run of the picker explains its decisions", { skip: !existsSync("build/higress.wasm") }, async () => {
  const workload = tinyAgents();
  const result = await runPolicies(workload, ["picker", "precise"], { wasm: readFileSync("build/higress.wasm"), diagnose: true });
  const index = result.policies.picker.index!;
  assert.equal(result.policies.precise.index, undefined, "only policies with an index explain");
  assert.equal(index.decisions, result.policies.picker.completed);
  assert.ok(index.precision_chosen > 0.5 && index.precision_chosen <= 1, String(index.precision_chosen));
  assert.ok(index.recall_chosen > 0.5 && index.recall_chosen <= 1, String(index.recall_chosen));
  const causes = Object.values(index.causes).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(causes - index.lost_share) < 1e-9, "the causes add up to the lost decisions");
});

test("decisions made after a Redis wait are explained too, against the caches at the moment of the decision", { skip: !existsSync("build/higress.wasm") }, async () => {
  const workload = tinyAgents();
  const result = await runPolicies(workload, ["picker-redis"], { wasm: readFileSync("build/higress.wasm"), diagnose: true, gatewayReplicas: 2 });
  const run = result.policies["picker-redis"];
  assert.ok(run.extra.redisWaits > 0, "some requests waited for Redis");
  assert.equal(run.index!.decisions, run.completed);
});
