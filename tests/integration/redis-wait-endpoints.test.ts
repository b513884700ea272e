// A request that waits for Redis is decided again with the matches the worker's index found before the wait.
// Endpoints may come and go meanwhile: a slot freed by an endpoint and taken by a new one must not hand the new
// endpoint the old one's match.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SimRedis } from "../../src-host/sim/sim-redis.ts";
import { chat, debugOf, pickerHost, text } from "../support/picker.ts";
import { SteppedWallClock } from "../support/stepped-clock.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"];
const NEW_POD = "10.0.0.9:8000";
const RTT_MS = 2000;

test("an endpoint that takes, during a Redis wait, the slot of one that left is not credited with its match", () => {
  // setPods does not move this clock: the endpoints change while the request waits.
  const clock = new SteppedWallClock();
  const h = pickerHost({
    workers: 1,
    clock,
    redis: new Map([[CLUSTER, new SimRedis(clock.timers, RTT_MS)]]),
    config: { metrics: { snapshotTtlMs: 0 }, debug: { header: true }, redis: { cluster: CLUSTER, timeoutMs: 5000 } },
  });
  const pods = (addresses: string[]) => h.setPods(addresses.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  // Another request refreshes the endpoints (it waits for Redis too).
  const filler = (i: number) => h.send(chat(text(100 + i, 300), [], `filler ${i}`));
  pods(PODS);
  clock.pass(1000);

  const system = text(600, 3000);
  const first = h.send(chat(system, [], "first"));
  clock.pass(RTT_MS + 1);
  const holder = h.chosen(first)!;
  assert.ok(PODS.includes(holder));
  h.complete(first);

  const next = h.send(chat(system, [], text(800, 8000)));
  assert.equal(next.requestState, "paused", "the new turn asks Redis");
  pods(PODS.filter((p) => p !== holder));
  filler(1); // the holder leaves: its slot is freed
  pods([...PODS.filter((p) => p !== holder), NEW_POD]);
  clock.pass(1000);
  filler(2); // the new endpoint takes the freed slot
  clock.pass(RTT_MS);
  assert.equal(next.requestState, "forwarded");
  const d = debugOf(next);
  const score = d.scores.get(NEW_POD);
  assert.ok(score !== undefined && score !== "excluded", "the new endpoint is a candidate");
  assert.equal(score.m, 0, "no match credited to the new endpoint");
  assert.equal(h.host.traps, 0);
  h.host.close();
});
