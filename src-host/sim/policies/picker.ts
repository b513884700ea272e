// Our plugin, run the way the gateway runs it: the Higress build under the proxy-wasm host on the
// simulator's virtual clock, `gatewayWorkers` worker VMs (default 2) taking streams in turn, in each of
// `gatewayReplicas` gateway replicas (requests spread over them in turn, so a conversation's turns reach
// different replicas). With sharing (picker-redis) the replicas share prefix hints through a simulated Redis
// (sim-redis.ts) reached by the plugin's own proxy_redis_call; a request that waits for Redis reaches its pod when
// the reply arrives. The route's cluster lists every pod as 10.0.0.<n>:8000 with its health and /metrics text
// (rendered from the pod's state, refreshed every health check interval, cut at 64 KiB). A pod that goes down or
// leaves is seen there at the next health check, not at once: Envoy marks a host unhealthy when its active health
// check fails (health_checker_impl.cc HealthCheckerImplBase::ActiveHealthCheckSession::handleFailure) and a pod that
// dies leaves the EDS host set only once Kubernetes has noticed. Until then the host is listed as it was, and a request
// sent there fails (the refused connection's 503: router.cc Filter::onUpstreamReset, run through the filter:
// plugin-stream.ts ended). Per request: headers, the whole body, then the override host decides; response headers at
// the first token, stream end (on_log) at completion. Without an override (or one naming no usable host) the
// gateway's fallback balancer decides: round-robin over the hosts the last health check found healthy (the cluster
// the override sees), counted. Retries are not simulated: a Higress route built by Istio's pilot without its own
// retries gets Istio's default policy (2 retries on connect-failure, on other hosts), which would serve a request
// whose pod is gone elsewhere instead of failing it.
import { LogLevel } from "../../host/abi.ts";
import { processClock } from "../../host/clock.ts";
import { renderVllmMetrics } from "../../backend/metrics.ts";
import { StaticCluster, type UpstreamHost } from "../../host/cluster.ts";
import type { FilterStream } from "../../host/filter-stream.ts";
import { ended, firstToken, routedTo, sendThroughPlugin } from "./plugin-stream.ts";
import { selectHigressOverrideHost } from "../../host/override-host.ts";
import { StaticClusterHarness } from "../../harness/static-cluster-harness.ts";
import { parseDebugHeader } from "../../fuzz/debug-header.ts";
import type { DecisionExplanation, PodBelief } from "../index-diagnostics.ts";
import type { SimPod } from "../sim-pod.ts";
import type { Decision, Policy, PolicyContext } from "./policy.ts";
import type { SimRequest } from "../sim-request.ts";
import { SimRedis } from "../sim-redis.ts";

export const PICKER_CLUSTER = "sim-pods";
export const METRICS_LIMIT_BYTES = 65_536;
const DEBUG_HEADER = "x-endpoint-picker-debug";

interface PickerDecisionState {
  stream: FilterStream;
}

const DEFAULT_WEIGHTS = { queue: 2, kvCache: 2, prefixCache: 3, inflight: 1 };

/**
 * The plugin configuration with the debug header on (the simulator reads each decision's per-endpoint scores
 * from it), and the load and prefix weights it scores with.
 */
export function withDebugHeader(pluginConfig: string | undefined): { config: string; weights: typeof DEFAULT_WEIGHTS } {
  const config = JSON.parse(pluginConfig ?? "{}") as Record<string, any>;
  config.debug = { ...(config.debug ?? {}), header: true };
  const weights = { ...DEFAULT_WEIGHTS, ...(config.weights ?? {}) };
  return { config: JSON.stringify(config), weights };
}

/** The decision's debug header as beliefs per pod: predicted share of the prompt and weighted signal scores. */
function explainFromHeader(header: string | undefined, weights: typeof DEFAULT_WEIGHTS): DecisionExplanation | null {
  const parsed = header === undefined ? null : parseDebugHeader(header);
  if (parsed === null) return null;
  const pods = new Map<string, PodBelief>();
  for (const [address, s] of parsed.scores) {
    if (s === "excluded") continue;
    pods.set(address, {
      predictedFraction: parsed.chain > 0 && s.m >= 0 ? s.m / parsed.chain : 0,
      contributions: { queue: weights.queue * s.q, kvCache: weights.kvCache * s.kv, prefix: weights.prefixCache * s.p, inflight: weights.inflight * s.i },
      guarded: s.guarded,
    });
  }
  return { chosen: parsed.endpoint, pods };
}

export const SIM_REDIS_CLUSTER = "outbound|6379||redis.sim.svc.cluster.local";

export function pickerPolicy(ctx: PolicyContext): Policy {
  return replicatedPicker(ctx, "picker", false);
}

export function pickerRedisPolicy(ctx: PolicyContext): Policy {
  return replicatedPicker(ctx, "picker-redis", true);
}

function replicatedPicker(ctx: PolicyContext, name: string, sharing: boolean): Policy {
  if (ctx.wasm === undefined) throw new Error("the picker policy needs the plugin module (--wasm)");
  const cluster = new StaticCluster(PICKER_CLUSTER);
  const byAddress = new Map<string, SimPod>();
  const refresh = () => {
    const now = ctx.clock.nowMs();
    const hosts: UpstreamHost[] = [];
    byAddress.clear();
    for (const pod of ctx.allPods()) {
      byAddress.set(pod.address, pod);
      const metrics = pod.up
        ? renderVllmMetrics(pod.engine.metrics(), {
            modelName: ctx.workload.model, nowSeconds: now / 1000, createdSeconds: pod.createdMs / 1000, lora: pod.metricsLora,
          }).slice(0, METRICS_LIMIT_BYTES)
        : "";
      hosts.push({ address: pod.address, healthStatus: pod.up ? "Healthy" : "Unhealthy", metrics });
    }
    cluster.hostList = hosts;
  };
  refresh();
  const cancel = ctx.clock.every(ctx.healthCheckIntervalMs, refresh);
  let wasmWarnings = 0;
  const redis = sharing ? new SimRedis(ctx.clock, ctx.redisRttMs ?? 0.5) : null;
  // With diagnostics on, the debug header tells the simulator what the plugin believed about each pod.
  let { config: pluginConfig, weights } = ctx.diagnose ? withDebugHeader(ctx.pluginConfig) : { config: ctx.pluginConfig ?? "{}", weights: DEFAULT_WEIGHTS };
  if (redis !== null) {
    const config = JSON.parse(pluginConfig);
    config.redis = { cluster: SIM_REDIS_CLUSTER, ...(config.redis ?? {}) };
    pluginConfig = JSON.stringify(config);
  }
  // Installed before the replicas start: their configure already connects (proxy_redis_init).
  if (redis !== null) {
    const connect = redis.connect.bind(redis);
    redis.connect = (options) => {
      const c = connect(options);
      return {
        send: (query, onReply) => c.send(query, (reply) => {
          onReply(reply);
          ctx.clock.after(0, releaseWaiting);
        }),
        close: c.close,
      };
    };
  }

  const replicas = Math.max(1, ctx.gatewayReplicas ?? 1);
  const hosts = Array.from({ length: replicas }, (_, r) =>
    new StaticClusterHarness({
      wasm: ctx.wasm!,
      flavor: "higress",
      pluginConfig,
      // Each replica is its own Envoy process: one virtual time, read a few nanoseconds apart.
      clock: processClock(ctx.clock, BigInt(r)),
      cluster,
      workers: ctx.gatewayWorkers ?? 2,
      redis: redis !== null ? new Map([[SIM_REDIS_CLUSTER, redis]]) : undefined,
      log: () => {
        wasmWarnings++;
      },
      logLevel: LogLevel.Warn,
    }).host,
  );
  const counters = { overrides: 0, fallbacks: 0, invalidOverrides: 0, overridesToDownPods: 0, localReplies: 0, wasmWarnings: 0, traps: 0, redisWaits: 0 };
  let rr = 0;
  let nextReplica = 0;
  const waiting = new Map<FilterStream, SimRequest>();

  const decided = (stream: FilterStream): Decision => {
    const override = stream.overrideHost;
    const chosen = selectHigressOverrideHost(override, cluster.hostList);
    let pod = chosen ? byAddress.get(chosen.address) : undefined;
    if (pod !== undefined) {
      // Listed as it was at the last health check, but down or gone since: the connection is refused (the simulation
      // fails the request).
      if (pod.up) counters.overrides++;
      else counters.overridesToDownPods++;
    } else {
      if (override !== null) counters.invalidOverrides++;
      counters.fallbacks++;
      const healthy = cluster.hostList.filter((h) => h.healthStatus === "Healthy");
      pod = healthy.length > 0 ? byAddress.get(healthy[rr++ % healthy.length].address) : undefined;
    }
    // No host: Envoy's 503 "no healthy upstream" (UH), which the simulation counts as a failure at the gateway.
    if (pod === undefined) return { pod: null };
    routedTo(stream, pod.address);
    const state: PickerDecisionState = { stream };
    return { pod, state };
  };
  // After each Redis reply reaches the plugin (the host delivers it on a zero-delay timer queued before this
  // one), the requests it released go on.
  const releaseWaiting = () => {
    for (const [stream, req] of waiting) {
      if (stream.requestState === "paused") continue;
      waiting.delete(stream);
      ctx.resume(req, decided(stream));
    }
  };
  return {
    name,
    pick(req) {
      const host = hosts[nextReplica++ % replicas];
      const stream = sendThroughPlugin(host, PICKER_CLUSTER, req.bodyBytes);
      if (stream.localReply !== null) {
        counters.localReplies++;
        stream.finish();
        return { pod: null };
      }
      if (stream.requestState === "paused") {
        counters.redisWaits++;
        waiting.set(stream, req);
        return { pod: null, deferred: true };
      }
      return decided(stream);
    },
    onFirstToken: (decision) => firstToken((decision.state as PickerDecisionState).stream),
    onFinished: (decision, _now, end) => ended((decision.state as PickerDecisionState).stream, end),
    explain(decision) {
      if (!ctx.diagnose) return null;
      return explainFromHeader((decision.state as PickerDecisionState).stream.state.responseHeaders?.get(DEBUG_HEADER), weights);
    },
    stats() {
      const out: Record<string, number> = {
        ...counters, wasmWarnings, traps: hosts.reduce((n, h) => n + h.traps, 0), replicas,
      };
      if (redis !== null) {
        out.redisCalls = redis.counters.calls;
        out.redisTimeouts = redis.counters.timeouts;
        out.redisMaxKeys = redis.counters.maxKeys;
      }
      return out;
    },
    close() {
      cancel();
      for (const h of hosts) h.close();
    },
  };
}
