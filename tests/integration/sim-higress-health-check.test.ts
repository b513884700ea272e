// The simulated Higress gateway sees a pod go at its next health check, not at once: until then the pod is listed as it
// was, a request the plugin sends there goes there and fails (the refused connection), and none is rerouted round robin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { pickerPolicy } from "../../src-host/sim/policies/picker.ts";
import type { PolicyContext } from "../../src-host/sim/policies/policy.ts";
import { SimPod, engineConfig } from "../../src-host/sim/sim-pod.ts";
import { SimRequest } from "../../src-host/sim/sim-request.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";
import { pseudoText } from "../../src-host/sim/pseudo-text.ts";

const tokenizer = new VocabularyTokenizer();
const workload = parseWorkload({
  seed: 1,
  pods: { count: 3, kvTokens: 65536, prefillTokensPerSec: 10_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
  arrival: { qps: 1, durationS: 1 },
  traffic: [{ type: "shared-prefix", groups: 1, promptsPerGroup: 1, systemTokens: 1, questionTokens: 1, outputTokens: 1 }],
});

let nextId = 0;
function request(system: string, question: string): SimRequest {
  const spec = {
    generator: 0, sessionKey: "s" + nextId, maxTokens: 4, slot: 0,
    messages: [{ role: "system" as const, content: system }, { role: "user" as const, content: question }],
  };
  return new SimRequest(nextId++, spec, "m", 0, tokenizer, workload.pods.blockTokens);
}

test("picker: a pod that leaves stays listed until the next health check; the requests sent to it meanwhile fail", async () => {
  const clock = new VirtualClock(1_700_000_000_000);
  const pods = Array.from({ length: 3 }, (_, i) => new SimPod(i, engineConfig(workload.pods, i), clock.nowMs()));
  const ctx: PolicyContext = {
    seed: 1, clock, workload, allPods: () => pods, healthCheckIntervalMs: 1000, resume: () => {},
    wasm: new Uint8Array(readFileSync("build/higress.wasm")),
  };
  const policy = await pickerPolicy(ctx);
  const system = pseudoText(1, "shared system", 3000).text;
  const first = policy.pick(request(system, "first question"), pods, clock.nowMs());
  const gone = first.pod!;
  assert.ok(gone !== null);
  policy.onFirstToken?.(first, clock.nowMs());
  policy.onFinished?.(first, clock.nowMs(), "completed");

  clock.advanceTo(clock.nowMs() + 10);
  gone.up = false;
  pods.splice(pods.indexOf(gone), 1);
  policy.onPodsChanged?.(clock.nowMs());

  // Its prefix still draws the plugin there; the gateway has not yet seen the pod go.
  const before = [0, 1, 2, 3].map((k) => policy.pick(request(system, "question " + k), pods, clock.nowMs()));
  // The gateway sends them to the pod it still lists; the simulation fails each (the connection is refused).
  const failed = before.filter((d) => d.pod === gone).length;
  assert.ok(failed > 0, "a request sent to the gone pod before the health check fails");
  for (const d of before) if (d.pod === gone) policy.onFinished?.(d, clock.nowMs(), "connect-failure");
  assert.equal(policy.stats!().overridesToDownPods, failed);
  assert.equal(policy.stats!().fallbacks, 0, "nothing rerouted round robin");

  // After the next health check (and the plugin's snapshot TTL) nothing goes there.
  clock.advanceTo(clock.nowMs() + 1500);
  for (let k = 0; k < 4; k++) {
    const d = policy.pick(request(system, "later " + k), pods, clock.nowMs());
    assert.ok(d.pod !== null && d.pod !== gone);
  }
  policy.close?.();
});
