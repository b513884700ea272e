// The comparison table printed at the end of the demo: one row per run (a picker run per plugin build, then
// round robin), then each build's picker / round-robin ratios.
import { FLAVOR_NAMES, type DemoResult, type ModeResult } from "./run-comparison.ts";

export interface TableColumn {
  title: string;
  cell(run: ModeResult): string;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

export const TABLE_COLUMNS: TableColumn[] = [
  { title: "gateway", cell: (r) => r.label },
  { title: "requests", cell: (r) => String(r.summary.requests) },
  { title: "errors", cell: (r) => String(r.summary.errors) },
  { title: "cache hit rate", cell: (r) => `${(100 * r.summary.cacheHitRate).toFixed(1)} %` },
  { title: "TTFT p50", cell: (r) => ms(r.summary.ttftMs.p50) },
  { title: "TTFT p90", cell: (r) => ms(r.summary.ttftMs.p90) },
  { title: "TTFT p99", cell: (r) => ms(r.summary.ttftMs.p99) },
  { title: "output tok/s", cell: (r) => r.summary.outputTokensPerSecond.toFixed(0) },
  { title: "same-backend follow-ups", cell: (r) => `${(100 * r.summary.sameBackendFollowUps).toFixed(0)} %` },
];

function pad(text: string, width: number, left: boolean): string {
  return left ? text.padEnd(width) : text.padStart(width);
}

export function resultTable(result: DemoResult): string {
  const rows = [TABLE_COLUMNS.map((c) => c.title), ...result.runs.map((r) => TABLE_COLUMNS.map((c) => c.cell(r)))];
  const widths = TABLE_COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => pad(cell, widths[i], i === 0)).join("  ");
  const out = [line(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)];
  out.push("");
  for (const [flavor, r] of Object.entries(result.ratiosByFlavor)) {
    out.push(
      `picker (${FLAVOR_NAMES[flavor as keyof typeof FLAVOR_NAMES]}) vs round robin: cache hit rate ${r.cacheHitRate.toFixed(2)}x, ` +
        `TTFT p50 ${r.ttftP50.toFixed(2)}x, TTFT p90 ${r.ttftP90.toFixed(2)}x, output tok/s ${r.outputTokensPerSecond.toFixed(2)}x`,
    );
  }
  out.push(boundsLine(result));
  for (const run of result.runs) {
    for (const message of run.summary.errorMessages) out.push(`${run.label} error: ${message}`);
  }
  return out.join("\n");
}

/** What the workload allows at best, to read the measured hit rates against. */
export function boundsLine(result: DemoResult): string {
  const b = result.hitRateBounds;
  const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
  return (
    `workload bound: hit rate ~${pct(b.affinity)} if every turn reached its conversation's backend, ` +
    `~${pct(b.roundRobin)} expected from round robin (nothing evicted, shared system prompts cached everywhere): ratio ~${b.ratio.toFixed(2)}x`
  );
}
