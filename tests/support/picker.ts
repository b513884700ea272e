// Runs the built picker (build/higress.wasm or build/envoy.wasm) in the static-cluster harness, with helpers to
// send requests through it.
import { parseDebugHeader, type DebugScores } from "../../src-host/fuzz/debug-header.ts";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";
import type { HeaderList } from "../../src-host/host/header-map.ts";
import type { PluginHost } from "../../src-host/host/plugin-host.ts";
import { VirtualClock, type Clock } from "../../src-host/host/clock.ts";
import type { StaticCluster } from "../../src-host/host/cluster.ts";
import { StaticClusterHarness, type Endpoint, type HarnessOptions } from "../../src-host/harness/static-cluster-harness.ts";
import type { VllmPageOptions } from "../../src-host/harness/vllm-page.ts";
import { SeededRandom } from "../../src-host/util/seeded-random.ts";

export interface PickerHarness<C extends Clock = VirtualClock> {
  host: PluginHost;
  clock: C;
  cluster: StaticCluster;
  logs: string[];
  /** Replaces the endpoints (page: what else their /metrics pages say); the next request sees the change. */
  setPods(pods: Endpoint[], page?: VllmPageOptions): void;
  /** Sends a chat request; returns the stream after the body (decision made). */
  send(body: object | string, headers?: HeaderList, opts?: { worker?: number }): FilterStream;
  /** Ends a stream with a response status (on_log, on_done). */
  complete(stream: FilterStream, status?: number): void;
  chosen(stream: FilterStream): string | null;
  /** The counters once the plugin's tick wrote out what it holds back (PluginHost.scrape). */
  stats(): Record<string, number | number[]>;
  counter(name: string): number;
}

export function pickerHost<C extends Clock = VirtualClock>(options: HarnessOptions<C> & { config?: object } = {}): PickerHarness<C> {
  const logs: string[] = [];
  const { config, ...hostOptions } = options;
  const h = new StaticClusterHarness<C>({
    pluginConfig: JSON.stringify(config ?? {}),
    bufferLimitBytes: 8 * 1024 * 1024,
    log: (_l, m) => logs.push(m),
    ...hostOptions,
  });
  return {
    host: h.host,
    clock: h.clock,
    cluster: h.cluster,
    logs,
    setPods(pods, page) {
      h.setEndpoints(pods, page);
      // Let the per-worker snapshot TTL pass so the next request sees the change (a RealClock is not moved).
      if (h.clock instanceof VirtualClock) h.clock.advanceTo(h.clock.nowMs() + 1000);
    },
    send: (body, headers = [], opts = {}) => h.send(body, { headers, worker: opts.worker }),
    complete: (stream, status = 200) => h.complete(stream, status),
    chosen: (stream) => h.chosen(stream),
    stats: () => h.host.scrape(),
    counter: (name) => h.counter(name),
  };
}

/**
 * Idle pods whose engines have taken in `prefixCacheQueries` prompt tokens so far (none of them hits) into 16,000
 * tokens of KV cache (1,000 blocks of 16), 10% in use: what the cache horizon is measured from. Without `counters`
 * their pages carry no prefix-cache counters (an engine that exports none: no horizon).
 */
export function setCountingPods(h: PickerHarness<Clock>, addresses: string[], prefixCacheQueries: number, counters = true): void {
  h.setPods(addresses.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1, numGpuBlocks: 1000, blockSize: 16 })),
    { metrics: { prefixCacheQueries } });
  if (!counters) {
    h.cluster.hostList = h.cluster.hostList.map((host) => ({
      ...host, metrics: host.metrics!.split("\n").filter((line) => !line.includes("prefix_cache")).join("\n"),
    }));
  }
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
  const rng = new SeededRandom(seed);
  let out = "";
  while (out.length < n) out += rng.pick(words) + " ";
  return out.slice(0, n);
}

/** Answers the stream's upstream with 200 and returns the decision its debug header reports (config debug.header). */
export function debugOf(s: FilterStream) {
  s.encodeHeaders([[":status", "200"]], false);
  return parseDebugHeader(s.state.responseHeaders!.get("x-endpoint-picker-debug")!)!;
}

/** The chain length a decision's debug header says it matched on `address`, or why it has none. */
export function matchedOn(d: DebugScores, address: string): number | "excluded" | "untracked" {
  const e = d.scores.get(address);
  return e === undefined ? "untracked" : e === "excluded" ? e : e.m;
}

/** The process-wide load's shared-data key (assembly/core/shared-load.ts). */
export const SHARED_LOAD_KEY = "endpoint_picker/load/v2";

/** The shared load value as records: per record [in flight, awaiting a first byte], sorted. */
export function sharedLoadCounts(h: { host: PickerHarness["host"] }): Array<[number, number]> {
  const v = h.host.process.sharedData.get("endpoint_picker", SHARED_LOAD_KEY).value;
  if (v === undefined) return [];
  const view = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const out: Array<[number, number]> = [];
  // [count u32][epoch u32][members u32], members × owner u64, count × [hash u64][in flight i32][awaiting i32]
  const records = 12 + view.getUint32(8, true) * 8;
  for (let i = 0; i < view.getUint32(0, true); i++) out.push([view.getInt32(records + i * 16 + 8, true), view.getInt32(records + i * 16 + 12, true)]);
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
