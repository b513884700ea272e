// A pod the workload removes is gone: its metrics cluster refuses like a pod that is down (503), so the stock Envoy
// build stops choosing it after a scrape or two. Until then an override naming it fails, as Envoy fails a request to
// a static host that refuses the connection; it is not rerouted round robin (which sent those requests, cache and
// all, to a pod that held nothing of theirs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { pickerEnvoyPolicy } from "../../src-host/sim/policies/picker-envoy.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

test("picker-envoy: after a pod leaves, its choices go to pods that are still there", async () => {
  const workload = parseWorkload({
    seed: 5,
    pods: { count: 4, kvTokens: 65536, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
    arrival: { qps: 20, durationS: 30 },
    traffic: [{ type: "shared-prefix", groups: 8, promptsPerGroup: 40, systemTokens: 1500, questionTokens: 60, outputTokens: 16, groupSkew: 0.5 }],
    faults: [{ type: "remove", atS: 5, pod: 1 }],
  });
  const run = await runPolicy(workload, "picker-envoy", pickerEnvoyPolicy, {
    tokenizer: new VocabularyTokenizer(), wasmEnvoy: new Uint8Array(readFileSync("build/envoy.wasm")),
  });
  const extra = run.summary.extra as Record<string, number>;
  assert.equal(extra.traps, 0);
  assert.ok(run.summary.requests > 500);
  // The plugin needs a scrape or two to see the refusal: its choices of the gone pod meanwhile fail.
  assert.ok(extra.overridesToDownPods > 0, `overrides to the gone pod ${extra.overridesToDownPods}`);
  assert.ok(extra.overridesToDownPods <= 5, `overrides to the gone pod ${extra.overridesToDownPods} of ${run.summary.requests}`);
  assert.equal(extra.fallbacks, 0);
  assert.ok(run.summary.failed >= extra.overridesToDownPods);
});
