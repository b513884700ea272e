// The simulator with several gateway replicas: the picker's hints stay on the replica that wrote them, so a
// multi-turn workload spread over 3 replicas finds less cache than with the replicas sharing hints through the
// simulated Redis (picker-redis); requests that wait for Redis all reach a pod, and the plugin never traps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { runPolicies } from "../../src-host/sim/run-policies.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const CHATS = {
  name: "chats",
  seed: 5,
  pods: { count: 4, kvTokens: 65_536, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
  arrival: { qps: 12, durationS: 12 },
  traffic: [
    { type: "multi-turn", conversations: 24, turns: [3, 6], systemTokens: 1500, userTokens: [100, 300], assistantTokens: [50, 150], thinkTimeS: [0.2, 1] },
  ],
};

test("with 3 replicas, sharing hints through Redis finds more cache than not sharing", async () => {
  const wasm = readBuiltPlugin("higress");
  const result = await runPolicies(parseWorkload(CHATS), ["picker", "picker-redis"], { wasm, gatewayReplicas: 3, redisRttMs: 0.5 });
  const alone = result.policies.picker;
  const shared = result.policies["picker-redis"];
  assert.equal(alone.requests, shared.requests);
  assert.equal(shared.failed, 0);
  assert.ok(shared.token_hit_rate > alone.token_hit_rate, `shared ${shared.token_hit_rate} vs alone ${alone.token_hit_rate}`);
  for (const s of [alone, shared]) assert.equal(s.extra.traps, 0);
  assert.ok(shared.extra.redisWaits > 0, "some requests waited for Redis");
  assert.equal(shared.extra.replicas, 3);
});
