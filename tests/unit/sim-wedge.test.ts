// The simulator's wedge fault: the pod's engine hangs while its metrics still answer and requests still reach it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { roundRobinPolicy } from "../../src-host/sim/policies/round-robin.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const tokenizer = new VocabularyTokenizer();

function workload(faults: unknown[]) {
  return parseWorkload({
    seed: 3,
    pods: { count: 3, kvTokens: 65536, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
    arrival: { qps: 6, durationS: 20 },
    traffic: [{ type: "shared-prefix", groups: 4, promptsPerGroup: 50, systemTokens: 200, questionTokens: 40, outputTokens: 8 }],
    faults,
  });
}

test("a wedged pod's requests wait out the hang, other clients' requests pile up in its queue, and healthy_pods leaves it out", async () => {
  const plain = await runPolicy(workload([]), "round-robin", roundRobinPolicy, { tokenizer });
  const wedged = await runPolicy(
    workload([{ type: "wedge", atS: 5, pod: 1, durationS: 10, externalQps: 30 }]), "round-robin", roundRobinPolicy, { tokenizer },
  );
  assert.equal(plain.summary.healthy_pods, undefined);
  assert.equal(wedged.summary.failed, 0);
  assert.equal(wedged.summary.completed, wedged.summary.requests);
  // Round-robin keeps sending a third of the requests to the hung pod: their first tokens come after the hang.
  assert.ok(wedged.summary.ttft_p99_s > 5, `p99 ${wedged.summary.ttft_p99_s}`);
  assert.ok(plain.summary.ttft_p99_s < 1, `p99 ${plain.summary.ttft_p99_s}`);
  assert.ok(wedged.summary.queue_max >= 250, `queue max ${wedged.summary.queue_max}`); // about 300 from other clients
  const healthy = wedged.summary.healthy_pods!;
  assert.ok(healthy.requests > 0 && healthy.requests < wedged.summary.completed);
  assert.ok(healthy.ttft_p90_s < 1, `healthy p90 ${healthy.ttft_p90_s}`);
});
