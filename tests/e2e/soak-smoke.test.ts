// Smoke test of `npm run soak`: a 5-second low-rate run of the CLI with --json as a child process. Checks that
// nothing failed, the plugin's inflight gauge is back to 0, the counters agree with what was sent, and the
// report's shape. No latency thresholds: latencies only have to be present.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import type { SoakReport } from "../../src-host/soak/run-soak.ts";

const SECONDS = 5;
const RPS = 24;

test("a 5-second soak: no errors, inflight 0 at the end, counters match the traffic, JSON shape", () => {
  const run = spawnSync(process.execPath, ["--import", "tsx", "src-host/cli/soak.ts", "--json", "--seconds", String(SECONDS), "--rps", String(RPS)], {
    encoding: "utf8",
    // The CLI must end by itself (exitCode, not exit()), so a lingering socket or timer shows up as this timeout.
    timeout: 60_000,
  });
  assert.equal(run.signal, null, `the CLI ended by itself; stderr: ${run.stderr}`);
  const lines = run.stdout.trim().split("\n");
  assert.equal(lines.length, 1, "--json prints exactly one line on stdout");
  const r = JSON.parse(lines[0]) as SoakReport;
  assert.equal(run.status, 0, `exit code; failures: ${JSON.stringify(r.failures)}; stderr: ${run.stderr}`);
  assert.equal(r.ok, true);
  assert.deepEqual(r.failures, []);

  assert.equal(r.errors.total, 0, JSON.stringify(r.errors));
  assert.equal(r.plugin.inflightAtEnd, 0);
  assert.equal(r.drain.trafficProcessExitedCleanly, true);

  // Throughput: every scheduled arrival was sent or counted as dropped, and the arms alternated.
  assert.deepEqual(r.config.arms, ["plugin", "plain", "direct"]);
  assert.equal(r.throughput.scheduled, SECONDS * RPS);
  assert.equal(r.throughput.sent + r.throughput.dropped, r.throughput.scheduled);
  const scheduled = r.arms.map((a) => a.scheduled);
  assert.ok(Math.max(...scheduled) - Math.min(...scheduled) <= 1, `arms alternate: ${scheduled}`);
  for (const a of r.arms) {
    const kinds = Object.values(a.byKind);
    assert.equal(kinds.reduce((n, k) => n + k.sent, 0), a.sent, `${a.name}: kinds add up to sent`);
    assert.equal(a.ok + a.errors, a.sent, `${a.name}: every sent request ended ok or as an error`);
    assert.ok(a.byKind.chat.sent > 0, `${a.name}: chats were sent`);
  }
  const pluginArm = r.arms.find((a) => a.name === "plugin")!;
  const plainArm = r.arms.find((a) => a.name === "plain")!;
  assert.deepEqual(
    Object.fromEntries(Object.entries(pluginArm.byKind).map(([k, c]) => [k, c.sent])),
    Object.fromEntries(Object.entries(plainArm.byKind).map(([k, c]) => [k, c.sent])),
    "both gateways got the same mix of kinds",
  );

  // The plugin saw every request of its arm: a decision for each chat, a fail-open for each odd body.
  assert.equal(r.plugin.requests, pluginArm.sent);
  const fallbacks = Object.values(r.plugin.fallbacks).reduce((a, b) => a + b, 0);
  assert.equal(r.plugin.decisions + fallbacks, r.plugin.requests);
  assert.equal(r.plugin.decisions, pluginArm.byKind.chat.sent + pluginArm.byKind.abort.sent);
  assert.equal(r.gateways.plugin.requests, pluginArm.sent);
  assert.equal(r.gateways.plain.requests, plainArm.sent);

  // Latency: present for each arm, the added figures computed from them.
  for (const name of r.config.arms) {
    const s = r.latency.headersMs[name];
    assert.ok(s.n > 0 && s.p50! > 0 && s.p99! >= s.p50!, `${name}: ${JSON.stringify(s)}`);
  }
  assert.equal(r.latency.pluginAddedMs.p99, r.latency.headersMs.plugin.p99! - r.latency.headersMs.plain.p99!);
  assert.ok(Number.isFinite(r.latency.pluginRatio.p99));
  assert.ok(r.latency.overDirectMs !== null);

  // Memory: a sample at the start, every tenth of the run and after the drain, one linear size per worker.
  assert.ok(r.memory.samples.length >= 11, `${r.memory.samples.length} samples`);
  assert.equal(r.memory.samples[0].at, 0);
  for (const s of r.memory.samples) {
    assert.equal(s.linearMemoryBytes.length, r.config.workers);
    assert.ok(s.rssBytes > 0 && s.linearMemoryBytes.every((b) => b > 0 && b % 65536 === 0));
  }
  assert.equal(r.memory.linearGrewInSecondHalf, false);
  assert.ok(r.cpu.gatewayProcessSeconds > 0 && r.cpu.trafficProcessSeconds > 0);
});
