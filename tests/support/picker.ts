// Runs the built picker (build/higress.wasm or build/envoy.wasm) under the host with a cluster whose hosts
// carry real vLLM /metrics text, and helpers to send requests through it.
import { VirtualClock } from "../../src-host/host/clock.ts";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { ClusterRegistry, StaticCluster, type UpstreamHost } from "../../src-host/host/cluster.ts";
import { PluginHost, type PluginHostOptions } from "../../src-host/host/plugin-host.ts";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";
import type { HeaderList } from "../../src-host/host/header-map.ts";
import { Histogram, TTFT_BUCKETS_SECONDS } from "../../src-host/backend/histogram.ts";
import { renderVllmMetrics } from "../../src-host/backend/metrics.ts";

export interface PodState {
  waiting?: number;
  running?: number;
  kv?: number;
  numGpuBlocks?: number;
  blockSize?: number;
  runningLoras?: string[];
  waitingLoras?: string[];
}

/** /metrics text exactly as a vLLM v1 server renders it. */
export function vllmMetrics(s: PodState, model = "meta-llama/Llama-3.1-8B-Instruct"): string {
  return renderVllmMetrics(
    {
      numRequestsRunning: s.running ?? 0,
      numRequestsWaiting: s.waiting ?? 0,
      kvCacheUsage: s.kv ?? 0,
      prefixCacheQueries: 0,
      prefixCacheHits: 0,
      blockSize: s.blockSize ?? 16,
      numGpuBlocks: s.numGpuBlocks ?? 8192,
      promptTokensTotal: 0,
      generationTokensTotal: 0,
      preemptionsTotal: 0,
      requestSuccess: { length: 0, stop: 0 } as any,
      timeToFirstTokenSeconds: new Histogram(TTFT_BUCKETS_SECONDS).snapshot(),
      runningLoraAdapters: s.runningLoras ?? [],
      waitingLoraAdapters: s.waitingLoras ?? [],
    },
    {
      modelName: model,
      nowSeconds: 1_700_000_000,
      createdSeconds: 1_699_999_000,
      lora: s.runningLoras || s.waitingLoras ? { maxLoras: 4 } : undefined,
    },
  );
}

export interface PickerHarness {
  host: PluginHost;
  clock: VirtualClock;
  cluster: StaticCluster;
  logs: string[];
  setPods(pods: Array<{ address: string; health?: string } & PodState>): void;
  /** Sends a chat request; returns the stream after the body (decision made). */
  send(body: object | string, headers?: HeaderList, opts?: { worker?: number }): FilterStream;
  /** Ends a stream with a response status (on_log, on_done). */
  complete(stream: FilterStream, status?: number): void;
  chosen(stream: FilterStream): string | null;
  stats(): Record<string, number | number[]>;
  counter(name: string): number;
}

export function pickerHost(options: Partial<PluginHostOptions> & { config?: object } = {}): PickerHarness {
  const flavor = options.flavor ?? "higress";
  const clock = new VirtualClock();
  const cluster = new StaticCluster("backends");
  const clusters = options.clusters ?? new ClusterRegistry();
  clusters.add(cluster);
  const logs: string[] = [];
  const host = PluginHost.create({
    wasm: readBuiltPlugin(flavor),
    flavor,
    rootId: "endpoint_picker",
    vmId: "endpoint_picker",
    pluginConfig: JSON.stringify(options.config ?? {}),
    allowOnHeadersStopIteration: true,
    bufferLimitBytes: 8 * 1024 * 1024,
    clock,
    clusters,
    log: (_l, m) => logs.push(m),
    ...options,
  });
  const h: PickerHarness = {
    host,
    clock,
    cluster,
    logs,
    setPods(pods) {
      cluster.hostList = pods.map((p): UpstreamHost => ({
        address: p.address,
        healthStatus: p.health ?? "Healthy",
        metrics: vllmMetrics(p),
      }));
      // Let the per-worker snapshot TTL pass so the next request sees the change.
      clock.advanceTo(clock.nowMs() + 1000);
    },
    send(body, headers = [], opts = {}) {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      const bytes = new TextEncoder().encode(text);
      const s = host.newStream({ clusterName: "backends" }, opts.worker);
      const defaults: HeaderList = [
        [":method", "POST"],
        [":path", "/v1/chat/completions"],
        [":authority", "gateway"],
        [":scheme", "http"],
        ["content-type", "application/json"],
        ["content-length", String(bytes.length)],
      ];
      const overridden = new Set(headers.map(([k]) => k.toLowerCase()));
      s.decodeHeaders([...defaults.filter(([k]) => !overridden.has(k)), ...headers], false);
      s.decodeData(bytes, true);
      return s;
    },
    complete(stream, status = 200) {
      stream.encodeHeaders([[":status", String(status)]], false);
      stream.encodeData(new TextEncoder().encode("{}"), true);
      stream.finish();
    },
    chosen(stream) {
      if (flavor === "higress") return stream.overrideHost;
      return stream.requestHeaders.find(([k]) => k === "x-gateway-destination-endpoint")?.[1] ?? null;
    },
    stats: () => host.stats(),
    counter(name) {
      const v = host.stats()[`endpoint_picker.${name}`];
      return typeof v === "number" ? v : 0;
    },
  };
  return h;
}

/** A chat body whose system prompt is long enough to span many chunks. */
export function chat(system: string, turns: Array<[string, string]>, question: string, model = "meta-llama/Llama-3.1-8B-Instruct") {
  const messages: Array<{ role: string; content: string }> = [{ role: "system", content: system }];
  for (const [u, a] of turns) messages.push({ role: "user", content: u }, { role: "assistant", content: a });
  messages.push({ role: "user", content: question });
  return { model, messages, stream: true };
}

/** Deterministic filler text of about n characters. */
export function text(seed: number, n: number): string {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];
  let x = seed >>> 0 || 1;
  let out = "";
  while (out.length < n) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out += words[x % words.length] + " ";
  }
  return out.slice(0, n);
}
