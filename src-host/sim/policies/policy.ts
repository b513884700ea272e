// The routing policy interface the simulator drives: one pick per request among the pods that are up,
// then lifecycle callbacks (first token, finished) so stateful policies see realistic timing.
import type { VirtualClock } from "../../host/clock.ts";
import type { DecisionExplanation } from "../index-diagnostics.ts";
import type { SimPod } from "../sim-pod.ts";
import type { SimRequest } from "../sim-request.ts";
import type { Workload } from "../workload.ts";

export interface PolicyContext {
  /** Seed for the policy's own random choices (tie-breaks, random picks). */
  seed: number;
  clock: VirtualClock;
  workload: Workload;
  /** Every pod not removed (up or restarting), ordered by id. Changes only at faults. */
  allPods(): readonly SimPod[];
  /** The plugin module (picker policy). */
  wasm?: Uint8Array;
  /** The stock Envoy build of the plugin (picker-envoy policy). */
  wasmEnvoy?: Uint8Array;
  /** Plugin configuration JSON (picker, picker-redis, picker-envoy); default "{}". */
  pluginConfig?: string;
  /** How often the gateway health-checks the pods and refreshes their metrics (ms). */
  healthCheckIntervalMs: number;
  /** Gateway replicas in front of the pods (picker policies; each has its own worker VMs). Default 1. */
  gatewayReplicas?: number;
  /** Worker VMs per gateway replica, taking streams in turn (picker policies). Default 2. */
  gatewayWorkers?: number;
  /** Round-trip time of the simulated Redis the replicas share (picker-redis), ms. Default 0.5. */
  redisRttMs?: number;
  /** A decision made later (the policy returned `deferred`): the request goes to the pod now. */
  resume(req: SimRequest, decision: Decision): void;
  /** Compare the policy's view of the pods' caches with the truth, decision by decision (picker). */
  diagnose?: boolean;
}

/**
 * How a request sent to a pod ended: it completed, its connection was refused (the pod is down or gone:
 * "connect-failure"), the pod went while it ran ("connection-termination"), or the engine refused it ("rejected").
 */
export type RequestEnd = "completed" | "connect-failure" | "connection-termination" | "rejected";

export interface Decision {
  /**
   * The pod the gateway sends the request to, as its own view of the pods has it (that pod may be down or gone since:
   * the request then fails), or null when the request fails at the gateway.
   */
  pod: SimPod | null;
  /** Policy-private per-request state handed back to the lifecycle callbacks. */
  state?: unknown;
  /** The policy decides later (e.g. it waits for Redis) and then calls PolicyContext.resume. */
  deferred?: boolean;
}

export interface Policy {
  readonly name: string;
  /**
   * `candidates` are the pods up now (never empty; the same array until the pod set changes): what an oracle knows. A
   * policy whose deployment learns of pods later (health checks, a pod informer) keeps its own view.
   */
  pick(req: SimRequest, candidates: readonly SimPod[], nowMs: number): Decision;
  onFirstToken?(decision: Decision, nowMs: number): void;
  /** The request ended: completed, or failed as `end` says. */
  onFinished?(decision: Decision, nowMs: number, end: RequestEnd): void;
  /** The pod set or a pod's health changed. */
  onPodsChanged?(nowMs: number): void;
  /**
   * What the policy believed about each candidate when it made this decision (after its first token), for the
   * index diagnostics; policies without an approximate index leave it out.
   */
  explain?(decision: Decision): DecisionExplanation | null;
  /** Extra counters for the report. */
  stats?(): Record<string, number>;
  close?(): void;
}

export type PolicyFactory = (ctx: PolicyContext) => Policy | Promise<Policy>;
