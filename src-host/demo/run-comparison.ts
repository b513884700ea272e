// The demo itself: the same scripted chat workload twice, each time on fresh backends behind the gateway,
// once with the picker plugin and once with plain round robin (no plugin), and the figures of both runs.
import type { EngineConfigInput } from "../backend/engine.ts";
import type { Flavor } from "../host/vm.ts";
import { buildChatWorkload, type ChatWorkloadSpec } from "./chat-workload.ts";
import { runConversations, type ConnectionMode, type RunProgress } from "./conversation-runner.ts";
import { startDemoCluster } from "./demo-cluster.ts";
import { hitRateBounds, type HitRateBounds } from "./hit-rate-bounds.ts";
import { sortedTtfts, summarizeRun, type RunSummary } from "./run-summary.ts";

export type DemoMode = "picker" | "round-robin";

export interface DemoSettings {
  backends: number;
  workload: ChatWorkloadSpec;
  /** Engine speed factor; also compresses think times and the ramp so the modelled scenario keeps its shape. */
  speed: number;
  /** Modelled GPU of every backend (speed is taken from `speed`). */
  engine: EngineConfigInput;
  flavor: Flavor;
  /** Gateway worker VMs. */
  workers: number;
  connections: ConnectionMode;
  healthIntervalMs: number;
  modelName: string;
}

export interface ModeResult {
  mode: DemoMode;
  summary: RunSummary;
  /** Successful requests' client-side TTFTs, ascending. */
  ttftsMs: number[];
  /** Gateway routing decisions by reason. */
  routes: Record<string, number>;
  /** The plugin's counters (endpoint_picker.*); empty without the plugin. */
  pluginCounters: Record<string, number>;
}

export interface DemoResult {
  settings: DemoSettings;
  totalRequests: number;
  runs: ModeResult[];
  /** picker / round robin. */
  ratios: { cacheHitRate: number; ttftP50: number; ttftP90: number; outputTokensPerSecond: number };
  /** What the workload's token counts allow (see hit-rate-bounds.ts). */
  hitRateBounds: HitRateBounds;
}

export interface DemoHooks {
  onProgress?: (mode: DemoMode, p: RunProgress) => void;
  onRunDone?: (result: ModeResult) => void;
}

/** Modelled GPU: vLLM-like step costs; KV for 24K tokens holds a good part but not all of the chats' working set. */
export const DEFAULT_ENGINE: Readonly<EngineConfigInput> = Object.freeze({
  kvTokens: 24_576,
  blockSize: 16,
  maxNumSeqs: 64,
  maxBatchTokens: 2048,
  prefillTokensPerSec: 8000,
  stepOverheadMs: 6,
  decodePerSeqMs: 0.2,
});

async function runMode(mode: DemoMode, settings: DemoSettings, wasm: Uint8Array | null, hooks: DemoHooks): Promise<ModeResult> {
  const workload = buildChatWorkload(settings.workload, settings.speed);
  const cluster = await startDemoCluster({
    backends: settings.backends,
    engine: { ...settings.engine, speed: settings.speed },
    modelName: settings.modelName,
    plugin: mode === "picker" ? { wasm: wasm!, flavor: settings.flavor, workers: settings.workers } : null,
    healthIntervalMs: settings.healthIntervalMs,
  });
  try {
    const run = await runConversations(workload, {
      baseURL: `${cluster.gateway.url}/v1`,
      model: settings.modelName,
      connections: settings.connections,
      onRequestDone: (_s, p) => hooks.onProgress?.(mode, p),
    });
    const counters = await cluster.prefixCacheCounters();
    const pluginCounters: Record<string, number> = {};
    for (const [k, v] of Object.entries(cluster.gateway.host?.stats() ?? {})) {
      if (k.startsWith("endpoint_picker.") && typeof v === "number") pluginCounters[k] = v;
    }
    const result: ModeResult = {
      mode,
      summary: summarizeRun(run.samples, counters, run.wallMs),
      ttftsMs: sortedTtfts(run.samples),
      routes: cluster.gateway.stats().routes,
      pluginCounters,
    };
    hooks.onRunDone?.(result);
    return result;
  } finally {
    await cluster.close();
  }
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);

export async function runComparison(settings: DemoSettings, wasm: Uint8Array, hooks: DemoHooks = {}): Promise<DemoResult> {
  const picker = await runMode("picker", settings, wasm, hooks);
  const roundRobin = await runMode("round-robin", settings, null, hooks);
  const p = picker.summary;
  const r = roundRobin.summary;
  const workload = buildChatWorkload(settings.workload, settings.speed);
  return {
    settings,
    totalRequests: workload.totalRequests,
    runs: [picker, roundRobin],
    ratios: {
      cacheHitRate: ratio(p.cacheHitRate, r.cacheHitRate),
      ttftP50: ratio(p.ttftMs.p50, r.ttftMs.p50),
      ttftP90: ratio(p.ttftMs.p90, r.ttftMs.p90),
      outputTokensPerSecond: ratio(p.outputTokensPerSecond, r.outputTokensPerSecond),
    },
    hitRateBounds: hitRateBounds(workload, settings.backends),
  };
}
