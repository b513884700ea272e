// The simulator's request log (`sim --request-log`): one record per request, agreeing with the run's own figures,
// and only watching: a run decides the same with the log on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { leastRequestPolicy } from "../../src-host/sim/policies/least-request.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

// Few conversations at a high rate: arrivals outrun the ready conversations and wait in the backlog.
const workload = parseWorkload({
  seed: 3,
  pods: { count: 3, kvTokens: 32768, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
  arrival: { qps: 40, durationS: 10 },
  traffic: [{
    type: "multi-turn", conversations: 12, turns: [2, 5], systemPrompts: 2, systemTokens: 800, firstUserTokens: [50, 200],
    userTokens: [20, 100], assistantTokens: [10, 40], thinkTimeS: [0.1, 0.5],
  }],
  faults: [{ type: "remove", atS: 6, pod: 2 }],
});

test("sim request log: one record per request, agreeing with the run's figures", async () => {
  const run = await runPolicy(workload, "least-request", leastRequestPolicy, { tokenizer: new VocabularyTokenizer(), requestLog: true });
  const log = run.requests!;
  assert.equal(log.length, run.summary.requests);
  assert.equal(log.filter((r) => r.failed !== null).length, run.summary.failed);
  assert.ok(run.summary.failed > 0, "the removal fails the requests in flight on the pod");
  const ttfts = log.flatMap((r) => (r.ttftMs === null ? [] : [r.ttftMs]));
  assert.ok(Math.abs(ttfts.reduce((a, b) => a + b, 0) / ttfts.length / 1000 - run.summary.ttft_mean_s) < 1e-9);
  assert.ok(log.some((r) => r.backlogS > 0), "some arrivals waited for a ready conversation");
  for (const r of log) {
    assert.ok(r.backlogS >= 0 && r.decidedS >= r.arrivalS, `record ${r.id}`);
    assert.ok(r.cachedOnPod <= r.cachedBest && r.cachedBest <= r.promptTokens, `record ${r.id}`);
    if (r.failed === null) assert.ok(r.pod >= 0 && r.podWaiting >= 0 && r.queuedMs !== null && r.hitTokens !== null, `record ${r.id}`);
  }
  assert.ok(log.some((r) => r.messages > 2 && (r.hitTokens ?? 0) > 0), "later turns hit their history");
});

test("sim request log: a run decides the same with the log on", async () => {
  const without = await runPolicy(workload, "least-request", leastRequestPolicy, { tokenizer: new VocabularyTokenizer() });
  const withLog = await runPolicy(workload, "least-request", leastRequestPolicy, { tokenizer: new VocabularyTokenizer(), requestLog: true });
  assert.equal(without.requests, undefined);
  const { wall_s: _a, ...a } = without.summary;
  const { wall_s: _b, ...b } = withLog.summary;
  assert.deepEqual(b, a);
});

test("sim request log: a request sent when no pod is left gets a record too", async () => {
  // Every pod leaves mid-run: later arrivals have no candidate and fail before any pick.
  const noneLeft = parseWorkload({
    seed: 5,
    pods: { count: 2, kvTokens: 32768, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
    arrival: { qps: 20, durationS: 6 },
    traffic: [{
      type: "multi-turn", conversations: 200, turns: [1, 2], systemPrompts: 1, systemTokens: 200, firstUserTokens: [20, 50],
      userTokens: [20, 50], assistantTokens: [5, 10], thinkTimeS: [0.1, 0.2],
    }],
    faults: [{ type: "remove", atS: 2, pod: 0 }, { type: "remove", atS: 2, pod: 1 }],
  });
  const run = await runPolicy(noneLeft, "least-request", leastRequestPolicy, { tokenizer: new VocabularyTokenizer(), requestLog: true });
  const log = run.requests!;
  assert.equal(log.length, run.summary.requests);
  assert.equal(log.filter((r) => r.failed !== null).length, run.summary.failed);
  const unplaced = log.filter((r) => r.failed === "no-candidates");
  assert.ok(unplaced.length > 0, "arrivals after the removal find no pod");
  for (const r of unplaced) assert.ok(r.pod === -1 && r.minWaiting === -1 && r.ttftMs === null && r.arrivalS >= 2, `record ${r.id}`);
});
