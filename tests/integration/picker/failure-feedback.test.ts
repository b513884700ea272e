// The failure EWMA (core/failure-tracker.ts) through the Higress build: with the failure scorer weighted, an
// endpoint answering 5xx is avoided; without it (the default), the picker does not read the response status at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";

const [A, B] = ["10.8.0.1:8000", "10.8.0.2:8000"];

function harness(config: object, hostCalls?: Map<string, number>): StaticClusterHarness {
  const h = new StaticClusterHarness({
    pluginConfig: JSON.stringify(config),
    log: () => {},
    fault: hostCalls
      ? (name) => {
          hostCalls.set(name, (hostCalls.get(name) ?? 0) + 1);
          return undefined;
        }
      : undefined,
  });
  h.setEndpoints([
    { address: A, waiting: 0, kv: 0.1 },
    { address: B, waiting: 0, kv: 0.1 },
  ]);
  return h;
}

/** Sends distinct short prompts; `failing` answers 503, the other 200. Returns how many went to `failing`. */
function sendAll(h: StaticClusterHarness, failing: string, n: number, from: number): number {
  let toFailing = 0;
  for (let i = from; i < from + n; i++) {
    const s = h.send({ model: "m", messages: [{ role: "user", content: `unrelated question number ${i}` }] });
    const chosen = h.chosen(s);
    if (chosen === failing) toFailing++;
    h.complete(s, chosen === failing ? 503 : 200);
  }
  return toFailing;
}

test("with weights.failure on, an endpoint that keeps answering 503 is avoided", () => {
  const h = harness({ weights: { failure: 4 } });
  sendAll(h, A, 20, 0); // A's failures build up its EWMA
  assert.ok(sendAll(h, A, 20, 100) <= 2, "later requests go to the endpoint that answers");
});

test("by default the failure EWMA is not fed: the response status is never read and 503s do not move requests", () => {
  const calls = new Map<string, number>();
  const h = harness({}, calls);
  sendAll(h, A, 20, 0);
  assert.equal(calls.get("proxy_get_header_map_value") ?? 0, 0, "no response header is read");
  assert.ok(sendAll(h, A, 40, 100) >= 10, "without the failure signal both endpoints keep their share");
});
