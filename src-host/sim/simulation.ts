// One policy over one workload, on virtual time. Events: Poisson arrivals (stage by stage), pod step
// boundaries (each pod's Engine says when it next changes state), timers on the host clock (health
// checks, metric scrapes, queue samples, the plugin's own ticks), conversation think times and faults.
// Everything runs in time order, so the plugin and the policies see the cluster as it is at that instant.
import { EngineRequestError, type EngineEvent } from "../backend/engine.ts";
import type { Tokenizer } from "../backend/tokenizer.ts";
import { VirtualClock } from "../host/clock.ts";
import { EventQueue } from "./event-queue.ts";
import { IndexDiagnostics, type DecisionTruth } from "./index-diagnostics.ts";
import { PlacementDiagnostics } from "./placement-diagnostics.ts";
import { createGenerator } from "./generators/create-generator.ts";
import type { RequestSpec, TrafficGenerator } from "./generators/traffic-generator.ts";
import { PodHeap } from "./pod-heap.ts";
import type { Decision, Policy, PolicyContext, PolicyFactory } from "./policies/policy.ts";
import { SeededRandom } from "../util/seeded-random.ts";
import { SimPod, engineConfig } from "./sim-pod.ts";
import { SimRequest } from "./sim-request.ts";
import { ProgressThrottle, formatProgress } from "./progress.ts";
import { decisionRecord, type RequestLogRecord } from "./request-log.ts";
import { PodSubsetStats, RunStats, type PolicySummary, type TimelinePoint } from "./stats.ts";
import type { FaultSpec, Workload } from "./workload.ts";

export const SIM_START_MS = 1_700_000_000_000;

export interface SimulationOptions {
  wasm?: Uint8Array;
  /** The stock Envoy build (picker-envoy policy). */
  wasmEnvoy?: Uint8Array;
  pluginConfig?: string;
  /** Stop sending after this many requests. */
  maxRequests?: number;
  /** Gateway health check / metrics refresh period (ms). Default 1000 (Higress's default). */
  healthCheckIntervalMs?: number;
  /** Period of pod queue samples (ms). Default 1000. */
  queueSampleMs?: number;
  /** Gateway replicas in front of the pods (picker policies). Default 1. */
  gatewayReplicas?: number;
  /** Worker VMs per gateway replica (picker policies). Default 2. */
  gatewayWorkers?: number;
  /** Round-trip time of the shared Redis (picker-redis), ms. */
  redisRttMs?: number;
  /** Width of a hit-rate-over-time bucket (ms). Default: the arrival span / 60, at least 1 s. */
  timelineBucketMs?: number;
  /** Every policy's placement, and the beliefs of policies that explain their decisions (the picker), are checked
   *  against the pods' real caches. */
  diagnose?: boolean;
  /** Where progress lines go during a long run (stderr from the CLI); at most one every `progressEveryMs`. */
  onProgress?: (line: string) => void;
  progressEveryMs?: number;
  /** Keep one record per request (request-log.ts) in the run's `requests`. */
  requestLog?: boolean;
  tokenizer: Tokenizer;
}

export interface PolicyRun {
  policy: string;
  summary: PolicySummary;
  timeline: TimelinePoint[];
  /** Sorted TTFTs (s), thinned to at most 400 points, for CDF plots. */
  ttftCdf: number[];
  /** One record per request, in decision order (only with `requestLog`). */
  requests?: RequestLogRecord[];
}

interface InFlight {
  req: SimRequest;
  pod: SimPod;
  decision: Decision;
  uncached: number;
  firstToken: boolean;
  /** Time the gateway held the request before it reached the pod (a Redis lookup). */
  gatewayWaitMs: number;
  /** What every candidate held at the pick (only with diagnostics on). */
  truth: DecisionTruth | null;
  /** Its request-log line (only with `requestLog`). */
  log: RequestLogRecord | null;
}

export async function runPolicy(workload: Workload, name: string, factory: PolicyFactory, options: SimulationOptions): Promise<PolicyRun> {
  const wallStart = performance.now();
  const sim = new Simulation(workload, options);
  await sim.start(factory);
  sim.run(name);
  const wallS = (performance.now() - wallStart) / 1000;
  return sim.result(name, wallS);
}

/** Size of the requests other clients send a wedged pod. */
const EXTERNAL_PROMPT_TOKENS = 128;
const EXTERNAL_OUTPUT_TOKENS = 32;

class Simulation {
  readonly clock = new VirtualClock(SIM_START_MS);
  private readonly events = new EventQueue();
  private readonly podHeap = new PodHeap();
  private readonly pods: SimPod[] = [];
  private candidates: SimPod[] = [];
  private readonly inflight = new Map<number, InFlight>();
  private readonly generators: TrafficGenerator[];
  private readonly backlog: number[][];
  private readonly weights: number[];
  private readonly arrivalRng: SeededRandom;
  private readonly trafficRng: SeededRandom;
  private readonly stats: RunStats;
  private policy!: Policy;
  private nextRequestId = 0;
  private nextPodId = 0;
  private arrivalsDone = false;
  private backlogSize = 0;
  private readonly eventBuf: EngineEvent[] = [];
  private readonly blockTokens: number;
  private readonly stageEnds: number[] = [];
  /** Requests whose policy decides later. */
  private deferred = 0;
  private readonly diagnostics = new IndexDiagnostics();
  private readonly placement = new PlacementDiagnostics();
  /** Pods a wedge fault names, and the figures of the others (null without a wedge). */
  private readonly wedgedPods: Set<number>;
  private readonly healthyPodStats: PodSubsetStats | null;
  /** Adapter loads of pods removed by a fault. */
  private removedLoraLoads = 0;
  /** Requests the policy sent to a pod that was down or gone (each failed). */
  private sentToDownPods = 0;
  private readonly requestLog: RequestLogRecord[] | null;

  constructor(
    readonly workload: Workload,
    readonly options: SimulationOptions,
  ) {
    this.blockTokens = workload.pods.blockTokens;
    this.generators = workload.traffic.map((t, i) => createGenerator(t, i, workload.seed));
    this.backlog = workload.traffic.map(() => []);
    this.weights = workload.traffic.map((t) => t.weight);
    this.arrivalRng = SeededRandom.derive(workload.seed, "arrivals");
    this.trafficRng = SeededRandom.derive(workload.seed, "traffic");
    let end = SIM_START_MS;
    for (const s of workload.arrival.stages) this.stageEnds.push((end += s.durationS * 1000));
    const span = end - SIM_START_MS;
    this.stats = new RunStats(SIM_START_MS, options.timelineBucketMs ?? Math.max(1000, span / 60));
    this.wedgedPods = new Set(workload.faults.flatMap((f) => (f.type === "wedge" ? [f.pod] : [])));
    this.healthyPodStats = this.wedgedPods.size > 0 ? new PodSubsetStats() : null;
    this.requestLog = options.requestLog === true ? [] : null;
    for (let i = 0; i < workload.pods.count; i++) this.addPod();
    this.refreshCandidates();
  }

  private get diagnosing(): boolean {
    return this.options.diagnose === true;
  }

  private get explaining(): boolean {
    return this.diagnosing && this.policy.explain !== undefined;
  }

  async start(factory: PolicyFactory): Promise<void> {
    const ctx: PolicyContext = {
      seed: this.workload.seed,
      clock: this.clock,
      workload: this.workload,
      allPods: () => this.pods,
      wasm: this.options.wasm,
      wasmEnvoy: this.options.wasmEnvoy,
      pluginConfig: this.options.pluginConfig,
      healthCheckIntervalMs: this.options.healthCheckIntervalMs ?? 1000,
      gatewayReplicas: this.options.gatewayReplicas,
      gatewayWorkers: this.options.gatewayWorkers,
      redisRttMs: this.options.redisRttMs,
      resume: (req, decision) => {
        this.deferred--;
        // The decision is made now, after the wait: the caches to judge it against are today's.
        this.dispatch(req, decision, this.clock.nowMs(), this.diagnosing ? this.truthAt(req) : null);
      },
      diagnose: this.options.diagnose ?? false,
    };
    this.policy = await factory(ctx);
    this.clock.every(this.options.queueSampleMs ?? 1000, () => this.stats.sampleQueues(this.candidates.map((p) => p.numWaiting)));
    for (const f of this.workload.faults) this.events.push(SIM_START_MS + f.atS * 1000, (t) => this.fault(f, t));
    this.scheduleArrival(SIM_START_MS, 0);
  }

  run(name: string): void {
    const clock = this.clock;
    const onProgress = this.options.onProgress;
    const progress = onProgress === undefined ? null
      : new ProgressThrottle(this.options.progressEveryMs ?? 5000, (p) => onProgress(formatProgress(p)));
    const totalVirtualS = (this.stageEnds[this.stageEnds.length - 1] - SIM_START_MS) / 1000;
    let steps = 0;
    for (;;) {
      if (progress !== null && (++steps & 1023) === 0) {
        progress.maybeReport(performance.now(), {
          policy: name, virtualS: (clock.nowMs() - SIM_START_MS) / 1000, totalVirtualS, requests: this.nextRequestId,
        });
      }
      if (this.arrivalsDone && this.inflight.size === 0 && this.backlogSize === 0 && this.deferred === 0) break;
      const tPod = this.podHeap.peekTime();
      const tEvent = this.events.peekTime();
      const tTimer = clock.nextDue();
      const t = Math.min(tPod, tEvent, tTimer);
      if (t === Infinity) break;
      if (tTimer === t) {
        clock.advanceTo(t);
        continue;
      }
      clock.advanceTo(t);
      if (tPod === t) {
        const pod = this.podHeap.peek()!;
        const evs = pod.engine.advance(t, this.eventBuf);
        for (let i = 0; i < evs.length; i++) this.onEngineEvent(evs[i]);
        evs.length = 0;
        this.podHeap.update(pod);
      } else {
        const e = this.events.pop()!;
        e.run(e.time);
      }
    }
    this.policy.close?.();
  }

  result(name: string, wallS: number): PolicyRun {
    const sorted = Float64Array.from(this.stats.ttftMs).sort();
    const step = Math.max(1, Math.floor(sorted.length / 400));
    const cdf: number[] = [];
    for (let i = 0; i < sorted.length; i += step) cdf.push(sorted[i] / 1000);
    if (sorted.length > 0 && (sorted.length - 1) % step !== 0) cdf.push(sorted[sorted.length - 1] / 1000);
    const summary = this.stats.summary(
      wallS, this.policy.stats?.() ?? {}, this.explaining ? this.diagnostics.summary() : undefined,
      this.diagnosing ? this.placement.summary() : undefined,
    );
    if (this.healthyPodStats !== null) summary.healthy_pods = this.healthyPodStats.summary();
    if (this.workload.faults.some((f) => f.type === "restart" || f.type === "remove")) summary.sent_to_down_pods = this.sentToDownPods;
    if (this.workload.pods.lora !== undefined) summary.lora_loads = this.removedLoraLoads + this.pods.reduce((n, p) => n + p.loraLoads, 0);
    return {
      policy: name,
      summary,
      timeline: this.stats.timeline(),
      ttftCdf: cdf,
      ...(this.requestLog !== null ? { requests: this.requestLog } : {}),
    };
  }

  // ---- arrivals ----

  private scheduleArrival(fromMs: number, stage: number): void {
    const stages = this.workload.arrival.stages;
    let t = fromMs;
    while (stage < stages.length) {
      const qps = stages[stage].qps;
      const next = qps > 0 ? t + this.arrivalRng.exponential(qps) * 1000 : Infinity;
      if (next < this.stageEnds[stage]) {
        this.events.push(next, (now) => this.arrive(now, stage));
        return;
      }
      t = this.stageEnds[stage];
      stage++;
    }
    this.arrivalsDone = true;
  }

  private arrive(now: number, stage: number): void {
    const g = this.trafficRng.weighted(this.weights);
    const spec = this.generators[g].next(now);
    if (spec === null) {
      this.backlog[g].push(now);
      this.backlogSize++;
    } else {
      this.send(spec, now);
    }
    const max = this.options.maxRequests;
    if (max !== undefined && this.nextRequestId + this.backlogSize >= max) this.arrivalsDone = true;
    else this.scheduleArrival(now, stage);
  }

  /** `scheduledMs`: the arrival it fills, earlier than now when it waited in the backlog for a ready session. */
  private send(spec: RequestSpec, now: number, scheduledMs = now): void {
    const req = new SimRequest(
      this.nextRequestId++, spec, spec.lora ?? this.workload.model, now, this.options.tokenizer, this.blockTokens, now - scheduledMs,
    );
    const stats = this.stats;
    stats.requests++;
    stats.closedLoop.sent(req.backlogMs);
    if (now < stats.firstArrivalMs) stats.firstArrivalMs = now;
    if (this.candidates.length === 0) {
      const log = this.logDecision(req, null, now);
      if (log !== null) log.failed = "no-candidates";
      return this.fail(spec, now);
    }
    const truth = this.diagnosing ? this.truthAt(req) : null;
    const decision = this.policy.pick(req, this.candidates, now);
    if (decision.deferred) {
      this.deferred++;
      return;
    }
    this.dispatch(req, decision, now, truth);
  }

  /** The request's log line, added to the log (null without `requestLog`). */
  private logDecision(req: SimRequest, pod: SimPod | null, now: number): RequestLogRecord | null {
    if (this.requestLog === null) return null;
    const spec = req.spec;
    const log = decisionRecord(
      req.id, spec.generator, spec.sessionKey, spec.messages.length, (req.arrivalMs - SIM_START_MS) / 1000,
      (now - SIM_START_MS) / 1000, pod, this.candidates, req.blockHashes, req.promptTokens.length,
    );
    log.backlogS = req.backlogMs / 1000;
    this.requestLog.push(log);
    return log;
  }

  private dispatch(req: SimRequest, decision: Decision, now: number, truth: DecisionTruth | null): void {
    const spec = req.spec;
    const len = req.promptTokens.length;
    const pod = decision.pod;
    const log = this.logDecision(req, pod, now);
    if (pod === null) {
      if (log !== null) log.failed = "no-pod";
      return this.fail(spec, now);
    }
    if (!pod.up) {
      // The policy's view still holds a pod that is down or gone: the connection is refused.
      this.sentToDownPods++;
      if (log !== null) log.failed = "sent-to-down-pod";
      this.policy.onFinished?.(decision, now, "connect-failure");
      return this.fail(spec, now);
    }
    try {
      pod.engine.submit(
        { id: req.id, promptTokens: req.promptTokens, maxTokens: spec.maxTokens, outputTokens: spec.outputTokens, blockHashes: req.blockHashes, lora: spec.lora },
        now,
      );
    } catch (e) {
      if (!(e instanceof EngineRequestError)) throw e;
      if (log !== null) log.failed = "rejected";
      this.policy.onFinished?.(decision, now, "rejected");
      return this.fail(spec, now);
    }
    if (truth !== null) this.placement.add(spec.sessionKey, pod.address, truth);
    const uncached = len - pod.cachedTokens(req.blockHashes, len);
    pod.inflight++;
    pod.pendingPrefillTokens += uncached;
    this.inflight.set(req.id, { req, pod, decision, uncached, firstToken: false, gatewayWaitMs: now - req.arrivalMs, truth, log });
    this.podHeap.update(pod);
  }

  private truthAt(req: SimRequest): DecisionTruth {
    const len = req.promptTokens.length;
    const cachedByPod = new Map<string, number>();
    for (const pod of this.candidates) cachedByPod.set(pod.address, pod.cachedTokens(req.blockHashes, len));
    return { promptTokens: len, cachedByPod };
  }

  private fail(spec: RequestSpec, now: number): void {
    this.stats.failed++;
    this.completeSpec(spec, now);
  }

  private completeSpec(spec: RequestSpec, now: number): void {
    const gen = this.generators[spec.generator];
    const readyAt = gen.complete(spec, now);
    if (readyAt === null) return;
    this.events.push(readyAt, (t) => {
      gen.release(spec.slot);
      const waiting = this.backlog[spec.generator];
      while (waiting.length > 0) {
        const next = gen.next(t);
        if (next === null) break;
        const scheduledMs = waiting.shift()!;
        this.backlogSize--;
        this.send(next, t, scheduledMs);
      }
    });
  }

  // ---- pods ----

  private onEngineEvent(ev: EngineEvent): void {
    const f = this.inflight.get(ev.id as number);
    if (f === undefined) return;
    if (ev.type === "first_token") {
      f.firstToken = true;
      f.pod.pendingPrefillTokens -= f.uncached;
      this.stats.firstToken(ev.time, ev.ttftMs + f.gatewayWaitMs, ev.cachedTokens, ev.promptTokens);
      this.stats.closedLoop.firstToken(ev.ttftMs + f.gatewayWaitMs, f.req.backlogMs);
      if (f.log !== null) {
        f.log.ttftMs = ev.ttftMs + f.gatewayWaitMs;
        f.log.hitTokens = ev.cachedTokens;
      }
      if (this.healthyPodStats !== null && !this.wedgedPods.has(f.pod.id)) {
        this.healthyPodStats.firstToken(ev.ttftMs + f.gatewayWaitMs, ev.cachedTokens, ev.promptTokens);
      }
      this.policy.onFirstToken?.(f.decision, ev.time);
      if (f.truth !== null && this.explaining) {
        const belief = this.policy.explain!(f.decision);
        if (belief !== null) this.diagnostics.add(f.truth, belief);
      }
    } else if (ev.type === "finished") {
      this.inflight.delete(ev.id as number);
      f.pod.inflight--;
      this.stats.finished(ev.time, ev.e2eMs, ev.usage.completionTokens);
      if (f.log !== null) {
        f.log.queuedMs = ev.queuedMs;
        f.log.preemptions = ev.preemptions;
      }
      this.policy.onFinished?.(f.decision, ev.time, "completed");
      this.completeSpec(f.req.spec, ev.time);
    }
  }

  private addPod(): SimPod {
    const id = this.nextPodId++;
    const pod = new SimPod(id, engineConfig(this.workload.pods, this.workload.seed + id, id), this.clock.nowMs());
    this.pods.push(pod);
    this.podHeap.update(pod);
    return pod;
  }

  private refreshCandidates(): void {
    this.candidates = this.pods.filter((p) => p.up);
  }

  private failRequestsOn(pod: SimPod, now: number): void {
    for (const [id, f] of [...this.inflight]) {
      if (f.pod !== pod) continue;
      this.inflight.delete(id);
      this.stats.failed++;
      if (f.log !== null) f.log.failed = "in-flight-when-pod-went";
      this.policy.onFinished?.(f.decision, now, "connection-termination");
      this.completeSpec(f.req.spec, now);
    }
  }

  private podById(id: number): SimPod {
    const pod = this.pods.find((p) => p.id === id);
    if (pod === undefined) throw new Error(`fault at ${this.clock.nowMs() - SIM_START_MS} ms names pod ${id}, which does not exist`);
    return pod;
  }

  private fault(f: FaultSpec, now: number): void {
    switch (f.type) {
      case "restart": {
        const pod = this.podById(f.pod);
        this.failRequestsOn(pod, now);
        pod.up = false;
        pod.restart(now);
        this.podHeap.update(pod);
        this.events.push(now + f.downS * 1000, (t) => {
          if (!this.pods.includes(pod)) return; // removed while down
          pod.up = true;
          pod.createdMs = t;
          this.podHeap.update(pod);
          this.podsChanged(t);
        });
        break;
      }
      case "add":
        this.addPod();
        break;
      case "remove": {
        const pod = this.podById(f.pod);
        this.failRequestsOn(pod, now);
        pod.up = false; // gone: a gateway still configured with its address reaches nothing there
        this.removedLoraLoads += pod.loraLoads;
        this.pods.splice(this.pods.indexOf(pod), 1);
        this.podHeap.remove(pod);
        break;
      }
      case "wedge": {
        const pod = this.podById(f.pod);
        pod.engine.stall(now, now + f.durationS * 1000);
        this.podHeap.update(pod);
        const external = Math.floor(f.externalQps * f.durationS);
        for (let k = 0; k < external; k++) {
          this.events.push(now + ((k + 0.5) * 1000) / f.externalQps, (t) => this.sendExternal(pod, k, t));
        }
        return; // still up and a candidate: nothing changed for the policy
      }
      case "slow": {
        // Events run in time order, so every step begun before now was begun at the old speed.
        const pod = this.podById(f.pod);
        pod.slowDown(f.factor);
        this.events.push(now + f.durationS * 1000, () => pod.slowDown(1));
        return; // still up and a candidate: nothing changed for the policy
      }
    }
    this.podsChanged(now);
  }

  /**
   * A request of another client straight to the pod: distinct tokens (no shared prefix), outside the gateway's
   * figures (its string id is not in the in-flight map).
   */
  private sendExternal(pod: SimPod, k: number, now: number): void {
    if (!this.pods.includes(pod) || !pod.up) return;
    const prompt = Array.from({ length: EXTERNAL_PROMPT_TOKENS }, (_, j) => 1000 + ((k * 7919 + j * 104729) % 30000));
    pod.engine.submit({ id: `external-${pod.id}-${k}`, promptTokens: prompt, maxTokens: EXTERNAL_OUTPUT_TOKENS }, now);
    this.podHeap.update(pod);
  }

  private podsChanged(now: number): void {
    this.refreshCandidates();
    this.policy.onPodsChanged?.(now);
  }
}
