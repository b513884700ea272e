// The soak report as a few plain-text tables for the terminal.
import type { LatencySummary } from "./latency-summary.ts";
import type { SoakReport } from "./run-soak.ts";

const MiB = 1024 * 1024;

function ms(v: number | null): string {
  return v === null ? "-" : v.toFixed(2);
}

function mib(v: number): string {
  return (v / MiB).toFixed(1);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ")).join("\n");
}

function latencyRow(name: string, s: LatencySummary): string[] {
  return [name, String(s.n), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
}

export function formatSoakReport(r: SoakReport): string {
  const out: string[] = [];
  const c = r.config;
  out.push(`soak: ${c.seconds} s at ${c.rps} req/s, ${c.flavor} build, ${c.workers} workers, ${c.backends} backends (speed ${c.speed}), arms ${c.arms.join("/")}`);
  out.push("");
  const t = r.throughput;
  out.push(
    `throughput: ${t.achievedRps.toFixed(1)} req/s answered of ${t.targetRps} target (${t.okResponses} ok / ${t.scheduled} scheduled, ` +
      `${t.dropped} dropped at the in-flight cap, peak in flight ${t.peakInflight}, ${t.elapsedSeconds.toFixed(1)} s); start lag p99 ${ms(t.startLagMs.p99)} ms`,
  );
  const loop = (d: { p50Ms: number; p99Ms: number; maxMs: number }) => `loop delay p50 ${d.p50Ms} / p99 ${d.p99Ms} / max ${d.maxMs} ms`;
  out.push(`cpu: gateway process ${r.cpu.gatewayProcessCores.toFixed(2)} cores, ${loop(r.cpu.gatewayLoopDelay)}`);
  out.push(`     traffic process (backends + load generator) ${r.cpu.trafficProcessCores.toFixed(2)} cores, ${loop(r.cpu.trafficLoopDelay)}`);
  const e = r.errors;
  out.push(`errors: ${e.total} (client ${e.client}, gateway ${Object.entries(e.gateway).map(([k, v]) => `${k} ${v}`).join(", ")}, internal ${e.gatewayInternal}, traps ${e.traps})`);
  for (const s of e.samples) out.push(`  ${s}`);
  out.push("");
  out.push("time to response headers (ms), streaming requests answered 200, after warm-up:");
  out.push(table([["arm", "n", "p50", "p90", "p99", "max"], ...Object.entries(r.latency.headersMs).map(([k, s]) => latencyRow(k, s))]));
  const l = r.latency;
  out.push(
    `plugin added latency: p50 ${ms(l.pluginAddedMs.p50)} ms, p99 ${ms(l.pluginAddedMs.p99)} ms; ` +
      `ratio plugin/plain p50 ${l.pluginRatio.p50?.toFixed(2) ?? "-"}, p99 ${l.pluginRatio.p99?.toFixed(2) ?? "-"}`,
  );
  if (l.overDirectMs) {
    out.push(`over direct-to-backend: ${Object.entries(l.overDirectMs).map(([k, q]) => `${k} p50 ${ms(q.p50)} / p99 ${ms(q.p99)} ms`).join("; ")}`);
  }
  out.push("");
  out.push("requests by kind (sent / ok / errors):");
  out.push(
    table([
      ["arm", ...Object.keys(r.arms[0].byKind), "dropped"],
      ...r.arms.map((a) => [a.name, ...Object.values(a.byKind).map((k) => `${k.sent}/${k.ok}/${k.errors}`), String(a.dropped)]),
    ]),
  );
  out.push("");
  const p = r.plugin;
  out.push(
    `plugin: ${p.requests} requests, ${p.decisions} decisions, fallbacks ${JSON.stringify(Object.fromEntries(Object.entries(p.fallbacks).filter(([, n]) => n > 0)))}, prefix hits ${p.counters.prefix_hits ?? 0}, inflight at end ${p.inflightAtEnd}`,
  );
  out.push("");
  out.push("gateway process memory (MiB) over the run:");
  const workers = r.memory.samples[0]?.linearMemoryBytes.length ?? 0;
  out.push(
    table([
      ["at", "rss", "heap", ...Array.from({ length: workers }, (_, w) => `linear w${w}`)],
      ...r.memory.samples.map((s) => [`${Math.round(s.at * 100)}%`, mib(s.rssBytes), mib(s.heapUsedBytes), ...s.linearMemoryBytes.map(mib)]),
    ]),
  );
  out.push(
    `linear memory ${r.memory.linearGrewInSecondHalf ? "GREW in the second half" : "did not grow in the second half"}` +
      (r.memory.linearFlatFrom !== null ? ` (flat from ${Math.round(r.memory.linearFlatFrom * 100)}%)` : "") +
      `; traffic process RSS ${mib(r.memory.trafficProcessRssBytes)} MiB`,
  );
  out.push(`drain: ${r.drain.ms.toFixed(0)} ms; traffic process exited by itself: ${r.drain.trafficProcessExitedCleanly}`);
  out.push("");
  out.push(r.ok ? "PASS" : `FAIL: ${r.failures.join("; ")}`);
  return out.join("\n") + "\n";
}
