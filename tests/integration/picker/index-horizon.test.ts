// A worker's own prefix index is judged by each endpoint's cache horizon: the worker records only what it routed,
// while the engine's cache takes in every worker's traffic, so an entry the index still holds may describe blocks
// the engine has since overwritten.
import { test } from "node:test";
import assert from "node:assert/strict";
import { VirtualClock, processClock, type Clock } from "../../../src-host/host/clock.ts";
import { SimRedis } from "../../../src-host/sim/sim-redis.ts";
import { chat, debugOf, pickerHost, setCountingPods, text, type PickerHarness } from "../../support/picker.ts";

const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000", "10.0.0.4:8000"];
const REDIS_CLUSTER = "outbound|6379||redis.default.svc.cluster.local";

type Replicas = "no redis" | "redis, alone" | "redis, with another replica";

// One worker sends a prompt, then `laterS` seconds of short requests while the engines take in `tokensPerS`
// computed prompt tokens a second into 16,000 tokens of KV cache (a metrics page each second; other gateway workers'
// traffic, which this worker does not see), then the same prompt again. Without `counters` the pages carry no
// prefix-cache counters. With Redis the gateway shares hints through (the simulator's) Redis, alone or with another
// replica that routes each short request first (so this gateway's Redis lookups find that replica's hints). Returns
// the chunks the second copy is credited with on the first one's endpoint, and the chain's length.
function sameWorkerRepeatAfter(laterS: number, tokensPerS: number, counters: boolean, replicas: Replicas = "no redis") {
  const clock = new VirtualClock();
  const redis = new SimRedis(clock, 0.5);
  const gateway = (skewNs: bigint): PickerHarness<Clock> => pickerHost({
    workers: 1,
    clock: processClock(clock, skewNs),
    redis: new Map([[REDIS_CLUSTER, redis]]),
    config: { debug: { header: true }, metrics: { snapshotTtlMs: 0 }, redis: { cluster: REDIS_CLUSTER } },
  });
  const h: PickerHarness<Clock> = replicas === "no redis"
    ? pickerHost({ workers: 1, clock, config: { debug: { header: true } } })
    : gateway(0n);
  const other = replicas === "redis, with another replica" ? gateway(1n) : null;
  // A decision that asked Redis waits for its reply: a millisecond on.
  const send = (g: PickerHarness<Clock>, body: object) => {
    const s = g.send(body, []);
    clock.advanceTo(clock.nowMs() + 1);
    assert.equal(s.requestState, "forwarded");
    return s;
  };
  let queries = 0;
  const page = () => {
    setCountingPods(h, PODS, queries, counters);
    if (other) setCountingPods(other, PODS, queries, counters);
    queries += tokensPerS;
  };
  page();
  const body = chat(text(5, 4000), [], "question " + text(105, 700));
  const first = send(h, body);
  const one = debugOf(first);
  h.complete(first);
  for (let s = 0; s < laterS; s++) {
    page();
    const filler = chat(text(1000 + s, 1200), [], "filler " + s); // new to both: this gateway asks Redis
    if (other) other.complete(send(other, filler));
    h.complete(send(h, filler));
    if (replicas !== "no redis") clock.advanceTo(clock.nowMs() + 1000); // setPods moves only a plain VirtualClock
  }
  const again = send(h, body);
  const score = debugOf(again).scores.get(one.endpoint);
  h.complete(again);
  return { credited: score === undefined || score === "excluded" ? 0 : score.m, chain: one.chain };
}

test("a worker credits its own index entries only while the endpoint's cache keeps them", () => {
  // 100 tokens a second into 16,000: a released block stays about two minutes.
  const slow = sameWorkerRepeatAfter(45, 100, true);
  assert.ok(slow.chain >= 8);
  assert.equal(slow.credited, slow.chain, "45 s later the cache still holds it: credited whole");
  // 4,000 tokens a second (other workers' traffic): the cache turned over in about 4 s, though this worker's LRU
  // list, which saw 45 short requests, still holds every chunk.
  const fast = sameWorkerRepeatAfter(45, 4000, true);
  assert.equal(fast.credited, 0, `turned over: credited ${fast.credited} of ${fast.chain}`);
  const recent = sameWorkerRepeatAfter(2, 4000, true);
  assert.equal(recent.credited, recent.chain, "2 s later, under 4 s of turnover: credited whole");
  // Without counters nothing tells how long the cache keeps a block: the LRU list alone decides.
  const unknown = sameWorkerRepeatAfter(45, 4000, false);
  assert.equal(unknown.credited, unknown.chain, "not known: the index's own bound decides");
});

test("while another gateway replica shares hints through Redis, the worker's own index is not judged by the horizon", () => {
  // That replica keeps refreshing the pods' copies of prefixes their users share, out of this gateway's sight.
  const shared = sameWorkerRepeatAfter(45, 4000, true, "redis, with another replica");
  assert.ok(shared.chain >= 8);
  assert.equal(shared.credited, shared.chain, `credited ${shared.credited} of ${shared.chain}`);
  // Redis configured, but no other replica's hint seen: judged as without Redis.
  const alone = sameWorkerRepeatAfter(45, 4000, true, "redis, alone");
  assert.equal(alone.credited, 0, `alone: credited ${alone.credited} of ${alone.chain}`);
});
