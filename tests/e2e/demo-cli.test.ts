// The demo CLI end to end in its tiny mode: `--quick --json` runs the picker with each plugin build (Higress,
// stock Envoy) and round robin over fresh simulated backends and prints one JSON document; the HTML report
// lands where --report says. Only the shape and the internal consistency of the figures are checked, never their
// values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

test("demo --quick --json prints a row per build and round robin, and writes the HTML report", async () => {
  const dir = mkdtempSync(join(tmpdir(), "demo-cli-"));
  try {
    const report = join(dir, "report.html");
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "src-host/cli/demo.ts", "--quick", "--json", "--report", report],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const result = JSON.parse(stdout);
    assert.match(stderr, /KV-aware picker \(stock Envoy build\): \d+ requests/, "progress goes to stderr under --json");
    assert.equal(result.report, report);
    assert.deepEqual(result.runs.map((r: { mode: string; flavor: string | null }) => [r.mode, r.flavor]), [["picker", "higress"], ["picker", "envoy"], ["round-robin", null]]);
    assert.ok(Number.isInteger(result.totalRequests) && result.totalRequests > 0);
    for (const r of result.runs) {
      const s = r.summary;
      assert.equal(s.requests, result.totalRequests, `${r.mode}: every scripted request was sent`);
      assert.equal(s.errors, 0, `${r.mode}: no errors`);
      assert.ok(s.cacheHitRate >= 0 && s.cacheHitRate <= 1);
      assert.equal(s.cacheHitRate, s.cacheQueryTokens > 0 ? s.cacheHitTokens / s.cacheQueryTokens : 0);
      assert.ok(s.ttftMs.p50 > 0 && s.ttftMs.p50 <= s.ttftMs.p90 && s.ttftMs.p90 <= s.ttftMs.p99);
      assert.equal(r.ttftsMs.length, s.requests - s.errors);
      assert.ok(s.outputTokens > 0 && s.outputTokensPerSecond > 0);
      const served = Object.values(s.byBackend as Record<string, number>).reduce((a, b) => a + b, 0);
      assert.equal(served, s.requests, "every request names the backend that answered it");
      assert.equal(Object.keys(s.byBackend).length <= result.settings.backends, true);
    }
    const [higress, envoy, roundRobin] = result.runs;
    assert.deepEqual(Object.keys(roundRobin.routes), ["no-plugin"]);
    assert.equal(roundRobin.pluginCounters["endpoint_picker.decisions"], undefined);
    for (const picker of [higress, envoy]) {
      assert.equal(picker.pluginCounters["endpoint_picker.decisions"], picker.summary.requests, `${picker.flavor}: the picker decided every request`);
      assert.deepEqual(Object.keys(picker.routes), ["override"], `${picker.flavor}: every request went where the picker said`);
      assert.equal(result.ratiosByFlavor[picker.flavor].cacheHitRate, picker.summary.cacheHitRate / roundRobin.summary.cacheHitRate);
    }
    const html = readFileSync(report, "utf8");
    assert.match(html, /<svg[^>]*>[\s\S]*<path d="M/);
    assert.ok(html.includes("KV-aware picker (Higress build)") && html.includes("KV-aware picker (stock Envoy build)") && html.includes("round robin"));
    assert.ok(!/<script|https?:\/\/(?!www\.w3\.org)/.test(html), "self-contained: no scripts, no external resources");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("demo --report \"\" skips the HTML report and still prints the table", async () => {
  const dir = mkdtempSync(join(tmpdir(), "demo-cli-"));
  try {
    const { stdout } = await run(process.execPath, [join(process.cwd(), "node_modules/tsx/dist/cli.mjs"), join(process.cwd(), "src-host/cli/demo.ts"), "--quick", "--report", ""], {
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
      cwd: dir,
    });
    assert.match(stdout, /round robin +\d+ +0 /);
    assert.match(stdout, /vs round robin: cache hit rate/);
    assert.doesNotMatch(stdout, /report:/);
    assert.deepEqual(readdirSync(dir), [], "nothing written");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("demo rejects a bad option value", async () => {
  await assert.rejects(
    run(process.execPath, ["--import", "tsx", "src-host/cli/demo.ts", "--flavor", "nginx"], { timeout: 30_000 }),
    (e: { code?: number; stderr?: string }) => e.code === 2 && /--flavor must be both, higress or envoy/.test(e.stderr ?? ""),
  );
});
