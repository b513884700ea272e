// The whole simulator on a tiny workload: a policy that reads the true caches beats round-robin on hit
// rate (a property of any sane run, not a figure), the CLI prints one JSON object of the documented shape,
// and the HTML report is written with inline SVG.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPolicies } from "../../src-host/sim/run-policies.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const TINY = {
  name: "tiny",
  seed: 4,
  pods: { count: 4, kvTokens: 16_384, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
  arrival: { qps: 20, durationS: 15 },
  traffic: [
    { type: "shared-prefix", weight: 2, groups: 8, promptsPerGroup: 4, systemTokens: 800, questionTokens: 40, outputTokens: 20 },
    { type: "multi-turn", weight: 1, conversations: 10, turns: [2, 4], systemTokens: 100, userTokens: [20, 60], assistantTokens: [10, 40], thinkTimeS: [0.5, 2] },
  ],
  faults: [{ type: "restart", atS: 8, pod: 1, downS: 2 }],
};

test("precise gets a higher token hit rate than round-robin on a shared-prefix workload, same requests for both", async () => {
  const result = await runPolicies(parseWorkload(TINY), ["round-robin", "precise"]);
  const rr = result.policies["round-robin"];
  const precise = result.policies.precise;
  assert.equal(rr.requests, precise.requests, "both policies see the same arrivals");
  assert.ok(rr.requests > 200);
  assert.ok(rr.completed + rr.failed === rr.requests && precise.completed + precise.failed === precise.requests, "every request ends");
  assert.ok(precise.token_hit_rate > rr.token_hit_rate, `precise ${precise.token_hit_rate} vs round-robin ${rr.token_hit_rate}`);
  assert.ok(rr.ttft_p50_s <= rr.ttft_p90_s && rr.ttft_p90_s <= rr.ttft_p99_s);
  const again = await runPolicies(parseWorkload(TINY), ["round-robin"]);
  assert.deepEqual({ ...again.policies["round-robin"], wall_s: 0 }, { ...rr, wall_s: 0 }, "deterministic by seed");
});

test("the CLI prints one JSON object with every policy's figures and writes the HTML report", () => {
  const dir = mkdtempSync(join(tmpdir(), "sim-"));
  const file = join(dir, "tiny.json");
  const report = join(dir, "report.html");
  writeFileSync(file, JSON.stringify({ ...TINY, arrival: { qps: 10, durationS: 5 } }));
  const withPicker = existsSync("build/higress.wasm") && existsSync("build/envoy.wasm");
  const policies = ["random", "least-request", "consistent-hash", "gie-approx", "oracle", ...(withPicker ? ["picker", "picker-envoy"] : [])];
  const out = execFileSync(
    process.execPath,
    // --wasm as its own argument: the compiler, once loaded, would take it out of argv and import it.
    ["--import", "tsx", "src-host/cli/sim.ts", "--workload", file, "--json", "--policies", policies.join(","), "--report", report,
      ...(withPicker ? ["--wasm", "build/higress.wasm", "--wasm-envoy", "build/envoy.wasm"] : [])],
    { encoding: "utf8" },
  );
  const lines = out.trim().split("\n");
  assert.equal(lines.length, 1, "exactly one JSON line");
  const json = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(json.policies), policies);
  for (const p of policies) {
    for (const key of ["ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "ttft_mean_s", "token_hit_rate", "output_tok_s", "requests", "failed"]) {
      assert.equal(typeof json.policies[p][key], "number", `${p}.${key}`);
      assert.ok(Number.isFinite(json.policies[p][key]));
    }
    assert.ok(json.policies[p].requests > 0);
  }
  if (withPicker) {
    for (const p of ["picker", "picker-envoy"]) assert.equal(json.policies[p].extra.traps, 0, `${p}: the plugin never trapped`);
    // The stock build decides from its own /metrics polls: most requests carry its override.
    const e = json.policies["picker-envoy"].extra;
    assert.ok(e.overrides > e.fallbacks, `stock build: ${e.overrides} overrides, ${e.fallbacks} fallbacks`);
  }
  const html = readFileSync(report, "utf8");
  assert.match(html, /<svg[^>]*>/);
  assert.match(html, /TTFT CDF/);
  assert.ok(!/<script/.test(html), "no scripts, no external libraries");

  // An unknown key is a usage error that names its path.
  writeFileSync(file, JSON.stringify({ ...TINY, pods: { ...TINY.pods, gpus: 8 } }));
  assert.throws(
    () => execFileSync(process.execPath, ["--import", "tsx", "src-host/cli/sim.ts", "--workload", file, "--json"], { encoding: "utf8", stdio: "pipe" }),
    (e: { stderr?: string }) => /workload\.pods\.gpus: unknown key/.test(e.stderr ?? ""),
  );
});
