// The simulator's heterogeneous pools: pods a variant names get their own KV capacity and GPU speed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveEngineConfig } from "../../src-host/backend/engine.ts";
import { roundRobinPolicy } from "../../src-host/sim/policies/round-robin.ts";
import { engineConfig } from "../../src-host/sim/sim-pod.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload, WorkloadError } from "../../src-host/sim/workload.ts";

const tokenizer = new VocabularyTokenizer();

function workload(variants?: unknown[]): Record<string, any> {
  return {
    seed: 3,
    pods: {
      count: 2, kvTokens: 65536, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 },
      ...(variants === undefined ? {} : { variants }),
    },
    arrival: { qps: 6, durationS: 20 },
    traffic: [{ type: "shared-prefix", groups: 4, promptsPerGroup: 50, systemTokens: 200, questionTokens: 40, outputTokens: 8 }],
  };
}

test("a variant's pods get its KV capacity and speed, the others the pool's", () => {
  const pods = parseWorkload(workload([{ pods: [1], kvTokens: 16384, speed: 0.5 }])).pods;
  const plain = resolveEngineConfig(engineConfig(pods, 7, 0));
  const variant = resolveEngineConfig(engineConfig(pods, 7, 1));
  assert.equal(plain.numGpuBlocks, 65536 / 16);
  assert.equal(plain.speed, 1);
  assert.equal(variant.numGpuBlocks, 16384 / 16);
  assert.equal(variant.speed, 0.5);
  const kvOnly = parseWorkload(workload([{ pods: [0], kvTokens: 8192 }])).pods;
  assert.equal(resolveEngineConfig(engineConfig(kvOnly, 7, 0)).speed, 1, "speed defaults to the pool's");
});

test("a slower variant pod makes round-robin's slow half slower", async () => {
  const same = await runPolicy(parseWorkload(workload()), "round-robin", roundRobinPolicy, { tokenizer });
  const slow = await runPolicy(parseWorkload(workload([{ pods: [1], speed: 0.1 }])), "round-robin", roundRobinPolicy, { tokenizer });
  assert.equal(slow.summary.requests, same.summary.requests);
  assert.ok(slow.summary.ttft_p90_s > 3 * same.summary.ttft_p90_s, `p90 ${slow.summary.ttft_p90_s} vs ${same.summary.ttft_p90_s}`);
});

test("variants are checked: pod ids in range, each pod in one variant, known keys", () => {
  const rejects = (variants: unknown, path: string) =>
    assert.throws(() => parseWorkload(workload(variants as unknown[])), (e: unknown) => e instanceof WorkloadError && e.message.startsWith(path), path);
  rejects([{ pods: [2], speed: 0.5 }], "workload.pods.variants[0].pods[0]");
  rejects([{ pods: [], speed: 0.5 }], "workload.pods.variants[0].pods");
  rejects([{ pods: [0], speed: 0.5 }, { pods: [1, 0], kvTokens: 10 }], "workload.pods.variants[1].pods");
  rejects([{ pods: [0], speed: 0 }], "workload.pods.variants[0].speed");
  rejects([{ pods: [0], gpu: "a10" }], "workload.pods.variants[0].gpu");
  rejects({ pods: [0] }, "workload.pods.variants");
});
