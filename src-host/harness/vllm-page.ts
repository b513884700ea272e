// The /metrics page of an endpoint in a static cluster: exactly what a vLLM v1 server renders, for a chosen load.
import { Histogram, TTFT_BUCKETS_SECONDS } from "../backend/histogram.ts";
import type { EngineMetrics } from "../backend/engine.ts";
import { renderVllmMetrics } from "../backend/metrics.ts";

export const DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

export interface EndpointLoad {
  waiting?: number;
  running?: number;
  /** KV-cache usage in [0, 1]. */
  kv?: number;
  numGpuBlocks?: number;
  blockSize?: number;
  runningLoras?: string[];
  waitingLoras?: string[];
}

export interface VllmPageOptions {
  model?: string;
  /** The server's start time (process_start_time_seconds); the page is rendered at 1_700_000_000. */
  createdSeconds?: number;
  /** Any other engine counters (prefix-cache queries, tokens, TTFT histogram, ...); zero unless given. */
  metrics?: Partial<EngineMetrics>;
}

export function vllmPage(load: EndpointLoad, options: VllmPageOptions = {}): string {
  const loras = load.runningLoras !== undefined || load.waitingLoras !== undefined;
  return renderVllmMetrics(
    {
      numRequestsRunning: load.running ?? 0,
      numRequestsWaiting: load.waiting ?? 0,
      kvCacheUsage: load.kv ?? 0,
      prefixCacheQueries: 0,
      prefixCacheHits: 0,
      blockSize: load.blockSize ?? 16,
      numGpuBlocks: load.numGpuBlocks ?? 8192,
      promptTokensTotal: 0,
      generationTokensTotal: 0,
      preemptionsTotal: 0,
      requestSuccess: { stop: 0, length: 0, abort: 0 },
      timeToFirstTokenSeconds: new Histogram(TTFT_BUCKETS_SECONDS).snapshot(),
      runningLoraAdapters: load.runningLoras ?? [],
      waitingLoraAdapters: load.waitingLoras ?? [],
      ...options.metrics,
    },
    {
      modelName: options.model ?? DEFAULT_MODEL,
      nowSeconds: 1_700_000_000,
      createdSeconds: options.createdSeconds ?? 1_699_999_000,
      lora: loras ? { maxLoras: 4 } : undefined,
    },
  );
}
