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
//
// picker-envoy-discovery is the deployment a user chooses when pods come and go: the route's cluster is kept up to
// date by Envoy (EDS, or STRICT_DNS on a headless Service) and actively health checked (health-checked-pods.ts: a pod
// that joins becomes a host at the next check, one that leaves stays while its checks pass); the plugin learns its
// hosts from Envoy's admin /clusters?format=json (host/admin-clusters.ts, through the `envoy_admin` cluster) and polls
// each one's /metrics through one ORIGINAL_DST cluster that takes the pod from the call's x-envoy-original-dst-host
// header (host/original-dst-cluster.ts). The override and the fallback see the route cluster's hosts.
import { renderVllmMetrics } from "../../backend/metrics.ts";
import { LogLevel } from "../../host/abi.ts";
import { ClusterRegistry, type Cluster, type HttpCallOutcome, type UpstreamHost } from "../../host/cluster.ts";
import { AdminCluster } from "../../host/admin-clusters.ts";
import { OriginalDstCluster } from "../../host/original-dst-cluster.ts";
import type { FilterStream } from "../../host/filter-stream.ts";
import { ended, firstToken, routedTo, sendThroughPlugin } from "./plugin-stream.ts";
import { HealthCheckedPods } from "./health-checked-pods.ts";
import { OVERRIDE_HEADER, selectOverrideHost } from "../../host/override-host.ts";
import { StaticClusterHarness } from "../../harness/static-cluster-harness.ts";
import type { SimPod } from "../sim-pod.ts";
import type { Policy, PolicyContext } from "./policy.ts";

const enc = new TextEncoder();

/** The clusters of examples/envoy/envoy-discovery.yaml, as the simulator names them. */
export const DISCOVERY_CLUSTERS = Object.freeze({ admin: "envoy_admin", serving: "vllm", metrics: "vllm_metrics" });

export function pickerEnvoyPolicy(ctx: PolicyContext): Policy {
  return stockEnvoyPolicy(ctx, false);
}

export function pickerEnvoyDiscoveryPolicy(ctx: PolicyContext): Policy {
  return stockEnvoyPolicy(ctx, true);
}

function stockEnvoyPolicy(ctx: PolicyContext, discovery: boolean): Policy {
  if (ctx.wasmEnvoy === undefined) throw new Error("the picker-envoy policy needs the stock Envoy build (--wasm-envoy)");
  const pods = [...ctx.allPods()];
  const clusters = new ClusterRegistry();
  const metricsPage = (pod: SimPod, respond: (o: HttpCallOutcome) => void) => {
    if (!pod.up) return respond(null);
    const now = ctx.clock.nowMs();
    const text = renderVllmMetrics(pod.engine.metrics(), {
      modelName: ctx.workload.model, nowSeconds: now / 1000, createdSeconds: pod.createdMs / 1000, lora: pod.metricsLora,
    });
    respond({ headers: [[":status", "200"], ["content-type", "text/plain; version=0.0.4"]], body: enc.encode(text), trailers: [] });
  };
  const metricsCluster = (i: number) => `metrics-${i}`;
  /** Every pod ever seen, by address (a removed pod stays, down). */
  const byAddress = new Map<string, SimPod>(pods.map((p) => [p.address, p]));
  const knownPods = () => {
    for (const p of ctx.allPods()) if (!byAddress.has(p.address)) byAddress.set(p.address, p);
  };
  // Made after the plugin's host (below), whose timers come first at equal times.
  let fallbackHosts: HealthCheckedPods;
  const servingHosts = (): UpstreamHost[] =>
    fallbackHosts.hostHealth().map(({ pod, healthy }) => ({ address: pod.address, healthStatus: healthy ? "Healthy" : "Unhealthy", metrics: "" }));
  if (discovery) {
    clusters.add({ name: DISCOVERY_CLUSTERS.serving, hosts: servingHosts });
    clusters.add(
      new OriginalDstCluster(DISCOVERY_CLUSTERS.metrics, (address, _req, respond) => {
        knownPods();
        const pod = byAddress.get(address);
        if (pod === undefined) return respond(null); // nothing listens there: the connection is refused
        metricsPage(pod, respond);
      }),
    );
    clusters.add(new AdminCluster(DISCOVERY_CLUSTERS.admin, () => clusters.all()));
  } else {
    pods.forEach((pod, i) => {
      const cluster: Cluster = {
        name: metricsCluster(i),
        hosts: () => [],
        dispatch: (_req, respond: (o: HttpCallOutcome) => void) => metricsPage(pod, respond),
      };
      clusters.add(cluster);
    });
  }
  const user = ctx.pluginConfig ? (JSON.parse(ctx.pluginConfig) as Record<string, unknown>) : {};
  const pollIntervalMs = Math.max(50, Math.round(ctx.healthCheckIntervalMs));
  const config = discovery
    ? {
        ...user,
        discovery: {
          cluster: DISCOVERY_CLUSTERS.admin, servingCluster: DISCOVERY_CLUSTERS.serving, metricsCluster: DISCOVERY_CLUSTERS.metrics,
          intervalMs: pollIntervalMs, ...(user.discovery as object | undefined),
        },
        metrics: { pollIntervalMs, ...(user.metrics as object | undefined) },
      }
    : {
        ...user,
        endpoints: pods.map((pod, i) => ({ address: pod.address, metricsCluster: metricsCluster(i) })),
        metrics: { pollIntervalMs, ...(user.metrics as object | undefined) },
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
  const counters = { overrides: 0, fallbacks: 0, overridesToDownPods: 0, localReplies: 0 };
  fallbackHosts = new HealthCheckedPods(() => (discovery ? ctx.allPods() : pods), ctx.clock, ctx.healthCheckIntervalMs);
  let rr = 0;
  return {
    name: discovery ? "picker-envoy-discovery" : "picker-envoy",
    pick(req) {
      const stream = sendThroughPlugin(host, undefined, req.bodyBytes);
      if (stream.localReply !== null) {
        counters.localReplies++;
        stream.finish();
        return { pod: null };
      }
      // The route cluster's hosts: the static list, or (discovering) those Envoy holds now.
      const hosts = discovery ? servingHosts() : pods.map((p) => ({ address: p.address, healthStatus: p.up ? "Healthy" : "Unhealthy", metrics: "" }));
      const header = stream.requestHeaders.find(([k]) => k === OVERRIDE_HEADER)?.[1];
      const chosen = selectOverrideHost(header, hosts);
      let pod: SimPod | undefined;
      if (chosen) {
        knownPods();
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
