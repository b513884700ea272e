// Smoke test of `npm run bench`: the CLI's quick mode with --json as a child process, checking the report's
// shape and internal consistency. Never a timing threshold: ratios only have to be positive finite numbers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { BENCH_NAMES } from "../../src-host/bench/bench-names.ts";
import type { BenchReport } from "../../src-host/bench/bench-suite.ts";
import { formatReport } from "../../src-host/bench/report-text.ts";

const KiB = 1024;

function positiveFinite(v: unknown, what: string): void {
  assert.equal(typeof v, "number", `${what} is a number`);
  assert.ok(Number.isFinite(v as number) && (v as number) > 0, `${what} = ${v} is positive and finite`);
}

const runCli = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "src-host/cli/bench.ts", ...args], { encoding: "utf8" });

let quick: BenchReport | null = null;
function quickReport(): BenchReport {
  if (!quick) {
    const run = runCli(["--json", "--quick"]);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    assert.equal(lines.length, 1, "--json prints exactly one line on stdout");
    quick = JSON.parse(lines[0]) as BenchReport;
  }
  return quick;
}

test("quick run: decision cost for 1 KiB, 16 KiB, 256 KiB and 4 MiB, every request a decision", async () => {
  const r = quickReport();
  assert.deepEqual(r.benches, [...BENCH_NAMES]);
  const d = r.decisionCost!;
  assert.equal(d.endpoints, 8);
  assert.deepEqual(d.rows.map((row) => row.bodyBytes), [KiB, 16 * KiB, 256 * KiB, 4096 * KiB]);
  for (const row of d.rows) {
    const at = `${row.bodyBytes} bytes`;
    positiveFinite(row.ratioToJsonParse, `${at}: ratioToJsonParse`);
    positiveFinite(row.ratioToJsonParseWithDecode, `${at}: ratioToJsonParseWithDecode`);
    positiveFinite(row.hostOverheadRatioToJsonParse, `${at}: hostOverheadRatioToJsonParse`);
    for (const [name, us] of Object.entries(row.us)) {
      if (name === "pluginOwn") assert.ok(Number.isFinite(us), `${at}: pluginOwn is finite`);
      else positiveFinite(us, `${at}: ${name} us`);
    }
    assert.ok(row.decisions > 0, `${at}: the rounds sent picker requests`);
    assert.ok(row.prefixHitRate > 0 && row.prefixHitRate <= 1, `${at}: a warm index gives prefix hits (${row.prefixHitRate})`);
    // The picker must read the body it decides on, and route by the Higress override host.
    assert.ok(row.hostCallsPerRequest.proxy_get_buffer_bytes >= 1, `${at}: the body is read`);
    assert.equal(row.hostCallsPerRequest.proxy_set_upstream_override_host, 1, `${at}: one override host per request`);
  }
  assert.ok(Number.isFinite(d.snapshotRefreshUs), "snapshotRefreshUs is finite");
  const zh = d.chineseBody!;
  assert.equal(zh.bodyBytes, 16 * KiB);
  positiveFinite(zh.ratioToJsonParse, "Chinese body: ratioToJsonParse");
  positiveFinite(zh.us.picker, "Chinese body: picker us");
  positiveFinite(zh.us.jsonParse, "Chinese body: JSON.parse us");
  assert.ok(Number.isFinite(zh.us.pluginOwn) && Number.isFinite(zh.pluginOwnRatioToJsonParse), "Chinese body: plugin own is finite");
});

test("quick run: the per-stage profile covers the request path for 8 and 256 endpoints", async () => {
  const p = quickReport().stageProfile!;
  assert.deepEqual(p.rows.map((row) => row.endpoints), [8, 256]);
  positiveFinite(p.markUs, "markUs");
  for (const row of p.rows) {
    const at = `${row.bodyBytes} bytes, ${row.endpoints} endpoints`;
    // Every request passes these stages (gc runs every few dozen streams, so it may round to zero).
    for (const stage of ["gate", "bodyRead", "extract", "chunkHash", "indexLookup", "scoring", "route", "record", "telemetry", "response"] as const) {
      assert.ok(row.stagesUs[stage] !== undefined && Number.isFinite(row.stagesUs[stage]), `${at}: ${stage} is measured`);
    }
    assert.ok(row.intervalsPerRequest >= 15, `${at}: the profiling build marks its stages (${row.intervalsPerRequest} per request)`);
    for (const v of [row.stagesSumUs, row.profiledUs, row.pickerUs, row.bodyCopyUs]) positiveFinite(v, `${at}: totals`);
    for (const stage of ["gate", "extract", "chunkHash", "scoring", "response"] as const) positiveFinite(row.stagesOps[stage], `${at}: ${stage} operations`);
    const stagesOps = Object.values(row.stagesOps).reduce((a, b) => a + b, 0);
    assert.equal(stagesOps, row.opsPerRequest, `${at}: the stages' and outside operations make up the request's`);
  }
});

test("quick run: xxh64 agrees with xxhash-wasm and reports positive throughputs", async () => {
  const x = quickReport().xxh64!;
  assert.equal(x.bytes, 1024 * KiB);
  assert.equal(x.hashesAgree, true);
  positiveFinite(x.ratioToXxhashWasm, "ratioToXxhashWasm");
  positiveFinite(x.ratioWithCopyToXxhashWasm, "ratioWithCopyToXxhashWasm");
  for (const [name, v] of Object.entries(x.gbPerSecond)) positiveFinite(v, `${name} GB/s`);
});

test("quick run: the index bench does the same work at 1% and 100% fill, on a consistent full index", async () => {
  const ix = quickReport().indexCost!;
  const fills = ix.rows.map((row) => row.fill);
  assert.ok(fills.includes(0.01) && fills.includes(1));
  const full = ix.rows.find((row) => row.fill === 1)!;
  assert.equal(full.entries, ix.maxEndpoints * ix.capacityPerEndpoint, "100% fill holds the whole pool");
  for (const row of ix.rows) {
    assert.equal(row.consistent, true, `fill ${row.fill}: index invariants hold after the run`);
    assert.equal(row.matchedPerOp, ix.chainLength / 2, `fill ${row.fill}: every op matches the shared half of its chain`);
    positiveFinite(row.nsPerOp, `fill ${row.fill}: ns/op`);
    assert.ok(row.entries <= ix.maxEndpoints * ix.capacityPerEndpoint);
  }
  positiveFinite(ix.ratioFullToOnePercent, "ratioFullToOnePercent");
  const control = ix.inCacheControl;
  assert.ok(control.capacityPerEndpoint < ix.capacityPerEndpoint, "the in-cache control is a smaller index");
  assert.equal(control.entries, ix.maxEndpoints * control.capacityPerEndpoint, "the in-cache control is full");
  positiveFinite(control.nsPerOp, "in-cache control ns/op");
  positiveFinite(control.ratioToOnePercent, "in-cache control / 1% fill");
  const counts = ix.counts;
  assert.deepEqual(counts.rows.map((row) => row.fill), [0.01, 1]);
  for (const row of counts.rows) {
    for (const phase of [row.match, row.record]) {
      positiveFinite(phase.ops, `fill ${row.fill}: wasm ops`);
      // Every table bucket, entry record and stamp the operation reads or writes is counted in some line.
      assert.ok(phase.lines.table > 0 && phase.lines.records > 0 && phase.lines.stamps > 0, `fill ${row.fill}: the index's lines are attributed`);
      for (const region of Object.keys(phase.lines) as (keyof typeof phase.lines)[]) assert.ok(phase.coldLines[region] <= phase.lines[region]);
    }
    // Half of each chain is new: its lookups miss, after at least one bucket.
    assert.ok(row.missShare > 0 && row.probeHit >= 1 && row.probeMiss >= 1);
  }
  positiveFinite(counts.opsRatioFullToOnePercent, "op count ratio");
  positiveFinite(counts.coldLinesRatioFullToOnePercent, "modeled miss ratio");
});

test("quick run: memory figures are present and consistent", async () => {
  const m = quickReport().memory!;
  assert.equal(m.decisions, m.requests, "every request got a decision");
  assert.ok(m.prefixHits > 0, "repeated conversations hit the index");
  assert.ok(m.checkpoints.length >= 2);
  assert.equal(m.checkpoints.at(-1)!.requests, m.requests);
  const wasmPage = 65536;
  for (const bytes of [m.afterStartBytes, m.afterWarmupBytes, m.finalBytes, ...m.checkpoints.map((c) => c.linearMemoryBytes)]) {
    positiveFinite(bytes, "linear memory bytes");
    assert.equal(bytes % wasmPage, 0, "linear memory is whole wasm pages");
  }
  assert.equal(m.growthAfterWarmupBytes, m.finalBytes - m.afterWarmupBytes);
  assert.ok(m.finalBytes >= m.afterStartBytes, "linear memory never shrinks");
  // An entry is at least its 8-byte hash and two 4-byte links, plus its share of the table.
  assert.ok(m.index.bytesPerEntry >= 16);
  assert.ok(Math.abs(m.index.bytesPerEntry * m.index.maxEndpoints * m.index.capacityPerEndpoint - m.index.bytesForDefault) < 1e-3);
});

test("quick run: targets are judged from the measured ratios and printed as PASS/MISS lines", async () => {
  const r = quickReport();
  assert.equal(r.targets.length, 6);
  const at16 = r.decisionCost!.rows.find((row) => row.bodyBytes === 16 * KiB)!;
  const at1 = r.decisionCost!.rows.find((row) => row.bodyBytes === KiB)!;
  const expected = new Map([
    ["decision cost at 16 KiB / JSON.parse", at16.ratioToJsonParse],
    ["plugin's own cost at 16 KiB / JSON.parse", at16.pluginOwnRatioToJsonParse],
    ["plugin's own cost at 1 KiB, 8 endpoints, us (this machine)", at1.us.pluginOwn],
    ["plugin's own cost at 1 KiB, 256 / 8 endpoints", r.decisionCost!.manyEndpoints!.pluginOwnRatio],
    ["xxh64 throughput / xxhash-wasm h64Raw", r.xxh64!.ratioToXxhashWasm],
    ["index match + record at 100% fill / 1% fill", r.indexCost!.ratioFullToOnePercent],
  ]);
  for (const t of r.targets) {
    assert.ok(expected.has(t.name), `target "${t.name}" is expected`);
    assert.equal(t.measured, expected.get(t.name));
    assert.equal(t.pass, t.comparison === "<=" ? t.measured <= t.limit : t.measured >= t.limit);
  }
  const text = formatReport(r);
  assert.equal(text.match(/^(PASS|MISS) /gm)?.length, 6);
});

test("CLI: an unknown bench name is refused before anything runs", () => {
  const bad = runCli(["--only", "decision,nonsense"]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown bench "nonsense"/);
  assert.equal(bad.stdout, "");
});
