// Drives the arms with one open-loop arrival schedule: request i starts at its scheduled time on arm
// i mod arms (so the arms interleave request by request and share every moment's machine noise), whether or
// not earlier requests finished. Above `maxInflight` open requests an arrival is dropped and counted.
// Bounded: the schedule has a fixed count and every request ends by its timeout.
import { Agent } from "node:http";
import { arrivalTimesMs } from "./arrival-schedule.ts";
import { summarize, type LatencySummary } from "./latency-summary.ts";
import { sendSoakRequest, type ErrorClass, type RequestOutcome } from "./soak-request-sender.ts";
import { DEFAULT_SOAK_WORKLOAD, REQUEST_KINDS, SoakWorkload, type RequestKind, type SoakWorkloadSpec } from "./soak-workload.ts";

export interface ArmTarget {
  name: string;
  /** "host:port" of each server the arm sends to, in turn. */
  addresses: string[];
}

export interface TrafficPlan {
  seconds: number;
  /** Arrivals per second over all arms. */
  rps: number;
  seed: number;
  arms: ArmTarget[];
  /** Open requests over all arms at most; default 256. */
  maxInflight?: number;
  /** Per request, headers to end of stream; default 15 s. */
  timeoutMs?: number;
  /** Latencies of requests scheduled in this first fraction of the run are left out; default 0.1. */
  warmupFraction?: number;
  workload?: Partial<SoakWorkloadSpec>;
}

export interface KindCounts {
  sent: number;
  ok: number;
  errors: number;
}

export interface ArmTraffic {
  name: string;
  scheduled: number;
  dropped: number;
  sent: number;
  ok: number;
  errors: number;
  byKind: Record<RequestKind, KindCounts>;
  errorClasses: Partial<Record<ErrorClass, number>>;
  /** The first few error descriptions. */
  errorSamples: string[];
  statuses: Record<string, number>;
  /** Streaming requests answered 200, after warm-up. */
  headersMs: LatencySummary;
  firstByteMs: LatencySummary;
}

export interface TrafficResult {
  scheduled: number;
  /** First arrival to last completion. */
  elapsedMs: number;
  /** How late requests started against their schedule (the load generator's own lag). */
  startLagMs: LatencySummary;
  peakInflight: number;
  arms: ArmTraffic[];
}

const MAX_ERROR_SAMPLES = 10;

interface ArmState {
  target: ArmTarget;
  servers: Array<{ host: string; port: number }>;
  agent: Agent;
  workload: SoakWorkload;
  traffic: ArmTraffic;
  headers: number[];
  firstBytes: number[];
}

export async function runOpenLoopTraffic(plan: TrafficPlan): Promise<TrafficResult> {
  if (plan.arms.length === 0) throw new Error("the traffic plan needs at least one arm");
  const maxInflight = plan.maxInflight ?? 256;
  const timeoutMs = plan.timeoutMs ?? 15_000;
  const warmupMs = (plan.warmupFraction ?? 0.1) * plan.seconds * 1000;
  const spec: SoakWorkloadSpec = { ...DEFAULT_SOAK_WORKLOAD, ...plan.workload };
  const times = arrivalTimesMs(plan.rps, plan.seconds, plan.seed);
  const arms: ArmState[] = plan.arms.map((target) => ({
    target,
    servers: target.addresses.map((a) => {
      const colon = a.lastIndexOf(":");
      return { host: a.slice(0, colon), port: Number(a.slice(colon + 1)) };
    }),
    agent: new Agent({ keepAlive: true, maxSockets: maxInflight }),
    workload: new SoakWorkload(spec, plan.seed),
    traffic: {
      name: target.name, scheduled: 0, dropped: 0, sent: 0, ok: 0, errors: 0,
      byKind: Object.fromEntries(REQUEST_KINDS.map((k) => [k, { sent: 0, ok: 0, errors: 0 }])) as Record<RequestKind, KindCounts>,
      errorClasses: {}, errorSamples: [], statuses: {},
      headersMs: summarize([]), firstByteMs: summarize([]),
    },
    headers: [],
    firstBytes: [],
  }));
  const lags: number[] = [];
  const open = new Set<Promise<void>>();
  let peakInflight = 0;
  let lastCompletion = 0;

  const record = (arm: ArmState, scheduledMs: number, o: RequestOutcome) => {
    const t = arm.traffic;
    const k = t.byKind[o.kind];
    const status = String(o.status);
    t.statuses[status] = (t.statuses[status] ?? 0) + 1;
    if (o.error !== null) {
      t.errors++;
      k.errors++;
      t.errorClasses[o.error] = (t.errorClasses[o.error] ?? 0) + 1;
      if (t.errorSamples.length < MAX_ERROR_SAMPLES) t.errorSamples.push(`${o.error}: ${o.detail}`);
      return;
    }
    t.ok++;
    k.ok++;
    if (scheduledMs >= warmupMs && o.status === 200 && (o.kind === "chat" || o.kind === "abort")) {
      if (o.headersMs !== null) arm.headers.push(o.headersMs);
      if (o.firstByteMs !== null) arm.firstBytes.push(o.firstByteMs);
    }
  };

  const launch = (i: number, t0: number) => {
    const arm = arms[i % arms.length];
    arm.traffic.scheduled++;
    if (open.size >= maxInflight) {
      arm.traffic.dropped++;
      return;
    }
    lags.push(performance.now() - t0 - times[i]);
    const r = arm.workload.next();
    arm.traffic.byKind[r.kind].sent++;
    const server = arm.servers[arm.traffic.sent % arm.servers.length];
    arm.traffic.sent++;
    const p = sendSoakRequest({ ...server, agent: arm.agent }, r, timeoutMs).then((o) => {
      record(arm, times[i], o);
      if (o.error === null && o.kind === "chat" && r.conversation) arm.workload.answered(r.conversation, o.answer);
      lastCompletion = performance.now();
      open.delete(p);
    });
    open.add(p);
    peakInflight = Math.max(peakInflight, open.size);
  };

  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = performance.now() - t0;
      while (next < times.length && times[next] <= now) launch(next++, t0);
      if (next < times.length) setTimeout(tick, Math.max(0, times[next] - (performance.now() - t0)));
      else resolve();
    };
    setTimeout(tick, times[0]);
  });
  while (open.size > 0) await Promise.all([...open]);
  for (const arm of arms) {
    arm.agent.destroy();
    arm.traffic.headersMs = summarize(arm.headers);
    arm.traffic.firstByteMs = summarize(arm.firstBytes);
  }
  return {
    scheduled: times.length,
    elapsedMs: Math.max(lastCompletion, t0) - t0,
    startLagMs: summarize(lags),
    peakInflight,
    arms: arms.map((a) => a.traffic),
  };
}
