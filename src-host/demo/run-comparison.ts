// The demo itself: the same scripted chat workload on fresh backends behind the gateway, once with the picker
// plugin per build (Higress, stock Envoy) and once with plain round robin (no plugin), and the figures of each run.
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
  /** The plugin builds to run, one picker run each. */
  flavors: Flavor[];
  /** Gateway worker VMs. */
  workers: number;
  connections: ConnectionMode;
  healthIntervalMs: number;
  modelName: string;
}

export interface ModeResult {
  mode: DemoMode;
  /** The plugin build of a picker run; null for round robin. */
  flavor: Flavor | null;
  /** "KV-aware picker (Higress build)", ..., "round robin". */
  label: string;
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
  /** The first picker run / round robin. */
  ratios: Ratios;
  /** Each picker run / round robin, by build. */
  ratiosByFlavor: Partial<Record<Flavor, Ratios>>;
  /** What the workload's token counts allow (see hit-rate-bounds.ts). */
  hitRateBounds: HitRateBounds;
}

export interface Ratios {
  cacheHitRate: number;
  ttftP50: number;
  ttftP90: number;
  outputTokensPerSecond: number;
}

export const FLAVOR_NAMES: Record<Flavor, string> = { higress: "Higress build", envoy: "stock Envoy build" };

export function runLabel(flavor: Flavor | null): string {
  return flavor === null ? "round robin" : `KV-aware picker (${FLAVOR_NAMES[flavor]})`;
}

export interface DemoHooks {
  onProgress?: (label: string, p: RunProgress) => void;
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

async function runMode(flavor: Flavor | null, settings: DemoSettings, wasm: Uint8Array | null, hooks: DemoHooks): Promise<ModeResult> {
  const workload = buildChatWorkload(settings.workload, settings.speed);
  const label = runLabel(flavor);
  const cluster = await startDemoCluster({
    backends: settings.backends,
    engine: { ...settings.engine, speed: settings.speed },
    modelName: settings.modelName,
    plugin: flavor !== null ? { wasm: wasm!, flavor, workers: settings.workers } : null,
    healthIntervalMs: settings.healthIntervalMs,
  });
  try {
    const run = await runConversations(workload, {
      baseURL: `${cluster.gateway.url}/v1`,
      model: settings.modelName,
      connections: settings.connections,
      onRequestDone: (_s, p) => hooks.onProgress?.(label, p),
    });
    const counters = await cluster.prefixCacheCounters();
    const pluginCounters: Record<string, number> = {};
    for (const [k, v] of Object.entries(cluster.gateway.host?.scrape() ?? {})) {
      if (k.startsWith("endpoint_picker.") && typeof v === "number") pluginCounters[k] = v;
    }
    const result: ModeResult = {
      mode: flavor === null ? "round-robin" : "picker",
      flavor,
      label,
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

/** `wasm` holds the module of each build in settings.flavors. */
export async function runComparison(settings: DemoSettings, wasm: Partial<Record<Flavor, Uint8Array>>, hooks: DemoHooks = {}): Promise<DemoResult> {
  const pickers: ModeResult[] = [];
  for (const flavor of settings.flavors) pickers.push(await runMode(flavor, settings, wasm[flavor]!, hooks));
  const roundRobin = await runMode(null, settings, null, hooks);
  const r = roundRobin.summary;
  const ratiosOf = (p: RunSummary): Ratios => ({
    cacheHitRate: ratio(p.cacheHitRate, r.cacheHitRate),
    ttftP50: ratio(p.ttftMs.p50, r.ttftMs.p50),
    ttftP90: ratio(p.ttftMs.p90, r.ttftMs.p90),
    outputTokensPerSecond: ratio(p.outputTokensPerSecond, r.outputTokensPerSecond),
  });
  const ratiosByFlavor: Partial<Record<Flavor, Ratios>> = {};
  for (const p of pickers) ratiosByFlavor[p.flavor!] = ratiosOf(p.summary);
  const workload = buildChatWorkload(settings.workload, settings.speed);
  return {
    settings,
    totalRequests: workload.totalRequests,
    runs: [...pickers, roundRobin],
    ratios: ratiosOf(pickers[0].summary),
    ratiosByFlavor,
    hitRateBounds: hitRateBounds(workload, settings.backends),
  };
}
