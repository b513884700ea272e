// Session affinity (core/session-affinity.ts, the session scorer) through the Higress build: with session.header and
// weights.session set, a session's requests follow the endpoint that served its last one, whatever their prompts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";

const PODS = ["10.6.0.1:8000", "10.6.0.2:8000", "10.6.0.3:8000", "10.6.0.4:8000"];

function run(config: object): Map<string, Set<string>> {
  const h = new StaticClusterHarness({ pluginConfig: JSON.stringify(config), log: () => {} });
  h.setEndpoints(PODS.map((address) => ({ address, waiting: 0, kv: 0.2 })));
  const bySession = new Map<string, Set<string>>();
  // Eight sessions, four requests each, interleaved, with prompts that share nothing.
  for (let turn = 0; turn < 4; turn++) {
    for (let session = 0; session < 8; session++) {
      const s = h.send(
        { model: "m", messages: [{ role: "user", content: `session ${session} asks unrelated thing ${turn * 31 + session}` }] },
        { headers: [["x-session-id", `s-${session}`]] },
      );
      const chosen = h.chosen(s)!;
      if (!bySession.has(`s-${session}`)) bySession.set(`s-${session}`, new Set());
      bySession.get(`s-${session}`)!.add(chosen);
      h.complete(s);
    }
  }
  return bySession;
}

test("with session.header and weights.session, every request of a session goes to one endpoint", () => {
  const bySession = run({ session: { header: "x-session-id" }, weights: { session: 8 } });
  for (const [session, endpoints] of bySession) assert.equal(endpoints.size, 1, `${session}: ${[...endpoints]}`);
});

test("without the session signal the same sessions spread over the endpoints", () => {
  const bySession = run({});
  assert.ok([...bySession.values()].some((e) => e.size > 1));
});
