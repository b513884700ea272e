// The failure EWMA (core/failure-tracker.ts, picker/response-outcome.ts) through the Higress build: with the failure
// scorer weighted, an endpoint answering 5xx, reset by its upstream mid-response, or retried on another host is
// avoided, and one whose clients leave is not; without it (the default), the picker does not read the response at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FilterStream } from "../../../src-host/host/filter-stream.ts";
import { RESPONSE_FLAG_BITS } from "../../../src-host/host/response-flags.ts";
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

const enc = new TextEncoder();

/** Sends distinct short prompts; requests to `failing` end as `end` says (default: a 503), the others with a 200 from
 *  the chosen host. Returns how many went to `failing`. */
function sendAll(h: StaticClusterHarness, failing: string, n: number, from: number, end?: (s: FilterStream) => void): number {
  let toFailing = 0;
  for (let i = from; i < from + n; i++) {
    const s = h.send({ model: "m", messages: [{ role: "user", content: `unrelated question number ${i}` }] });
    const chosen = h.chosen(s);
    s.state.upstreamAddress = chosen;
    if (chosen === failing) toFailing++;
    if (chosen === failing && end) end(s);
    else h.complete(s, chosen === failing ? 503 : 200);
  }
  return toFailing;
}

/** The gateway's teardown of a stream with these response flags (proxied-request.ts: resetClient, onClientClose). */
function resetWith(s: FilterStream, flag: string): void {
  s.state.responseFlags |= RESPONSE_FLAG_BITS[flag];
  s.reset();
}

/** Where later requests go when every endpoint answers: how many of n go to `a`. */
function shareOf(h: StaticClusterHarness, a: string, n: number, from = 100): number {
  return sendAll(h, a, n, from, (s) => h.complete(s, 200));
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

test("clients that leave before the response are no failure of their endpoint", () => {
  const h = harness({ weights: { failure: 4 } });
  // Envoy answers every upstream failure before the response with a local reply through the filter; a stream with no
  // response headers at all was left by its client (DC).
  sendAll(h, A, 20, 0, (s) => resetWith(s, "DC"));
  assert.ok(shareOf(h, A, 40) >= 10, "both endpoints keep their share");
});

test("client errors (4xx: a bad request, a rate limit) are no failure of their endpoint", () => {
  for (const status of [400, 404, 429]) {
    const h = harness({ weights: { failure: 4 } });
    sendAll(h, A, 20, 0, (s) => h.complete(s, status));
    assert.ok(shareOf(h, A, 40) >= 10, `after ${status}s both endpoints keep their share`);
  }
});

test("clients that leave mid-response are no failure of their endpoint", () => {
  const h = harness({ weights: { failure: 4 } });
  sendAll(h, A, 20, 0, (s) => {
    s.encodeHeaders([[":status", "200"]], false);
    s.encodeData(enc.encode("data: {}\n\n"), false);
    resetWith(s, "DC");
  });
  assert.ok(shareOf(h, A, 40) >= 10, "both endpoints keep their share");
});

test("an upstream reset after the response started is a failure of the endpoint", () => {
  const h = harness({ weights: { failure: 4 } });
  // router.cc onUpstreamReset after the response started: the flag is set and the client reset; the status stays 200.
  sendAll(h, A, 20, 0, (s) => {
    s.encodeHeaders([[":status", "200"]], false);
    s.encodeData(enc.encode("data: {}\n\n"), false);
    resetWith(s, "UC");
  });
  assert.ok(shareOf(h, A, 40) <= 5, "later requests go to the endpoint that answers");
});

test("a request another host answered (a retry) is a failure of the endpoint the picker chose", () => {
  const h = harness({ weights: { failure: 4 } });
  // A retry never reuses the override (router.h overrideHostToSelect): B answers A's requests with a 200.
  sendAll(h, A, 20, 0, (s) => {
    s.state.upstreamAddress = B;
    h.complete(s, 200);
  });
  assert.ok(shareOf(h, A, 40) <= 5, "later requests go to the endpoint that answers");
});

test("an upstream address the cluster does not list proves nothing", () => {
  const h = harness({ weights: { failure: 4 } });
  sendAll(h, A, 20, 0, (s) => {
    s.state.upstreamAddress = "a-host-name:8000";
    h.complete(s, 200);
  });
  assert.ok(shareOf(h, A, 40) >= 10, "both endpoints keep their share");
});

test("a failing endpoint left alone is tried again once its failure rate has faded (feedback.failureHalfLifeMs)", () => {
  for (const [halfLifeMs, recovers] of [[undefined, true], [60_000, true], [0, false]] as const) {
    const feedback = halfLifeMs === undefined ? {} : { failureHalfLifeMs: halfLifeMs };
    const h = harness({ weights: { failure: 4 }, feedback });
    sendAll(h, A, 20, 0);
    assert.ok(shareOf(h, A, 40) <= 5, `half-life ${halfLifeMs}: avoided at first`);
    // Ten minutes without a request to it: A's rate has halved ten or more times, unless decay is off.
    h.clock.advanceTo(h.clock.nowMs() + 600_000);
    const share = shareOf(h, A, 40, 200); // new prompts: the index holds the earlier ones on B
    if (recovers) assert.ok(share >= 10, `half-life ${halfLifeMs}: both endpoints share again (A got ${share})`);
    else assert.ok(share <= 5, `half-life 0: A stays avoided (got ${share})`);
  }
});
