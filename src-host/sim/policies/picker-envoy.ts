// Our plugin's stock Envoy build, run as Envoy runs it, on the simulator's virtual clock: two worker VMs; the
// pods present at the start are the configured `endpoints`, each polled for /metrics through proxy_http_call on
// its own metrics cluster (a pod that is down answers as Envoy's router does for a refused connection, 503), at
// the health-check interval; the choice arrives in x-gateway-destination-endpoint and Envoy's override_host
// policy sends the request there whatever the pod's health (src-host/host/override-host.ts selectOverrideHost),
// so an override to a pod that is down fails the request. The route's cluster is static like the configuration
// (examples/envoy/envoy.yaml load_assignment): a removed pod stays one of its hosts, down, so an override naming it
// fails too (Envoy answers 503 for the refused connection: router.cc Filter::onUpstreamReset), where it used to be
// rerouted round robin as though Envoy no longer knew the address. The failure reaches the plugin as Envoy's 503 with
// its response flag (plugin-stream.ts ended). No usable override: the fallback policy's round robin over the static
// cluster's hosts its active health checker holds healthy (health-checked-pods.ts; a pod that joins later is not one
// of them), counted. `--config` reaches the plugin as for the picker, its endpoints and metrics clusters added.
import { renderVllmMetrics } from "../../backend/metrics.ts";
import { LogLevel } from "../../host/abi.ts";
import { ClusterRegistry, type Cluster, type HttpCallOutcome } from "../../host/cluster.ts";
import type { FilterStream } from "../../host/filter-stream.ts";
import { ended, firstToken, routedTo, sendThroughPlugin } from "./plugin-stream.ts";
import { HealthCheckedPods } from "./health-checked-pods.ts";
import { OVERRIDE_HEADER, selectOverrideHost } from "../../host/override-host.ts";
import { StaticClusterHarness } from "../../harness/static-cluster-harness.ts";
import type { SimPod } from "../sim-pod.ts";
import type { Policy, PolicyContext } from "./policy.ts";

const enc = new TextEncoder();

export function pickerEnvoyPolicy(ctx: PolicyContext): Policy {
  if (ctx.wasmEnvoy === undefined) throw new Error("the picker-envoy policy needs the stock Envoy build (--wasm-envoy)");
  const pods = [...ctx.allPods()];
  const clusters = new ClusterRegistry();
  const metricsCluster = (i: number) => `metrics-${i}`;
  pods.forEach((pod, i) => {
    const cluster: Cluster = {
      name: metricsCluster(i),
      hosts: () => [],
      dispatch(_req, respond: (o: HttpCallOutcome) => void) {
        if (!pod.up) return respond(null);
        const now = ctx.clock.nowMs();
        const text = renderVllmMetrics(pod.engine.metrics(), {
          modelName: ctx.workload.model, nowSeconds: now / 1000, createdSeconds: pod.createdMs / 1000, lora: pod.metricsLora,
        });
        respond({ headers: [[":status", "200"], ["content-type", "text/plain; version=0.0.4"]], body: enc.encode(text), trailers: [] });
      },
    };
    clusters.add(cluster);
  });
  const user = ctx.pluginConfig ? (JSON.parse(ctx.pluginConfig) as Record<string, unknown>) : {};
  const config = {
    ...user,
    endpoints: pods.map((pod, i) => ({ address: pod.address, metricsCluster: metricsCluster(i) })),
    metrics: { pollIntervalMs: Math.max(50, Math.round(ctx.healthCheckIntervalMs)), ...(user.metrics as object | undefined) },
  };
  let wasmWarnings = 0;
  // No route cluster is used: the stock build routes among its configured endpoints.
  const host = new StaticClusterHarness({
    wasm: ctx.wasmEnvoy,
    flavor: "envoy",
    pluginConfig: JSON.stringify(config),
    clock: ctx.clock,
    clusters,
    workers: ctx.gatewayWorkers ?? 2,
    log: () => {
      wasmWarnings++;
    },
    logLevel: LogLevel.Warn,
  }).host;
  const byAddress = new Map<string, SimPod>(pods.map((p) => [p.address, p]));
  const counters = { overrides: 0, fallbacks: 0, overridesToDownPods: 0, localReplies: 0 };
  const fallbackHosts = new HealthCheckedPods(() => pods, ctx.clock, ctx.healthCheckIntervalMs);
  let rr = 0;
  return {
    name: "picker-envoy",
    pick(req) {
      const stream = sendThroughPlugin(host, undefined, req.bodyBytes);
      if (stream.localReply !== null) {
        counters.localReplies++;
        stream.finish();
        return { pod: null };
      }
      const hosts = pods.map((p) => ({ address: p.address, healthStatus: p.up ? "Healthy" : "Unhealthy", metrics: "" }));
      const header = stream.requestHeaders.find(([k]) => k === OVERRIDE_HEADER)?.[1];
      const chosen = selectOverrideHost(header, hosts);
      let pod: SimPod | undefined;
      if (chosen) {
        pod = byAddress.get(chosen.address)!;
        // override_host does not check health: a pod that is down or gone (a removed pod is marked down by the
        // simulator and never comes back) gets the request, which fails.
        if (pod.up) counters.overrides++;
        else counters.overridesToDownPods++;
      } else {
        counters.fallbacks++;
        const healthy = fallbackHosts.pods;
        if (healthy.length === 0) return { pod: null }; // 503 no healthy upstream
        pod = healthy[rr++ % healthy.length];
      }
      routedTo(stream, pod.address);
      return { pod, state: stream };
    },
    onFirstToken: (decision) => firstToken(decision.state as FilterStream),
    onFinished: (decision, _now, end) => ended(decision.state as FilterStream, end),
    stats() {
      return { ...counters, wasmWarnings, traps: host.traps };
    },
    close() {
      fallbackHosts.close();
      host.close();
    },
  };
}
