// The closed loop's view of a run (closed-loop-stats.ts): arrivals that waited in the backlog for a ready session,
// and TTFT counted from the scheduled arrival.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClosedLoopStats } from "../../src-host/sim/closed-loop-stats.ts";
import { leastRequestPolicy } from "../../src-host/sim/policies/least-request.ts";
import { quantile } from "../../src-host/sim/quantile.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { summaryTable } from "../../src-host/sim/summary-table.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const tokenizer = new VocabularyTokenizer();
const pods = { count: 2, kvTokens: 32768, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 1, perSequenceMs: 0.1 } };
const conversation = {
  type: "multi-turn", systemPrompts: 1, systemTokens: 100, userTokens: [20, 40], assistantTokens: [5, 10], turns: [2, 4],
};

test("closed-loop stats: each waited TTFT is replaced by its TTFT from the scheduled arrival", () => {
  const s = new ClosedLoopStats();
  for (const wait of [0, 0, 0, 500, 2000]) s.sent(wait);
  s.sent(100); // waited, then failed: counted in the backlog, no first token
  s.firstToken(50, 500);
  s.firstToken(50, 2000);
  const ttft = Float64Array.from([10, 50, 50, 50, 90]); // every first token of the run, sorted
  const c = s.summary(ttft, 6);
  assert.equal(c.backlogged, 3);
  assert.equal(c.backlogged_share, 0.5);
  assert.equal(c.backlog_wait_total_s, 2.6);
  assert.ok(Math.abs(c.backlog_wait_mean_s - 2.6 / 3) < 1e-12);
  // From the scheduled arrival: 10, 50, 90, 550, 2050.
  assert.equal(c.ttft_from_arrival_p50_s, 0.09);
  assert.equal(c.ttft_from_arrival_p90_s, 2.05);
  assert.ok(Math.abs(c.ttft_from_arrival_mean_s - 2.75 / 5) < 1e-12);
});

test("closed loop: one conversation and a burst of arrivals, each waiting one more think time than the last", async () => {
  const thinkS = 20;
  // About six arrivals in the first 50 ms, for one conversation: the first is sent at once, each later one when the
  // conversation is ready again, a (sub-second) turn plus the think time after the one before it.
  const burstS = 0.05;
  const workload = parseWorkload({
    seed: 5, pods, arrival: { qps: 120, durationS: burstS },
    traffic: [{ ...conversation, conversations: 1, thinkTimeS: [thinkS, thinkS] }],
  });
  const run = await runPolicy(workload, "least-request", leastRequestPolicy, { tokenizer });
  const s = run.summary;
  const c = s.closed_loop;
  const n = s.requests;
  assert.ok(n >= 3, `the burst sends ${n} requests`);
  assert.equal(s.failed, 0);
  assert.equal(c.backlogged, n - 1);
  assert.equal(c.backlogged_share, (n - 1) / n);
  // The k-th request (k = 0..n-1) waits between k think times less the burst and k × (think time + one second).
  const steps = (n * (n - 1)) / 2;
  assert.ok(c.backlog_wait_total_s >= steps * thinkS - (n - 1) * burstS && c.backlog_wait_total_s <= steps * (thinkS + 1),
    `wait total ${c.backlog_wait_total_s} s`);
  assert.ok(Math.abs(c.backlog_wait_mean_s - c.backlog_wait_total_s / (n - 1)) < 1e-9);
  // TTFT stays what a user sees of a turn (well under a second); from the scheduled arrival the k-th request's reads
  // its wait, so the quantiles are think-time multiples.
  assert.ok(s.ttft_p90_s < 1);
  for (const [q, got] of [[0.5, c.ttft_from_arrival_p50_s], [0.9, c.ttft_from_arrival_p90_s]] as const) {
    const k = Math.ceil(q * n) - 1;
    assert.ok(got >= k * thinkS - burstS && got <= k * (thinkS + 1) + 1, `p${q * 100} ${got} s, request ${k} of ${n}`);
  }
  assert.ok(Math.abs(c.ttft_from_arrival_mean_s - (s.ttft_mean_s + c.backlog_wait_total_s / n)) < 1e-9);
  const text = summaryTable([run]);
  assert.match(text, /waited for a ready session/);
  assert.match(text, new RegExp(`least-request\\s+${((100 * (n - 1)) / n).toFixed(1)}%`));
});

test("closed loop: the figures agree with the request log's backlog waits and TTFTs", async () => {
  // Few conversations at a high rate, and a pod that leaves: arrivals wait, and some requests fail.
  const workload = parseWorkload({
    seed: 3, pods: { ...pods, count: 3 }, arrival: { qps: 40, durationS: 10 },
    traffic: [{ ...conversation, conversations: 12, thinkTimeS: [0.1, 0.5] }],
    faults: [{ type: "remove", atS: 6, pod: 2 }],
  });
  const run = await runPolicy(workload, "least-request", leastRequestPolicy, { tokenizer, requestLog: true });
  const log = run.requests!;
  const c = run.summary.closed_loop;
  assert.ok(run.summary.failed > 0);
  const waited = log.filter((r) => r.backlogS > 0);
  assert.ok(waited.length > 0 && waited.length < log.length);
  assert.equal(c.backlogged, waited.length);
  assert.ok(Math.abs(c.backlog_wait_total_s - waited.reduce((a, r) => a + r.backlogS, 0)) < 1e-6);
  const fromArrival = Float64Array.from(log.flatMap((r) => (r.ttftMs === null ? [] : [r.ttftMs + r.backlogS * 1000]))).sort();
  assert.ok(Math.abs(c.ttft_from_arrival_p50_s - quantile(fromArrival, 0.5) / 1000) < 1e-9);
  assert.ok(Math.abs(c.ttft_from_arrival_p90_s - quantile(fromArrival, 0.9) / 1000) < 1e-9);
  assert.ok(c.ttft_from_arrival_p90_s > run.summary.ttft_p90_s);
});

test("closed loop: without a backlog nothing waited, TTFT from the arrival is TTFT, and the table prints as before", async () => {
  const workload = parseWorkload({
    seed: 4, pods, arrival: { qps: 5, durationS: 10 },
    traffic: [{ ...conversation, conversations: 200, thinkTimeS: [1, 2] }],
  });
  const run = await runPolicy(workload, "least-request", leastRequestPolicy, { tokenizer });
  const s = run.summary;
  assert.ok(s.requests > 20);
  assert.deepEqual(s.closed_loop, {
    backlogged: 0, backlogged_share: 0, backlog_wait_total_s: 0, backlog_wait_mean_s: 0,
    ttft_from_arrival_mean_s: s.ttft_mean_s, ttft_from_arrival_p50_s: s.ttft_p50_s, ttft_from_arrival_p90_s: s.ttft_p90_s,
  });
  assert.doesNotMatch(summaryTable([run]), /ready session/);
});
