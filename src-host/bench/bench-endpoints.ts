// The endpoints behind the benches' gateway: healthy vLLM servers with /metrics text exactly as vLLM v1
// renders it, under a realistic spread of load (queues, KV-cache use, running requests, TTFT history).
import { Histogram, TTFT_BUCKETS_SECONDS } from "../backend/histogram.ts";
import { vllmPage } from "../harness/vllm-page.ts";
import type { UpstreamHost } from "../host/cluster.ts";
import { BENCH_MODEL } from "./chat-body.ts";

export const BENCH_CLUSTER = "backends";

export function benchEndpoints(count = 8): UpstreamHost[] {
  const hosts: UpstreamHost[] = [];
  for (let i = 0; i < count; i++) {
    const ttft = new Histogram(TTFT_BUCKETS_SECONDS);
    for (let k = 0; k < 200 + 37 * i; k++) ttft.observe(0.02 + ((k * 7 + i * 13) % 100) / 150);
    const load = { running: 4 + ((i * 5) % 13), waiting: (i * 3) % 7, kv: 0.15 + ((i * 11) % 60) / 100, numGpuBlocks: 30_000 };
    const metrics = vllmPage(load, {
      model: BENCH_MODEL,
      createdSeconds: 1_699_990_000,
      metrics: {
        prefixCacheQueries: 1_000_000 + i * 54_321,
        prefixCacheHits: 400_000 + i * 12_345,
        promptTokensTotal: 5_000_000 + i * 99_999,
        generationTokensTotal: 2_000_000 + i * 77_777,
        preemptionsTotal: i % 3,
        requestSuccess: { stop: 900 + i, length: 40 + i, abort: i },
        timeToFirstTokenSeconds: ttft.snapshot(),
      },
    });
    hosts.push({ address: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}:8000`, healthStatus: "Healthy", metrics });
  }
  return hosts;
}
