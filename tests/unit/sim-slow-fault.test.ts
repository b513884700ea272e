// The simulator's slow fault: a pod's engine runs `factor` times slower for a while, without restarting.
import { test } from "node:test";
import assert from "node:assert/strict";
import { roundRobinPolicy } from "../../src-host/sim/policies/round-robin.ts";
import { engineConfig, SimPod } from "../../src-host/sim/sim-pod.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload, scaleWorkload, WorkloadError } from "../../src-host/sim/workload.ts";

const tokenizer = new VocabularyTokenizer();

function workload(faults: unknown[]) {
  return parseWorkload({
    seed: 3,
    pods: {
      count: 3, kvTokens: 65536, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 },
      variants: [{ pods: [2], speed: 0.5 }],
    },
    arrival: { qps: 6, durationS: 20 },
    traffic: [{ type: "shared-prefix", groups: 4, promptsPerGroup: 50, systemTokens: 200, questionTokens: 40, outputTokens: 8 }],
    faults,
  });
}

test("a slowed pod's steps take factor times as long, and its own speed comes back after (or on a restart)", () => {
  const pods = workload([]).pods;
  const fast = new SimPod(0, engineConfig(pods, 1, 0), 0);
  const half = new SimPod(2, engineConfig(pods, 1, 2), 0);
  fast.slowDown(4);
  half.slowDown(4);
  assert.equal(fast.engine.config.speed, 0.25);
  assert.equal(half.engine.config.speed, 0.125, "relative to the variant's own speed");
  fast.slowDown(1);
  assert.equal(fast.engine.config.speed, 1);
  half.restart(10);
  assert.equal(half.engine.config.speed, 0.5);
});

test("a slow fault lengthens the slowed pod's first tokens while it lasts; nothing fails", async () => {
  const plain = await runPolicy(workload([]), "round-robin", roundRobinPolicy, { tokenizer });
  const slowed = await runPolicy(workload([{ type: "slow", atS: 2, pod: 0, durationS: 16, factor: 20 }]), "round-robin", roundRobinPolicy, { tokenizer });
  assert.equal(slowed.summary.failed, 0);
  assert.equal(slowed.summary.completed, plain.summary.completed);
  assert.ok(slowed.summary.ttft_p90_s > 3 * plain.summary.ttft_p90_s, `p90 ${slowed.summary.ttft_p90_s} vs ${plain.summary.ttft_p90_s}`);
});

test("a slow fault needs a factor >= 1, and scaling scales its start and its length", () => {
  assert.throws(() => workload([{ type: "slow", atS: 1, pod: 0, durationS: 5, factor: 0.5 }]), (e: unknown) => e instanceof WorkloadError && e.message.startsWith("workload.faults[0].factor"));
  assert.throws(() => workload([{ type: "slow", atS: 1, pod: 0, durationS: 5 }]), (e: unknown) => e instanceof WorkloadError && e.message.startsWith("workload.faults[0].factor"));
  const scaled = scaleWorkload(workload([{ type: "slow", atS: 8, pod: 0, durationS: 4, factor: 3 }]), 0.25).faults[0];
  assert.deepEqual(scaled, { type: "slow", atS: 2, pod: 0, durationS: 1, factor: 3 });
});
