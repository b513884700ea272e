// What each simulated deployment knows of the pods: an Envoy balancer learns a pod's departure from its active health
// checks (unhealthy after unhealthy_threshold failed checks, healthy again after healthy_threshold passed ones, a host
// EDS no longer lists dropped once it fails), an inference-extension endpoint picker from its pod informer, a lag
// after the change; until then the policy still routes to the pod that went.
import { test } from "node:test";
import assert from "node:assert/strict";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { ENVOY_HEALTH_CHECK, HealthCheckedPods } from "../../src-host/sim/policies/health-checked-pods.ts";
import { InformedPods, POD_INFORMER_LAG_MS } from "../../src-host/sim/policies/informed-pods.ts";
import { roundRobinPolicy } from "../../src-host/sim/policies/round-robin.ts";
import { precisePolicy } from "../../src-host/sim/policies/precise.ts";
import type { PolicyContext } from "../../src-host/sim/policies/policy.ts";
import { SimPod, engineConfig } from "../../src-host/sim/sim-pod.ts";
import { SimRequest } from "../../src-host/sim/sim-request.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const workload = parseWorkload({
  seed: 1,
  pods: { count: 3, kvTokens: 8192, prefillTokensPerSec: 10_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
  arrival: { qps: 1, durationS: 1 },
  traffic: [{ type: "shared-prefix", groups: 1, promptsPerGroup: 1, systemTokens: 1, questionTokens: 1, outputTokens: 1 }],
});
const INTERVAL = 1000;

function cluster(n: number, clock: VirtualClock): SimPod[] {
  return Array.from({ length: n }, (_, i) => new SimPod(i, engineConfig(workload.pods, i), clock.nowMs()));
}

const ids = (pods: readonly SimPod[]) => pods.map((p) => p.id);

test("health checks: a pod that goes down stays a host until unhealthy_threshold checks fail; back after healthy_threshold", () => {
  const clock = new VirtualClock(0);
  const pods = cluster(3, clock);
  const view = new HealthCheckedPods(() => pods, clock, INTERVAL);
  const before = view.pods;
  assert.deepEqual(ids(before), [0, 1, 2]);
  clock.advanceTo(INTERVAL);
  assert.equal(view.pods, before, "the same array while nothing changes");

  pods[1].up = false;
  for (let k = 1; k < ENVOY_HEALTH_CHECK.unhealthyThreshold; k++) {
    clock.advanceTo(clock.nowMs() + INTERVAL);
    assert.deepEqual(ids(view.pods), [0, 1, 2], `still a host after ${k} failed check(s)`);
  }
  clock.advanceTo(clock.nowMs() + INTERVAL);
  assert.deepEqual(ids(view.pods), [0, 2]);

  pods[1].up = true;
  clock.advanceTo(clock.nowMs() + ENVOY_HEALTH_CHECK.healthyThreshold * INTERVAL);
  assert.deepEqual(ids(view.pods), [0, 1, 2]);
  view.close();
});

test("health checks: a pod EDS drops stays while healthy and goes when its checks fail; a new pod joins at its first check", () => {
  const clock = new VirtualClock(0);
  const pods = cluster(3, clock);
  const view = new HealthCheckedPods(() => pods, clock, INTERVAL);
  const gone = pods[2];
  gone.up = false;
  pods.splice(2, 1);
  const joined = new SimPod(3, engineConfig(workload.pods, 3), clock.nowMs());
  pods.push(joined);
  assert.deepEqual(ids(view.pods), [0, 1, 2], "nothing learned before the next check");
  clock.advanceTo(INTERVAL);
  assert.deepEqual(ids(view.pods), [0, 1, 2, 3], "the new pod passed its first check; the gone one failed once");
  clock.advanceTo(ENVOY_HEALTH_CHECK.unhealthyThreshold * INTERVAL);
  assert.deepEqual(ids(view.pods), [0, 1, 3]);
  view.close();
});

test("pod informer: the endpoint picker learns a change a lag after it happens", () => {
  const clock = new VirtualClock(0);
  const pods = cluster(3, clock);
  let changes = 0;
  const view = new InformedPods(() => pods, clock, POD_INFORMER_LAG_MS, () => changes++);
  pods[0].up = false;
  view.podsChanged();
  clock.advanceTo(POD_INFORMER_LAG_MS - 1);
  assert.deepEqual(ids(view.pods), [0, 1, 2]);
  clock.advanceTo(POD_INFORMER_LAG_MS);
  assert.deepEqual(ids(view.pods), [1, 2]);
  assert.equal(changes, 1);
  view.close();
});

function ctx(pods: SimPod[], clock: VirtualClock): PolicyContext {
  return { seed: 1, clock, workload, allPods: () => pods, healthCheckIntervalMs: INTERVAL, resume: () => {} };
}

const tokenizer = new VocabularyTokenizer();
function request(id: number): SimRequest {
  const spec = { generator: 0, sessionKey: `s${id}`, maxTokens: 4, slot: 0, messages: [{ role: "user" as const, content: ` question ${id}` }] };
  return new SimRequest(id, spec, "m", 0, tokenizer, workload.pods.blockTokens);
}

test("round-robin keeps sending to a pod that went until its health checks fail; precise until its informer tells", async () => {
  const clock = new VirtualClock(0);
  const pods = cluster(3, clock);
  const rr = roundRobinPolicy(ctx(pods, clock));
  const precise = await precisePolicy(ctx(pods, clock));
  const gone = pods[1];
  gone.up = false;
  const up = pods.filter((p) => p.up);
  rr.onPodsChanged?.(clock.nowMs());
  precise.onPodsChanged?.(clock.nowMs());
  const picks = (p: typeof rr) => Array.from({ length: 6 }, (_, i) => p.pick(request(i), up, clock.nowMs()).pod);
  assert.ok(picks(rr).includes(gone), "round robin still cycles through the pod that went");
  clock.advanceTo(ENVOY_HEALTH_CHECK.unhealthyThreshold * INTERVAL);
  assert.ok(!picks(rr).includes(gone));
  assert.ok(!picks(precise).includes(gone), "the informer told precise within the health checks' time");
  rr.close?.();
  precise.close?.();
});
