// The demo's verdict: a run with a failed request, or with scripted requests it never sent, is a failure
// (npm start exits 1); a run that sent and completed every request is not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runFailures } from "../../src-host/demo/run-failures.ts";
import type { ModeResult } from "../../src-host/demo/run-comparison.ts";
import type { RunSummary } from "../../src-host/demo/run-summary.ts";

function run(label: string, requests: number, errors: number, errorMessages: string[] = []): ModeResult {
  const summary = { requests, errors, errorMessages } as Partial<RunSummary> as RunSummary;
  return { mode: "picker", flavor: "higress", label, summary, ttftsMs: [], routes: {}, pluginCounters: {} };
}

test("every request sent and answered: no failure", () => {
  assert.deepEqual(runFailures({ totalRequests: 14, runs: [run("a", 14, 0), run("b", 14, 0)] }), []);
});

test("a failed request, or requests never sent, fail the run that had them", () => {
  const lines = runFailures({ totalRequests: 14, runs: [run("a", 14, 0), run("b", 14, 1, ["503 no healthy upstream"]), run("c", 9, 0)] });
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^b: 1 of 14 requests failed, 0 of 14 never sent \(503 no healthy upstream\)$/);
  assert.match(lines[1], /^c: 0 of 9 requests failed, 5 of 14 never sent$/);
});
