// A request the simulated gateway sends to a pod that is gone ends as Envoy ends it: the router's 503 local reply
// (response flag UF, details upstream_reset_before_response_started{remote_connection_failure|...}) through the
// plugin's response callbacks, not a bare reset. So the plugin's failure feedback (weights.failure) sees it: with a
// slow health check, both builds stop choosing the gone pod after a few such failures instead of until the gateway or
// the stock build's metrics poll notices. `--config` reaches both builds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { RESPONSE_FLAG_BITS } from "../../src-host/host/response-flags.ts";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";
import { pickerPolicy } from "../../src-host/sim/policies/picker.ts";
import { pickerEnvoyPolicy } from "../../src-host/sim/policies/picker-envoy.ts";
import type { Decision, PolicyFactory } from "../../src-host/sim/policies/policy.ts";
import { runPolicy } from "../../src-host/sim/simulation.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const workload = parseWorkload({
  seed: 5,
  pods: { count: 4, kvTokens: 65536, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
  arrival: { qps: 20, durationS: 30 },
  traffic: [{ type: "shared-prefix", groups: 8, promptsPerGroup: 40, systemTokens: 1500, questionTokens: 60, outputTokens: 16, groupSkew: 0.5 }],
  faults: [{ type: "remove", atS: 5, pod: 1 }],
});
const tokenizer = new VocabularyTokenizer();
const wasm = new Uint8Array(readFileSync("build/higress.wasm"));
const wasmEnvoy = new Uint8Array(readFileSync("build/envoy.wasm"));
// The gateway (and the stock build's poll) would take 10 s to notice: the requests' failures tell first.
const SLOW_HEALTH_CHECK_MS = 10_000;

async function toGonePod(name: string, factory: PolicyFactory, pluginConfig?: string): Promise<number> {
  const run = await runPolicy(workload, name, factory, { tokenizer, wasm, wasmEnvoy, pluginConfig, healthCheckIntervalMs: SLOW_HEALTH_CHECK_MS });
  const extra = run.summary.extra as Record<string, number>;
  assert.equal(extra.traps, 0);
  assert.equal(run.summary.sent_to_down_pods, extra.overridesToDownPods, "every override to the gone pod failed");
  return extra.overridesToDownPods;
}

for (const [name, factory] of [["picker", pickerPolicy], ["picker-envoy", pickerEnvoyPolicy]] as const) {
  test(`${name}: with weights.failure the 503s of the gone pod steer requests away before the gateway notices`, async () => {
    const without = await toGonePod(name, factory);
    const withFeedback = await toGonePod(name, factory, JSON.stringify({ weights: { failure: 4 } }));
    assert.ok(without >= 10, `${name} sent ${without} requests to the gone pod without feedback`);
    assert.ok(withFeedback * 2 <= without, `${name}: ${withFeedback} with failure feedback against ${without} without`);
  });
}

test("picker: the failed attempt reaches the plugin as the router's 503 with UF and its details", async () => {
  let seen: FilterStream | null = null;
  const spy: PolicyFactory = async (ctx) => {
    const p = await pickerPolicy(ctx);
    return {
      ...p,
      name: p.name,
      onFinished(decision: Decision, now: number, end) {
        p.onFinished!(decision, now, end);
        if (end === "connect-failure") seen ??= (decision.state as { stream: FilterStream }).stream;
      },
    };
  };
  await runPolicy(workload, "picker", spy, { tokenizer, wasm, healthCheckIntervalMs: SLOW_HEALTH_CHECK_MS });
  assert.ok(seen !== null, "a request went to the gone pod");
  const s = seen as FilterStream;
  assert.equal(s.state.responseHeaders?.get(":status"), "503");
  assert.equal(s.state.responseFlags & RESPONSE_FLAG_BITS.UF, RESPONSE_FLAG_BITS.UF);
  assert.equal(s.state.responseCodeDetails, "upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_111}");
  assert.equal(s.state.upstreamAddress, "10.0.0.2:8000");
  assert.ok(s.calls.includes("proxy_on_response_headers") && s.calls.includes("proxy_on_log"), s.calls.join(","));
});
