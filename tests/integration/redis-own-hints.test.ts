// A gateway's own Redis hints against another replica's (Higress build, the simulator's in-process Redis on virtual
// time): a hint this gateway published is judged by the endpoint's cache horizon, as its shared-data copy is, so
// Redis does not bring back what the workers' own hints refused as evicted; another replica's hint is news and is
// credited. Replicas are separate processes: one virtual time, read a few nanoseconds apart.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";
import { VirtualClock, processClock, type Clock } from "../../src-host/host/clock.ts";
import { SimRedis } from "../../src-host/sim/sim-redis.ts";
import { chat, debugOf, pickerHost, setCountingPods, text, type PickerHarness } from "../support/picker.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000", "10.0.0.4:8000"];

function gateway(clock: VirtualClock, redis: SimRedis, skewNs: bigint): PickerHarness<Clock> {
  return pickerHost({
    workers: 2,
    clock: processClock(clock, skewNs),
    redis: new Map([[CLUSTER, redis]]),
    config: { debug: { header: true }, metrics: { snapshotTtlMs: 0 }, redis: { cluster: CLUSTER } },
  });
}

/** Sends, lets Redis answer if the plugin asked it, and returns the decision. */
function route(clock: VirtualClock, h: PickerHarness<Clock>, body: object, worker: number) {
  const s: FilterStream = h.send(body, [], { worker });
  clock.advanceTo(clock.nowMs() + 1);
  assert.equal(s.requestState, "forwarded");
  const d = debugOf(s);
  h.complete(s);
  return d;
}

// Gateway A routes a conversation's first turn on worker 0; `laterS` seconds pass while the engines take in 4,000
// computed prompt tokens a second into 16,000 tokens of KV cache (an untouched block is gone after about 4 s), each
// second's metrics read by both gateways; then the next turn goes to A's worker 1 and to gateway B.
function nextTurnAfter(laterS: number) {
  const clock = new VirtualClock();
  const redis = new SimRedis(clock, 0.5);
  const a = gateway(clock, redis, 0n);
  const b = gateway(clock, redis, 1n);
  let queries = 0;
  const tick = () => {
    for (const h of [a, b]) {
      setCountingPods(h, PODS, queries);
      route(clock, h, chat(text(1, 300), [], "filler " + queries), 1);
    }
    queries += 4000;
    clock.advanceTo(clock.nowMs() + 1000);
  };
  for (let s = 0; s < 2; s++) tick();
  const history: Array<[string, string]> = [["task", text(900, 2000)]];
  const first = route(clock, a, chat(text(600, 6000), history, "tool output " + text(3, 3000)), 0);
  for (let s = 0; s < laterS; s++) tick();
  history.push(["tool output " + text(3, 3000), text(700, 200)]);
  const next = chat(text(600, 6000), history, text(800, 4000));
  const credited = (d: ReturnType<typeof route>) => {
    const score = d.scores.get(first.endpoint);
    return score === undefined || score === "excluded" ? 0 : score.m;
  };
  const staleBefore = a.counter("redis.stale");
  const own = credited(route(clock, a, next, 1));
  const ownStale = a.counter("redis.stale") - staleBefore;
  const other = credited(route(clock, b, next, 0));
  for (const h of [a, b]) assert.equal(h.host.traps, 0);
  return { own, ownStale, other, chain: first.chain, asked: a.counter("redis.lookups") };
}

test("Redis does not bring back a gateway's own hint that its cache horizon refuses; another replica's it credits", () => {
  // Credited means the whole first turn and the answer it generated (prefix.creditAnswers), more than its chain.
  const late = nextTurnAfter(10);
  assert.ok(late.own < late.chain, `10 s later the gateway's own hint is too old (credited ${late.own} of ${late.chain})`);
  assert.ok(late.ownStale >= 1, "the refused Redis hint is counted");
  assert.ok(late.other >= late.chain, `the other replica never judged it: credited through Redis (${late.other} of ${late.chain})`);
  // 2 s later the pod still holds the turn: both credit it.
  const soon = nextTurnAfter(2);
  assert.ok(soon.own >= soon.chain, `${soon.own} of ${soon.chain}`);
  assert.ok(soon.other >= soon.chain, `${soon.other} of ${soon.chain}`);
});
