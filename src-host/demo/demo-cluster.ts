// N fresh simulated vLLM backends behind the local gateway, with the picker plugin or without one (plain
// round robin), and the backends' own prefix-cache counters read from their /metrics pages.
import { startBackend, type BackendHandle } from "../backend/server.ts";
import type { EngineConfigInput } from "../backend/engine.ts";
import { startGateway, type GatewayHandle } from "../gateway/gateway.ts";
import { metricsClusterName } from "../gateway/http-call-cluster.ts";
import type { Flavor } from "../host/vm.ts";
import { sumSeries } from "./prometheus-sum.ts";

export interface DemoPlugin {
  wasm: Uint8Array;
  flavor: Flavor;
  workers: number;
  /** Plugin configuration (docs/config.md); default {}. The stock build gets its `endpoints` added. */
  config?: Record<string, unknown>;
}

export interface DemoClusterOptions {
  backends: number;
  engine: EngineConfigInput;
  modelName: string;
  /** null: the gateway without a plugin. */
  plugin: DemoPlugin | null;
  healthIntervalMs: number;
  log?: (line: string) => void;
}

export interface PrefixCacheCounters {
  queries: number;
  hits: number;
}

export interface DemoCluster {
  readonly gateway: GatewayHandle;
  readonly backends: readonly BackendHandle[];
  /** Sums of vllm:prefix_cache_queries_total / _hits_total over every backend's GET /metrics. */
  prefixCacheCounters(): Promise<PrefixCacheCounters>;
  close(): Promise<void>;
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`GET ${url}/metrics answered ${res.status}`);
  return res.text();
}

export async function startDemoCluster(opts: DemoClusterOptions): Promise<DemoCluster> {
  const backends: BackendHandle[] = [];
  let gateway: GatewayHandle | null = null;
  try {
    for (let i = 0; i < opts.backends; i++) {
      backends.push(await startBackend({ id: `backend-${i + 1}`, modelName: opts.modelName, engine: opts.engine }));
    }
    const upstreams = backends.map((b) => `127.0.0.1:${b.port}`);
    const p = opts.plugin;
    // The stock build needs its endpoints and their metrics clusters in the config; Higress reads the cluster.
    // Both builds see load at the same pace: the stock build polls as often as Higress's health check runs.
    const config =
      p?.flavor === "envoy"
        ? {
            endpoints: upstreams.map((address) => ({ address, metricsCluster: metricsClusterName(address) })),
            metrics: { pollIntervalMs: opts.healthIntervalMs },
            ...p.config,
          }
        : { ...p?.config };
    gateway = await startGateway({
      upstreams,
      plugin: p ? { wasm: p.wasm, flavor: p.flavor, config, workers: p.workers, failurePolicy: "FAIL_OPEN", allowOnHeadersStopIteration: true } : undefined,
      healthCheck: { intervalMs: opts.healthIntervalMs, timeoutMs: 1000 },
      log: opts.log,
    });
  } catch (e) {
    await gateway?.close();
    await Promise.all(backends.map((b) => b.close()));
    throw e;
  }
  const gw = gateway;
  return {
    gateway: gw,
    backends,
    async prefixCacheCounters() {
      const pages = await Promise.all(backends.map((b) => scrape(b.url)));
      let queries = 0;
      let hits = 0;
      for (const text of pages) {
        queries += sumSeries(text, "vllm:prefix_cache_queries_total");
        hits += sumSeries(text, "vllm:prefix_cache_hits_total");
      }
      return { queries, hits };
    },
    async close() {
      await gw.close();
      await Promise.all(backends.map((b) => b.close()));
    },
  };
}
