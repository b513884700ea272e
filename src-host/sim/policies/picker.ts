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
import { DEFAULT_DIAGNOSTIC_WEIGHTS, IndexDiagnostics, type DecisionTruth, type DiagnosticWeights } from "../index-diagnostics.ts";
import type { SimPod } from "../sim-pod.ts";
import type { Policy, PolicyContext } from "./policy.ts";

export const PICKER_CLUSTER = "sim-pods";
export const METRICS_LIMIT_BYTES = 65_536;
const RESPONSE_HEADERS: Array<[string, string]> = [[":status", "200"], ["content-type", "text/event-stream"]];
const DEBUG_HEADER = "x-endpoint-picker-debug";

interface PickerDecisionState {
  stream: FilterStream;
  truth: DecisionTruth | null;
}

/** The configuration with the debug header on, and the scoring weights it sets, for the diagnostics. */
function diagnosticConfig(config: string): { config: string; weights: DiagnosticWeights } {
  const parsed = JSON.parse(config) as Record<string, unknown>;
  const debug = (parsed.debug ?? {}) as Record<string, unknown>;
  parsed.debug = { ...debug, header: true };
  const w = (parsed.weights ?? {}) as Partial<DiagnosticWeights>;
  return { config: JSON.stringify(parsed), weights: { ...DEFAULT_DIAGNOSTIC_WEIGHTS, ...w } };
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
  let wasmWarnings = 0;
  let pluginConfig = ctx.pluginConfig ?? "{}";
  let diagnostics: IndexDiagnostics | null = null;
  if (ctx.diagnose) {
    const d = diagnosticConfig(pluginConfig);
    pluginConfig = d.config;
    diagnostics = new IndexDiagnostics(d.weights);
  }
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
      let truth: DecisionTruth | null = null;
      if (diagnostics !== null) {
        const len = req.promptTokens.length;
        truth = { promptTokens: len, cachedTokens: new Map() };
        for (const c of candidates) truth.cachedTokens.set(c.address, c.cachedTokens(req.blockHashes, len));
      }
      const state: PickerDecisionState = { stream, truth };
      return { pod, state };
    },
    onFirstToken(decision) {
      const { stream, truth } = decision.state as PickerDecisionState;
      stream.encodeHeaders(RESPONSE_HEADERS, false);
      if (diagnostics !== null && truth !== null) {
        const header = stream.state.responseHeaders?.get(DEBUG_HEADER);
        diagnostics.record(truth, header === undefined ? null : parseDebugHeader(header));
      }
    },
    onFinished(decision, _now, ok) {
      const { stream } = decision.state as PickerDecisionState;
      if (ok) stream.finish();
      else stream.reset();
    },
    onPodsChanged: refresh,
    stats() {
      return { ...counters, wasmWarnings, traps: host.traps, ...(diagnostics?.summary() ?? {}) };
    },
    close() {
      cancel();
      host.close();
    },
  };
}
