// Progress of a long simulator run on stderr: the line names the policy, the virtual time reached, the requests
// sent and an ETA, and comes at most once per interval of wall time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProgressThrottle, formatProgress } from "../../src-host/sim/progress.ts";

test("a progress line names the policy, virtual time, requests and an ETA from the wall time so far", () => {
  const line = formatProgress({ policy: "picker", virtualS: 60, totalVirtualS: 240, requests: 900, wallS: 10 });
  assert.equal(line, "sim: picker 60/240 s virtual (25%), 900 requests, 10 s wall, ETA 30 s");
  assert.match(formatProgress({ policy: "p", virtualS: 0, totalVirtualS: 240, requests: 0, wallS: 1 }), /ETA unknown$/);
});

test("progress is reported at most once per interval of wall time", () => {
  const seen: number[] = [];
  const t = new ProgressThrottle(1000, (p) => seen.push(p.wallS), 0);
  for (const now of [10, 999, 1000, 1500, 1999, 2000, 2100]) t.maybeReport(now, { policy: "p", virtualS: 1, totalVirtualS: 2, requests: 1 });
  assert.deepEqual(seen, [1, 2]);
});
