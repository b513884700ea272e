// The per-policy text table the CLI prints.
import { diagnosticsText } from "./index-diagnostics.ts";
import { placementText } from "./placement-diagnostics.ts";
import type { PolicyRun } from "./simulation.ts";

const COLUMNS: Array<[string, (r: PolicyRun) => string]> = [
  ["policy", (r) => r.policy],
  ["reqs", (r) => String(r.summary.requests)],
  ["failed", (r) => String(r.summary.failed)],
  ["ttft mean", (r) => seconds(r.summary.ttft_mean_s)],
  ["p50", (r) => seconds(r.summary.ttft_p50_s)],
  ["p90", (r) => seconds(r.summary.ttft_p90_s)],
  ["p99", (r) => seconds(r.summary.ttft_p99_s)],
  ["e2e p50", (r) => seconds(r.summary.e2e_p50_s)],
  ["hit rate", (r) => `${(r.summary.token_hit_rate * 100).toFixed(1)}%`],
  ["out tok/s", (r) => r.summary.output_tok_s.toFixed(0)],
  ["queue max", (r) => String(r.summary.queue_max)],
  ["queue mean", (r) => r.summary.queue_mean.toFixed(2)],
  ["wall", (r) => `${r.summary.wall_s.toFixed(1)}s`],
];

/** The closed loop's view, printed only when some policy's arrivals waited for a ready session. */
const CLOSED_LOOP_COLUMNS: Array<[string, (r: PolicyRun) => string]> = [
  ["closed loop", (r) => r.policy],
  ["backlogged", (r) => `${(r.summary.closed_loop.backlogged_share * 100).toFixed(1)}%`],
  ["wait total", (r) => `${r.summary.closed_loop.backlog_wait_total_s.toFixed(0)}s`],
  ["wait mean", (r) => seconds(r.summary.closed_loop.backlog_wait_mean_s)],
  ["from arrival: ttft mean", (r) => seconds(r.summary.closed_loop.ttft_from_arrival_mean_s)],
  ["p50", (r) => seconds(r.summary.closed_loop.ttft_from_arrival_p50_s)],
  ["p90", (r) => seconds(r.summary.closed_loop.ttft_from_arrival_p90_s)],
];

/** A duration under a second in milliseconds (with `msDigits` decimals), above it in seconds. */
export function seconds(s: number, msDigits = 0): string {
  return s < 1 ? `${(s * 1000).toFixed(msDigits)}ms` : `${s.toFixed(2)}s`;
}

function table(columns: Array<[string, (r: PolicyRun) => string]>, runs: readonly PolicyRun[]): string[] {
  const rows = [columns.map((c) => c[0]), ...runs.map((r) => columns.map((c) => c[1](r)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  return [line(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)];
}

export function summaryTable(runs: readonly PolicyRun[]): string {
  const out = table(COLUMNS, runs);
  if (runs.some((r) => r.summary.closed_loop.backlogged > 0)) {
    out.push("", "arrivals that waited for a ready session (outside TTFT), and TTFT from the scheduled arrival:");
    out.push(...table(CLOSED_LOOP_COLUMNS, runs));
  }
  for (const r of runs) {
    const extra = Object.entries(r.summary.extra);
    if (extra.length > 0) out.push(`${r.policy}: ${extra.map(([k, v]) => `${k}=${v}`).join(" ")}`);
    if (r.summary.index !== undefined) out.push(diagnosticsText(r.policy, r.summary.index));
    if (r.summary.placement !== undefined) out.push(placementText(r.policy, r.summary.placement));
  }
  return out.join("\n");
}
