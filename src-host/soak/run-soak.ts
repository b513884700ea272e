// The bounded load-and-soak run: simulated backends and the open-loop load generator in a traffic process;
// in this process two gateways over the same backends, one with the endpoint-picker plugin and one plain
// round robin, plus (optionally) a direct-to-backend arm as the backends' own baseline. Arrivals alternate
// between the arms. Reports errors, added latency of the plugin path, memory over time, throughput and the
// plugin's counters, and fails on any error, inflight left at the end, or linear memory growth after warm-up.
import { readFileSync } from "node:fs";
import { startGateway, type GatewayHandle, type GatewayStats } from "../gateway/gateway.ts";
import { metricsClusterName } from "../gateway/http-call-cluster.ts";
import type { Flavor } from "../host/vm.ts";
import { readBuiltPlugin } from "../wasm/built-plugin.ts";
import { EventLoopDelayMonitor, type LoopDelay } from "./event-loop-delay.ts";
import type { LatencySummary } from "./latency-summary.ts";
import { MemorySeries, memoryVerdict, type MemorySample } from "./memory-series.ts";
import type { ArmTarget, ArmTraffic, TrafficResult } from "./open-loop-traffic.ts";
import { startTrafficProcess, type TrafficProcessHandle } from "./traffic-process-handle.ts";

export const PLUGIN_ARM = "plugin";
export const PLAIN_ARM = "plain";
export const DIRECT_ARM = "direct";

export interface SoakOptions {
  seconds: number;
  /** Arrivals per second over all arms. */
  rps: number;
  flavor?: Flavor;
  /** Plugin VMs (gateway workers). Default 2. */
  workers?: number;
  /** Simulated backends. Default 3. */
  backends?: number;
  /** Backend engine speed factor. Default 100. */
  speed?: number;
  seed?: number;
  /** Open client requests at most; arrivals above are dropped and counted. Default 256. */
  maxInflight?: number;
  timeoutMs?: number;
  /** Also send a share of the arrivals straight to the backends (the baseline). Default true. */
  direct?: boolean;
  /** Plugin configuration; default {} (the stock build gets its endpoints added). */
  pluginConfig?: Record<string, unknown>;
  /** Default build/<flavor>.wasm. */
  wasmPath?: string;
  /** Progress lines. */
  progress?: (line: string) => void;
}

export type SoakConfig = Required<Omit<SoakOptions, "progress" | "pluginConfig" | "wasmPath">>;

export interface Quantiles {
  p50: number | null;
  p99: number | null;
}

export interface SoakReport {
  ok: boolean;
  /** Why the run failed; empty when ok. */
  failures: string[];
  config: SoakConfig & { arms: string[] };
  throughput: {
    targetRps: number;
    scheduled: number;
    sent: number;
    dropped: number;
    okResponses: number;
    /** Successful responses per second of the run (schedule plus drain). */
    achievedRps: number;
    elapsedSeconds: number;
    peakInflight: number;
    startLagMs: LatencySummary;
  };
  errors: {
    /** Client-observed errors plus gateway-counted errors, internal gateway errors and plugin traps. */
    total: number;
    client: number;
    gateway: Record<string, number>;
    gatewayInternal: number;
    traps: number;
    samples: string[];
  };
  latency: {
    /** Request start to response headers, streaming requests answered 200, after warm-up, per arm. */
    headersMs: Record<string, LatencySummary>;
    firstByteMs: Record<string, LatencySummary>;
    /** Plugin path minus plain path (time to response headers). */
    pluginAddedMs: Quantiles;
    /** Plugin path over plain path. */
    pluginRatio: Quantiles;
    /** Each gateway path minus the direct path: the gateway's overhead over the backends' own time. */
    overDirectMs: Record<string, Quantiles> | null;
  };
  arms: ArmTraffic[];
  gateways: Record<string, GatewayStats>;
  plugin: {
    requests: number;
    decisions: number;
    fallbacks: Record<string, number>;
    inflightAtEnd: number;
    counters: Record<string, number>;
  };
  memory: {
    samples: MemorySample[];
    linearGrewInSecondHalf: boolean;
    linearFlatFrom: number | null;
    trafficProcessRssBytes: number;
  };
  /** CPU time (user + system) of each process over the run, and as cores busy on average. */
  cpu: {
    gatewayProcessSeconds: number;
    trafficProcessSeconds: number;
    gatewayProcessCores: number;
    trafficProcessCores: number;
    /** Event-loop delay of each process over the run. */
    gatewayLoopDelay: LoopDelay;
    trafficLoopDelay: LoopDelay;
  };
  drain: { ms: number; trafficProcessExitedCleanly: boolean };
}

const MODEL = "sim-model";
const COUNTER_PREFIX = "endpoint_picker.";
const DRAIN_LIMIT_MS = 10_000;

function diff(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a - b;
}

function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b <= 0 ? null : a / b;
}

function pluginCounters(gw: GatewayHandle): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(gw.host?.scrape() ?? {})) if (k.startsWith(COUNTER_PREFIX) && typeof v === "number") out[k.slice(COUNTER_PREFIX.length)] = v;
  return out;
}

/** Waits until each gateway has logged every request its arm sent and the plugin's inflight gauge is 0, or the limit. */
async function drain(gateways: Map<string, GatewayHandle>, traffic: TrafficResult): Promise<number> {
  const started = performance.now();
  const settled = () =>
    traffic.arms.every((a) => { const gw = gateways.get(a.name); return !gw || gw.stats().requests >= a.sent; }) &&
    [...gateways.values()].every((gw) => (pluginCounters(gw).inflight ?? 0) === 0);
  while (!settled() && performance.now() - started < DRAIN_LIMIT_MS) await new Promise((r) => setTimeout(r, 20));
  return performance.now() - started;
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const config: SoakConfig = {
    seconds: o.seconds,
    rps: o.rps,
    flavor: o.flavor ?? "higress",
    workers: o.workers ?? 2,
    backends: o.backends ?? 3,
    speed: o.speed ?? 100,
    seed: o.seed ?? 1,
    maxInflight: o.maxInflight ?? 256,
    timeoutMs: o.timeoutMs ?? 15_000,
    direct: o.direct ?? true,
  };
  const progress = o.progress ?? (() => {});
  const wasm = o.wasmPath !== undefined ? new Uint8Array(readFileSync(o.wasmPath)) : readBuiltPlugin(config.flavor);

  const internalErrors: string[] = [];
  let internalCount = 0;
  const gatewayLog = (line: string) => {
    if (!line.startsWith("gw error")) return;
    internalCount++;
    if (internalErrors.length < 5) internalErrors.push(line.slice(0, 400));
  };

  let traffic: TrafficProcessHandle | null = null;
  const gateways = new Map<string, GatewayHandle>();
  let exitedCleanly = false;
  try {
    progress(`starting ${config.backends} backends (speed ${config.speed}) in the traffic process`);
    traffic = await startTrafficProcess(config.backends, MODEL, { speed: config.speed, kvTokens: 131_072 });
    const upstreams = traffic.backends.map((b) => b.address);
    const pluginConfig =
      config.flavor === "envoy"
        ? { endpoints: upstreams.map((address) => ({ address, metricsCluster: metricsClusterName(address) })), ...o.pluginConfig }
        : { ...o.pluginConfig };
    gateways.set(
      PLUGIN_ARM,
      await startGateway({
        upstreams,
        plugin: { wasm, flavor: config.flavor, config: pluginConfig, workers: config.workers, failurePolicy: "FAIL_OPEN", allowOnHeadersStopIteration: true },
        log: gatewayLog,
      }),
    );
    gateways.set(PLAIN_ARM, await startGateway({ upstreams, log: gatewayLog }));
    const pluginGateway = gateways.get(PLUGIN_ARM)!;

    const arms: ArmTarget[] = [...gateways].map(([name, gw]) => ({ name, addresses: [`127.0.0.1:${gw.port}`] }));
    // The direct arm takes the backends in turn, request by request.
    if (config.direct) arms.push({ name: DIRECT_ARM, addresses: upstreams });
    progress(`running ${config.seconds} s at ${config.rps} req/s over arms ${arms.map((a) => a.name).join(", ")}`);
    const series = new MemorySeries(pluginGateway.host, config.seconds * 1000);
    series.start();
    const cpuBefore = process.cpuUsage();
    const loop = new EventLoopDelayMonitor().start();
    const { result, rssBytes, cpuSeconds, loopDelay } = await traffic.run({
      seconds: config.seconds,
      rps: config.rps,
      seed: config.seed,
      arms,
      maxInflight: config.maxInflight,
      timeoutMs: config.timeoutMs,
    });
    const drainMs = await drain(gateways, result);
    const cpuUsed = process.cpuUsage(cpuBefore);
    const gatewayLoopDelay = loop.stop();
    series.stop();

    const counters = pluginCounters(pluginGateway);
    const gatewayStats = Object.fromEntries([...gateways].map(([name, gw]) => [name, gw.stats()]));
    const traps = pluginGateway.host?.traps ?? 0;
    for (const gw of gateways.values()) await gw.close();
    gateways.clear();
    exitedCleanly = await traffic.close();
    traffic = null;

    const report = buildReport(config, arms.map((a) => a.name), result, {
      gatewayProcessSeconds: (cpuUsed.user + cpuUsed.system) / 1e6,
      trafficProcessSeconds: cpuSeconds,
      trafficProcessRssBytes: rssBytes,
      gatewayLoopDelay,
      trafficLoopDelay: loopDelay,
    }, {
      counters, gatewayStats, traps, internalCount, internalErrors, samples: series.samples, drainMs, exitedCleanly,
    });
    return report;
  } finally {
    for (const gw of gateways.values()) await gw.close();
    if (traffic) await traffic.close();
  }
}

interface GatewaySide {
  counters: Record<string, number>;
  gatewayStats: Record<string, GatewayStats>;
  traps: number;
  internalCount: number;
  internalErrors: string[];
  samples: MemorySample[];
  drainMs: number;
  exitedCleanly: boolean;
}

interface TrafficSide {
  gatewayProcessSeconds: number;
  trafficProcessSeconds: number;
  trafficProcessRssBytes: number;
  gatewayLoopDelay: LoopDelay;
  trafficLoopDelay: LoopDelay;
}

function buildReport(config: SoakConfig, armNames: string[], t: TrafficResult, p: TrafficSide, g: GatewaySide): SoakReport {
  const arm = (name: string) => t.arms.find((a) => a.name === name);
  const headers = Object.fromEntries(t.arms.map((a) => [a.name, a.headersMs]));
  const firstByte = Object.fromEntries(t.arms.map((a) => [a.name, a.firstByteMs]));
  const plugin = arm(PLUGIN_ARM)!.headersMs;
  const plain = arm(PLAIN_ARM)!.headersMs;
  const direct = arm(DIRECT_ARM)?.headersMs;
  const clientErrors = t.arms.reduce((n, a) => n + a.errors, 0);
  const gatewayErrors = Object.fromEntries(Object.entries(g.gatewayStats).map(([k, s]) => [k, s.errors]));
  const total = clientErrors + Object.values(gatewayErrors).reduce((a, b) => a + b, 0) + g.internalCount + g.traps;
  const okResponses = t.arms.reduce((n, a) => n + a.ok, 0);
  const elapsedSeconds = Math.max(config.seconds, t.elapsedMs / 1000);
  const fallbacks: Record<string, number> = {};
  for (const [k, v] of Object.entries(g.counters)) if (k.startsWith("fallback.")) fallbacks[k.slice("fallback.".length)] = v;
  const mem = memoryVerdict(g.samples);
  const inflightAtEnd = g.counters.inflight ?? 0;

  const failures: string[] = [];
  if (total > 0) failures.push(`${total} errors`);
  if (inflightAtEnd !== 0) failures.push(`plugin inflight ${inflightAtEnd} after the drain`);
  if (mem.linearGrewInSecondHalf) failures.push("plugin linear memory grew in the second half of the run");
  if (!g.exitedCleanly) failures.push("the traffic process did not exit by itself after closing");

  return {
    ok: failures.length === 0,
    failures,
    config: { ...config, arms: armNames },
    throughput: {
      targetRps: config.rps,
      scheduled: t.scheduled,
      sent: t.arms.reduce((n, a) => n + a.sent, 0),
      dropped: t.arms.reduce((n, a) => n + a.dropped, 0),
      okResponses,
      achievedRps: okResponses / elapsedSeconds,
      elapsedSeconds,
      peakInflight: t.peakInflight,
      startLagMs: t.startLagMs,
    },
    errors: {
      total,
      client: clientErrors,
      gateway: gatewayErrors,
      gatewayInternal: g.internalCount,
      traps: g.traps,
      samples: [...t.arms.flatMap((a) => a.errorSamples.map((s) => `${a.name}: ${s}`)), ...g.internalErrors].slice(0, 20),
    },
    latency: {
      headersMs: headers,
      firstByteMs: firstByte,
      pluginAddedMs: { p50: diff(plugin.p50, plain.p50), p99: diff(plugin.p99, plain.p99) },
      pluginRatio: { p50: ratio(plugin.p50, plain.p50), p99: ratio(plugin.p99, plain.p99) },
      overDirectMs: direct
        ? {
            [PLUGIN_ARM]: { p50: diff(plugin.p50, direct.p50), p99: diff(plugin.p99, direct.p99) },
            [PLAIN_ARM]: { p50: diff(plain.p50, direct.p50), p99: diff(plain.p99, direct.p99) },
          }
        : null,
    },
    arms: t.arms,
    gateways: g.gatewayStats,
    plugin: {
      requests: g.counters.requests ?? 0,
      decisions: g.counters.decisions ?? 0,
      fallbacks,
      inflightAtEnd,
      counters: g.counters,
    },
    memory: {
      samples: g.samples,
      linearGrewInSecondHalf: mem.linearGrewInSecondHalf,
      linearFlatFrom: mem.linearFlatFrom,
      trafficProcessRssBytes: p.trafficProcessRssBytes,
    },
    cpu: {
      gatewayProcessSeconds: p.gatewayProcessSeconds,
      trafficProcessSeconds: p.trafficProcessSeconds,
      gatewayProcessCores: p.gatewayProcessSeconds / elapsedSeconds,
      trafficProcessCores: p.trafficProcessSeconds / elapsedSeconds,
      gatewayLoopDelay: p.gatewayLoopDelay,
      trafficLoopDelay: p.trafficLoopDelay,
    },
    drain: { ms: g.drainMs, trafficProcessExitedCleanly: g.exitedCleanly },
  };
}
