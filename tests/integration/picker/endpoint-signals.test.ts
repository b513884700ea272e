// assembly/endpoints/endpoint-signals.ts through the Higress build: what the candidate fill keeps from the endpoint
// snapshot between requests (health, queue, KV, LoRA state) follows the request's model and every new snapshot.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StaticClusterHarness, type Endpoint } from "../../../src-host/harness/static-cluster-harness.ts";

const [A, B] = ["10.7.0.1:8000", "10.7.0.2:8000"];

function harness(endpoints: Endpoint[], config: object = {}): StaticClusterHarness {
  const h = new StaticClusterHarness({ pluginConfig: JSON.stringify(config), log: () => {} });
  h.setEndpoints(endpoints);
  return h;
}

function chosenFor(h: StaticClusterHarness, model: string, turn: number): string | null {
  const s = h.send({ model, messages: [{ role: "user", content: `question ${turn} for ${model}` }] });
  const chosen = h.chosen(s);
  s.encodeHeaders([[":status", "200"]], false);
  s.encodeData(new Uint8Array(0), true);
  s.finish();
  return chosen;
}

test("LoRA affinity follows the request's model from one request to the next within one snapshot", () => {
  const h = harness(
    [
      { address: A, runningLoras: ["tenant-a"], kv: 0.2 },
      { address: B, runningLoras: ["tenant-b"], kv: 0.2 },
    ],
    { weights: { loraAffinity: 8 } },
  );
  // No clock movement: every request uses the same snapshot, so only the model tells them apart.
  const order = ["tenant-a", "tenant-b", "tenant-b", "tenant-a", "tenant-b", "tenant-a"];
  order.forEach((model, turn) => assert.equal(chosenFor(h, model, turn), model === "tenant-a" ? A : B, `turn ${turn} (${model})`));
});

test("a new snapshot's health and load reach the next decision", () => {
  const h = harness([
    { address: A, waiting: 0, kv: 0.1 },
    { address: B, waiting: 12, kv: 0.9 },
  ]);
  assert.equal(chosenFor(h, "m", 0), A);
  h.setEndpoints([
    { address: A, waiting: 12, kv: 0.9 },
    { address: B, waiting: 0, kv: 0.1 },
  ]);
  h.clock.advanceTo(h.clock.nowMs() + 10_000); // past metrics.snapshotTtlMs: the next request reads the new snapshot
  assert.equal(chosenFor(h, "m", 1), B);
  h.setEndpoints([
    { address: A, waiting: 0, kv: 0.1 },
    { address: B, waiting: 0, kv: 0.1, health: "Unhealthy" },
  ]);
  h.clock.advanceTo(h.clock.nowMs() + 10_000);
  for (let turn = 2; turn < 6; turn++) assert.equal(chosenFor(h, "m", turn), A, `turn ${turn}: B is unhealthy`);
});

test("an endpoint a filter left out of one decision is back in the next within one snapshot", () => {
  // Higress rate_limit: an endpoint above its share of recent picks is skipped while another remains. A holds the
  // shorter queue, so it wins whenever it is not skipped: first, skipped at share 1/1, back at 1/2, skipped at 2/3,
  // back at 2/4.
  const h = harness(
    [
      { address: A, waiting: 0, kv: 0.2 },
      { address: B, waiting: 5, kv: 0.2 },
    ],
    { rate_limit: 0.6 },
  );
  const chosen = [0, 1, 2, 3, 4].map((turn) => chosenFor(h, "m", turn));
  assert.deepEqual(chosen, [A, B, A, B, A]);
});
