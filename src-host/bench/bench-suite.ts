// The benchmark suite behind `npm run bench`: which benches exist, their iteration counts for a full and a
// quick run, the targets, and one report object (what --json prints).
import os from "node:os";
import { decisionCost, type DecisionCostResult } from "./decision-cost.ts";
import { indexCost, type IndexCostResult } from "./index-cost.ts";
import { memoryGrowth, type MemoryGrowthResult } from "./memory-growth.ts";
import { xxh64Throughput, type Xxh64Result } from "./xxh64-throughput.ts";
import { BENCH_NAMES, type BenchName } from "./bench-names.ts";

export { BENCH_NAMES, type BenchName };

export const KiB = 1024;
export const MiB = 1024 * 1024;
export const DECISION_TARGET_BODY_BYTES = 16 * KiB;
export const DECISION_TARGET_MAX_RATIO = 0.5;
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
  xxh64?: Xxh64Result;
  indexCost?: IndexCostResult;
  memory?: MemoryGrowthResult;
  targets: TargetCheck[];
}

function settings(quick: boolean) {
  return {
    decision: { sizes: [KiB, 16 * KiB, 256 * KiB, 4 * MiB], rounds: quick ? 3 : 15, targetMs: quick ? 2 : 40, variants: quick ? 1 : 4 },
    xxh64: { bytes: MiB, rounds: quick ? 3 : 21, targetMs: quick ? 2 : 25 },
    index: { fills: quick ? [0.01, 1] : [0.01, 0.1, 0.5, 1], rounds: quick ? 3 : 15, targetMs: quick ? 2 : 25, chainLength: 32, activeEndpoints: 8 },
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
    if (bench === "xxh64") partial.xxh64 = await xxh64Throughput(s.xxh64);
    if (bench === "index") partial.indexCost = await indexCost(s.index);
    if (bench === "memory") partial.memory = await memoryGrowth(s.memory);
    progress(`bench: ${bench} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  partial.seconds = (performance.now() - started) / 1000;
  return { ...partial, targets: targetChecks(partial) };
}
