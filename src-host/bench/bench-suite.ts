// The benchmark suite behind `npm run bench`: which benches exist, their iteration counts for a full and a
// quick run, the targets, and one report object (what --json prints).
import os from "node:os";
import { decisionCost, type DecisionCostResult } from "./decision-cost.ts";
import { indexCost, type IndexCostResult } from "./index-cost.ts";
import { memoryGrowth, type MemoryGrowthResult } from "./memory-growth.ts";
import { stageProfile, type StageProfileResult } from "./stage-profile.ts";
import { xxh64Throughput, type Xxh64Result } from "./xxh64-throughput.ts";
import { BENCH_NAMES, type BenchName } from "./bench-names.ts";

export { BENCH_NAMES, type BenchName };

export const KiB = 1024;
export const MiB = 1024 * 1024;
export const DECISION_TARGET_BODY_BYTES = 16 * KiB;
export const DECISION_TARGET_MAX_RATIO = 0.5;
export const PLUGIN_OWN_TARGET_MAX_RATIO = 0.4;
export const FIXED_COST_BODY_BYTES = KiB;
export const FIXED_COST_TARGET_MAX_US = 3;
export const MANY_ENDPOINTS = 256;
export const MANY_ENDPOINTS_TARGET_MAX_RATIO = 2;
export const INDEX_TARGET_MAX_RATIO = 1.2;
export const XXH64_TARGET_MIN_RATIO = 0.9;

export interface BenchOptions {
  quick: boolean;
  /** Benches to run; all when empty. */
  only: BenchName[];
  /** Progress lines (the CLI sends them to stderr). */
  progress?: (line: string) => void;
}

export interface TargetCheck {
  name: string;
  measured: number;
  comparison: "<=" | ">=";
  limit: number;
  pass: boolean;
}

export interface BenchReport {
  quick: boolean;
  benches: BenchName[];
  machine: { node: string; cpu: string; cpus: number; platform: string };
  /** Wall time of the whole run, seconds. */
  seconds: number;
  decisionCost?: DecisionCostResult;
  stageProfile?: StageProfileResult;
  xxh64?: Xxh64Result;
  indexCost?: IndexCostResult;
  memory?: MemoryGrowthResult;
  targets: TargetCheck[];
}

function settings(quick: boolean) {
  return {
    decision: { sizes: [KiB, 16 * KiB, 256 * KiB, 4 * MiB], rounds: quick ? 3 : 15, targetMs: quick ? 2 : 40, variants: quick ? 1 : 4, manyEndpoints: MANY_ENDPOINTS, chineseBodyBytes: 16 * KiB },
    profile: quick
      ? { sizes: [KiB], endpointCounts: [8, MANY_ENDPOINTS], rounds: 3, targetMs: 2, variants: 1 }
      : { sizes: [KiB, 16 * KiB, 256 * KiB], endpointCounts: [8, 64, MANY_ENDPOINTS], rounds: 9, targetMs: 20, variants: 4 },
    xxh64: { bytes: MiB, rounds: quick ? 3 : 21, targetMs: quick ? 2 : 25 },
    index: { fills: quick ? [0.01, 1] : [0.01, 0.1, 0.5, 1], rounds: quick ? 3 : 15, targetMs: quick ? 2 : 25, chainLength: 32, activeEndpoints: 8, countedOps: quick ? 100 : 500, modeledCacheBytes: MiB },
    memory: quick
      ? { requests: 4_000, warmupRequests: 1_000, checkpoints: [2_000, 3_000] }
      : { requests: 1_000_000, warmupRequests: 50_000, checkpoints: [100_000, 250_000, 500_000, 750_000] },
  };
}

export function targetChecks(report: Omit<BenchReport, "targets">): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const row = report.decisionCost?.rows.find((r) => r.bodyBytes === DECISION_TARGET_BODY_BYTES);
  if (row) {
    const measured = row.ratioToJsonParse;
    checks.push({ name: "decision cost at 16 KiB / JSON.parse", measured, comparison: "<=", limit: DECISION_TARGET_MAX_RATIO, pass: measured <= DECISION_TARGET_MAX_RATIO });
    const own = row.pluginOwnRatioToJsonParse;
    checks.push({ name: "plugin's own cost at 16 KiB / JSON.parse", measured: own, comparison: "<=", limit: PLUGIN_OWN_TARGET_MAX_RATIO, pass: own <= PLUGIN_OWN_TARGET_MAX_RATIO });
  }
  const small = report.decisionCost?.rows.find((r) => r.bodyBytes === FIXED_COST_BODY_BYTES);
  if (small) {
    const us = small.us.pluginOwn;
    checks.push({ name: `plugin's own cost at 1 KiB, ${report.decisionCost!.endpoints} endpoints, us (this machine)`, measured: us, comparison: "<=", limit: FIXED_COST_TARGET_MAX_US, pass: us <= FIXED_COST_TARGET_MAX_US });
    const many = report.decisionCost!.manyEndpoints;
    if (many) {
      const ratio = many.pluginOwnRatio;
      checks.push({ name: `plugin's own cost at 1 KiB, ${many.endpoints} / ${report.decisionCost!.endpoints} endpoints`, measured: ratio, comparison: "<=", limit: MANY_ENDPOINTS_TARGET_MAX_RATIO, pass: ratio <= MANY_ENDPOINTS_TARGET_MAX_RATIO });
    }
  }
  if (report.indexCost) {
    const measured = report.indexCost.ratioFullToOnePercent;
    checks.push({ name: "index match + record at 100% fill / 1% fill", measured, comparison: "<=", limit: INDEX_TARGET_MAX_RATIO, pass: measured <= INDEX_TARGET_MAX_RATIO });
  }
  if (report.xxh64) {
    const measured = report.xxh64.ratioToXxhashWasm;
    checks.push({ name: "xxh64 throughput / xxhash-wasm h64Raw", measured, comparison: ">=", limit: XXH64_TARGET_MIN_RATIO, pass: measured >= XXH64_TARGET_MIN_RATIO });
  }
  return checks;
}

export async function runBenchmarks(options: BenchOptions): Promise<BenchReport> {
  const started = performance.now();
  const benches = options.only.length ? BENCH_NAMES.filter((b) => options.only.includes(b)) : [...BENCH_NAMES];
  const s = settings(options.quick);
  const progress = options.progress ?? (() => {});
  const partial: Omit<BenchReport, "targets"> = {
    quick: options.quick,
    benches,
    machine: { node: process.version, cpu: os.cpus()[0]?.model ?? "unknown", cpus: os.cpus().length, platform: `${os.platform()} ${os.arch()}` },
    seconds: 0,
  };
  for (const bench of benches) {
    const t = performance.now();
    progress(`bench: ${bench}...`);
    if (bench === "decision") partial.decisionCost = await decisionCost(s.decision);
    if (bench === "profile") partial.stageProfile = await stageProfile(s.profile);
    if (bench === "xxh64") partial.xxh64 = await xxh64Throughput(s.xxh64);
    if (bench === "index") partial.indexCost = await indexCost(s.index);
    if (bench === "memory") partial.memory = await memoryGrowth(s.memory);
    progress(`bench: ${bench} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  partial.seconds = (performance.now() - started) / 1000;
  return { ...partial, targets: targetChecks(partial) };
}
