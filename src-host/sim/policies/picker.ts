// Our plugin, run the way the gateway runs it: the Higress build under the proxy-wasm host on the
// simulator's virtual clock, two worker VMs taking streams in turn. The route's cluster lists every pod as
// 10.0.0.<n>:8000 with its health and /metrics text (rendered from the pod's state, refreshed every health
// check interval, cut at 64 KiB). Per request: headers, the whole body, then the override host decides;
// response headers at the first token, stream end (on_log) at completion. Without an override (or one
// naming no usable host) the gateway's fallback balancer decides: round-robin, counted.
import { LogLevel } from "../../host/abi.ts";
import { renderVllmMetrics } from "../../backend/metrics.ts";
import { StaticCluster, ClusterRegistry, type UpstreamHost } from "../../host/cluster.ts";
import type { FilterStream } from "../../host/filter-stream.ts";
import { selectOverrideHost } from "../../host/override-host.ts";
import { PluginHost } from "../../host/plugin-host.ts";
import { parseDebugHeader } from "../../fuzz/debug-header.ts";
import type { DecisionExplanation, PodBelief } from "../index-diagnostics.ts";
import type { SimPod } from "../sim-pod.ts";
import type { Policy, PolicyContext } from "./policy.ts";

export const PICKER_CLUSTER = "sim-pods";
export const METRICS_LIMIT_BYTES = 65_536;
const RESPONSE_HEADERS: Array<[string, string]> = [[":status", "200"], ["content-type", "text/event-stream"]];
const DEBUG_HEADER = "x-endpoint-picker-debug";
// A streamed answer reaches the gateway as the first token's chunk, then (much later) the end of the stream.
const FIRST_CHUNK = new TextEncoder().encode('data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n');
const LAST_CHUNK = new TextEncoder().encode("data: [DONE]\n\n");
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

export function pickerPolicy(ctx: PolicyContext): Policy {
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
            modelName: ctx.workload.model, nowSeconds: now / 1000, createdSeconds: pod.createdMs / 1000,
          }).slice(0, METRICS_LIMIT_BYTES)
        : "";
      hosts.push({ address: pod.address, healthStatus: pod.up ? "Healthy" : "Unhealthy", metrics });
    }
    cluster.hostList = hosts;
  };
  refresh();
  const cancel = ctx.clock.every(ctx.healthCheckIntervalMs, refresh);
  // With diagnostics on, the debug header tells the simulator what the plugin believed about each pod.
  const { config: pluginConfig, weights } = ctx.diagnose ? withDebugHeader(ctx.pluginConfig) : { config: ctx.pluginConfig ?? "{}", weights: DEFAULT_WEIGHTS };
  let wasmWarnings = 0;
  const host = PluginHost.create({
    wasm: ctx.wasm,
    flavor: "higress",
    pluginConfig,
    clock: ctx.clock,
    clusters: new ClusterRegistry().add(cluster),
    workers: 2,
    log: () => {
      wasmWarnings++;
    },
    logLevel: LogLevel.Warn,
  });
  const counters = { overrides: 0, fallbacks: 0, invalidOverrides: 0, localReplies: 0, wasmWarnings: 0, traps: 0 };
  let rr = 0;
  return {
    name: "picker",
    pick(req, candidates) {
      const body = req.bodyBytes;
      const stream = host.newStream({ clusterName: PICKER_CLUSTER });
      stream.decodeHeaders(
        [
          [":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "sim-gateway"], [":scheme", "http"],
          ["content-type", "application/json"], ["content-length", String(body.length)],
        ],
        false,
      );
      if (stream.requestState !== "local-reply") stream.decodeData(body, true);
      if (stream.localReply !== null) {
        counters.localReplies++;
        stream.finish();
        return { pod: null };
      }
      const override = stream.overrideHost;
      const chosen = selectOverrideHost(override, cluster.hostList);
      let pod = chosen ? byAddress.get(chosen.address) : undefined;
      if (pod !== undefined && !pod.up) pod = undefined;
      if (pod !== undefined) {
        counters.overrides++;
      } else {
        if (override !== null) counters.invalidOverrides++;
        counters.fallbacks++;
        pod = candidates[rr++ % candidates.length];
      }
      return { pod, state: stream };
    },
    onFirstToken(decision) {
      const stream = decision.state as FilterStream;
      stream.encodeHeaders(RESPONSE_HEADERS, false);
      stream.encodeData(FIRST_CHUNK, false);
    },
    onFinished(decision, _now, ok) {
      const stream = decision.state as FilterStream;
      if (ok) {
        stream.encodeData(LAST_CHUNK, true);
        stream.finish();
      } else {
        stream.reset();
      }
    },
    explain(decision) {
      if (!ctx.diagnose) return null;
      return explainFromHeader((decision.state as FilterStream).state.responseHeaders?.get(DEBUG_HEADER), weights);
    },
    onPodsChanged: refresh,
    stats() {
      return { ...counters, wasmWarnings, traps: host.traps };
    },
    close() {
      cancel();
      host.close();
    },
  };
}
