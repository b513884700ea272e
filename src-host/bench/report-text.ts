// The human-readable form of a BenchReport: ratios first (they compare contenders measured side by side in
// this process), machine-specific microseconds next to them, then the targets as PASS/MISS lines.
import type { BenchReport } from "./bench-suite.ts";
import { STAGE_NAMES, type StageName } from "./stage-profile.ts";
import { INDEX_REGIONS, sum } from "./index-op-count.ts";

const fixed = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : String(v));
const int = (v: number) => Math.round(v).toLocaleString("en-US");

function sizeLabel(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => "  " + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  "));
}

export function formatReport(report: BenchReport): string {
  const out: string[] = [];
  const m = report.machine;
  out.push(`Endpoint picker benchmarks (${report.quick ? "quick" : "full"} run, ${fixed(report.seconds, 1)} s; node ${m.node}, ${m.cpus} x ${m.cpu})`);
  out.push("Ratios: medians of per-round ratios, contenders interleaved in this process. us, ns, GB/s: this machine only.");

  const d = report.decisionCost;
  if (d) {
    out.push("");
    out.push(`Decision cost: every plugin callback of one chat request (release build, ${d.endpoints} endpoints, warm index) vs JSON.parse of the body, ${d.rounds} rounds`);
    const rows = [["body", "/JSON.parse", "own/JSON.parse", "/decode+parse", "host only", "picker us", "parse us", "decode+parse us", "empty plugin us", "body copy us", "plugin own us", "host calls"]];
    for (const r of d.rows) {
      const calls = Object.values(r.hostCallsPerRequest).reduce((a, b) => a + b, 0);
      rows.push([
        sizeLabel(r.bodyBytes), fixed(r.ratioToJsonParse, 3), fixed(r.pluginOwnRatioToJsonParse, 3), fixed(r.ratioToJsonParseWithDecode, 3), fixed(r.hostOverheadRatioToJsonParse, 3),
        fixed(r.us.picker, 1), fixed(r.us.jsonParse, 1), fixed(r.us.jsonParseWithDecode, 1), fixed(r.us.hostEmptyPlugin, 1), fixed(r.us.hostBodyCopyPlugin, 1),
        fixed(r.us.pluginOwn, 1), fixed(calls, 1),
      ]);
    }
    out.push(...table(rows));
    out.push("  host only = a plugin with empty callbacks / JSON.parse; plugin own = picker - (host + copying the body into wasm).");
    out.push(`  Metrics snapshot refresh (per worker once per metrics.snapshotTtlMs, not per request): +${fixed(d.snapshotRefreshUs, 1)} us`);
    const zh = d.chineseBody;
    if (zh) {
      out.push(`  ${sizeLabel(zh.bodyBytes)} of Chinese (3 bytes a character): picker ${fixed(zh.us.picker, 1)} us = ${fixed(zh.ratioToJsonParse, 3)}x JSON.parse (${fixed(zh.us.jsonParse, 1)} us), plugin own ${fixed(zh.us.pluginOwn, 1)} us = ${fixed(zh.pluginOwnRatioToJsonParse, 3)}x`);
    }
    const many = d.manyEndpoints;
    if (many) {
      out.push(`  ${sizeLabel(d.rows[0].bodyBytes)} with ${many.endpoints} endpoints: picker ${fixed(many.pickerUs, 1)} us, plugin own ${fixed(many.pluginOwnUs, 1)} us = ${fixed(many.pluginOwnRatio, 3)}x the plugin's own with ${d.endpoints}`);
    }
  }

  const p = report.stageProfile;
  if (p) {
    out.push("");
    out.push(`Per-stage profile (profiling build: a host-timestamped mark at every stage boundary, one mark's ${fixed(p.markUs * 1000, 0)} ns taken out of each interval), us per request, ${p.rounds} rounds`);
    const header = ["stage", ...p.rows.map((r) => `${sizeLabel(r.bodyBytes)}/${r.endpoints}ep`)];
    const rows = [header];
    for (const name of STAGE_NAMES.slice(1) as StageName[]) rows.push([name, ...p.rows.map((r) => fixed(r.stagesUs[name], 2))]);
    rows.push(["stages sum", ...p.rows.map((r) => fixed(r.stagesSumUs, 2))]);
    rows.push(["marks/request", ...p.rows.map((r) => fixed(r.intervalsPerRequest, 0))]);
    rows.push(["profiled build us", ...p.rows.map((r) => fixed(r.profiledUs, 2))]);
    rows.push(["product picker us", ...p.rows.map((r) => fixed(r.pickerUs, 2))]);
    rows.push(["body copy plugin us", ...p.rows.map((r) => fixed(r.bodyCopyUs, 2))]);
    rows.push(["product plugin own us", ...p.rows.map((r) => fixed(r.pluginOwnUs, 2))]);
    out.push(...table(rows));
    out.push("  bodyRead is the host copying the body in (the body-copy plugin pays it too); telemetry is every metric increment; gc is the collection at callback entry.");
    out.push("");
    out.push("WebAssembly operations per request (the profiling build counted: each straight-line run adds its expression count; the same on every run)");
    const opRows = [header];
    for (const name of ["outside", ...STAGE_NAMES.slice(1)] as Array<StageName | "outside">) {
      opRows.push([name, ...p.rows.map((r) => fixed(r.stagesOps[name], 0))]);
    }
    opRows.push(["request", ...p.rows.map((r) => fixed(r.opsPerRequest, 0))]);
    out.push(...table(opRows));
  }

  const x = report.xxh64;
  if (x) {
    out.push("");
    out.push(`xxh64 on ${sizeLabel(x.bytes)}, ${x.rounds} rounds: ours / xxhash-wasm h64Raw throughput ${fixed(x.ratioToXxhashWasm, 3)}x` +
      ` (${fixed(x.ratioWithCopyToXxhashWasm, 3)}x when ours also copies the input in); hashes ${x.hashesAgree ? "agree" : "DIFFER"}`);
    out.push(`  GB/s: ours ${fixed(x.gbPerSecond.ours)}, ours with copy ${fixed(x.gbPerSecond.oursWithCopy)}, xxhash-wasm ${fixed(x.gbPerSecond.xxhashWasm)}`);
  }

  const ix = report.indexCost;
  if (ix) {
    out.push("");
    out.push(`Prefix index (${ix.maxEndpoints} endpoints x ${int(ix.capacityPerEndpoint)} entries), one op = match a ${ix.chainLength}-hash chain against ${ix.activeEndpoints} endpoints + record it`);
    const rows = [["fill", "entries", "ns/op", "matched/op", "max probe distance", "consistent"]];
    for (const r of ix.rows) rows.push([`${fixed(r.fill * 100, 0)}%`, int(r.entries), fixed(r.nsPerOp, 0), fixed(r.matchedPerOp, 1), String(r.maxDisplacement), String(r.consistent)]);
    out.push(...table(rows));
    out.push(`  cost at 100% fill / 1% fill: ${fixed(ix.ratioFullToOnePercent, 3)}x (CPU time)`);
    const c = ix.inCacheControl;
    out.push(`  in-cache control, a full ${ix.maxEndpoints} x ${c.capacityPerEndpoint} index (same load factor, max probe distance ${c.maxDisplacement}): ` +
      `${fixed(c.nsPerOp, 0)} ns/op, ${fixed(c.ratioToOnePercent, 3)}x the 1% fill cost; the difference is the memory hierarchy`);
    const k = ix.counts;
    out.push(`  counted (deterministic, ${int(k.ops)} ops per fill after the warm-up): wasm ops 100% / 1% ${fixed(k.opsRatioFullToOnePercent, 3)}x, ` +
      `lines a ${sizeLabel(k.cacheBytes)} LRU cache would miss ${fixed(k.coldLinesRatioFullToOnePercent, 3)}x`);
    const countRows = [["fill", "phase", "wasm ops", "accesses", "lines", "modeled misses", ...INDEX_REGIONS.map((r) => `${r} lines/misses`)]];
    for (const r of k.rows) {
      for (const phase of ["match", "record"] as const) {
        const p = r[phase];
        countRows.push([`${fixed(r.fill * 100, 0)}%`, phase, int(p.ops), int(p.accesses), fixed(sum(p.lines), 1), fixed(sum(p.coldLines), 1),
          ...INDEX_REGIONS.map((g) => `${fixed(p.lines[g], 1)}/${fixed(p.coldLines[g], 1)}`)]);
      }
    }
    out.push(...table(countRows));
    for (const r of k.rows) {
      out.push(`  ${fixed(r.fill * 100, 0)}% fill: a lookup of the chain in the chosen slot reads ${fixed(r.probeHit, 2)} buckets when it finds its hash, ` +
        `${fixed(r.probeMiss, 2)} when not (${fixed(r.missShare * 100, 0)}% of them)`);
    }
  }

  const mem = report.memory;
  if (mem) {
    out.push("");
    out.push(`Linear memory over ${int(mem.requests)} requests (${mem.bodyBytes}-byte bodies, default config, ${fixed(mem.seconds, 1)} s):`);
    const rows = [["after", "bytes"], ["start", int(mem.afterStartBytes)], [`warm-up (${int(mem.warmupRequests)} requests)`, int(mem.afterWarmupBytes)]];
    for (const c of mem.checkpoints) rows.push([`${int(c.requests)} requests`, int(c.linearMemoryBytes)]);
    out.push(...table(rows));
    out.push(`  growth after warm-up: ${int(mem.growthAfterWarmupBytes)} bytes; ${int(mem.decisions)} decisions, ${int(mem.prefixHits)} prefix hits`);
    out.push(`  prefix index: ${fixed(mem.index.bytesPerEntry, 3)} bytes per entry (bytesPerEntry); bytesFor(${mem.index.maxEndpoints}, ${mem.index.capacityPerEndpoint}) = ${int(mem.index.bytesForDefault)} bytes`);
  }

  if (report.targets.length) out.push("");
  for (const t of report.targets) out.push(`${t.pass ? "PASS" : "MISS"} ${t.name}: ${fixed(t.measured, 3)} (target ${t.comparison} ${t.limit})`);
  return out.join("\n") + "\n";
}
