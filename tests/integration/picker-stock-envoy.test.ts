// The stock-Envoy build: one worker polls every endpoint's /metrics through proxy_http_call and shares the
// parsed result; every worker routes with it through the x-gateway-destination-endpoint header.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, type Cluster } from "../../src-host/host/cluster.ts";
import { chat, pickerHost, text } from "../support/picker.ts";
import { vllmPage, type EndpointLoad } from "../../src-host/harness/vllm-page.ts";
import { requestHeaders } from "../../src-host/harness/plugin-request.ts";
import { SteppedWallClock } from "../support/stepped-clock.ts";

const PODS = ["10.0.1.1:8000", "10.0.1.2:8000", "10.0.1.3:8000"];

function metricsClusters(states: Map<string, EndpointLoad | "down">, calls: string[]): ClusterRegistry {
  const registry = new ClusterRegistry();
  PODS.forEach((address, i) => {
    const cluster: Cluster = {
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch(req, respond) {
        const path = req.headers.find(([k]) => k === ":path")?.[1];
        const authority = req.headers.find(([k]) => k === ":authority")?.[1];
        calls.push(`${authority}${path}`);
        const s = states.get(address)!;
        if (s === "down") respond(null);
        else respond({ headers: [[":status", "200"], ["content-type", "text/plain"]], body: new TextEncoder().encode(vllmPage(s)), trailers: [] });
      },
    };
    registry.add(cluster);
  });
  return registry;
}

const config = {
  endpoints: PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })),
  metrics: { pollIntervalMs: 200, snapshotTtlMs: 50 },
};

test("one worker polls each endpoint's /metrics and every worker routes on the shared result", () => {
  const states = new Map<string, EndpointLoad | "down">([
    [PODS[0], { waiting: 12, running: 30, kv: 0.9 }],
    [PODS[1], { waiting: 0, running: 1, kv: 0.1 }],
    [PODS[2], { waiting: 7, running: 20, kv: 0.6 }],
  ]);
  const calls: string[] = [];
  const h = pickerHost({ flavor: "envoy", workers: 3, config, clusters: metricsClusters(states, calls) });
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  // Each endpoint is polled once per interval, by one worker only (configure polls once per VM at start).
  const perEndpoint = new Map<string, number>();
  for (const c of calls) perEndpoint.set(c, (perEndpoint.get(c) ?? 0) + 1);
  assert.deepEqual([...perEndpoint.keys()].sort(), PODS.map((p) => `${p}/metrics`).sort());
  for (const n of perEndpoint.values()) assert.ok(n >= 5 && n <= 7, `polled ${n} times in 1 s at 200 ms`);
  for (let w = 0; w < 3; w++) {
    const s = h.send(chat(text(w, 400), [], "q"), [], { worker: w });
    assert.equal(h.chosen(s), PODS[1], `worker ${w}`);
    h.complete(s);
  }
});

test("an endpoint whose /metrics keeps failing is marked unhealthy and avoided", () => {
  const states = new Map<string, EndpointLoad | "down">([
    [PODS[0], { waiting: 0, running: 0, kv: 0.0 }],
    [PODS[1], { waiting: 5, running: 9, kv: 0.5 }],
    [PODS[2], { waiting: 5, running: 9, kv: 0.5 }],
  ]);
  const calls: string[] = [];
  const h = pickerHost({ flavor: "envoy", config, clusters: metricsClusters(states, calls) });
  h.clock.advanceTo(h.clock.nowMs() + 500);
  assert.equal(h.chosen(h.send(chat(text(1, 300), [], "q"))), PODS[0]);
  states.set(PODS[0], "down");
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  for (let i = 0; i < 6; i++) assert.notEqual(h.chosen(h.send(chat(text(10 + i, 300), [], "q"))), PODS[0]);
  assert.ok(h.counter("poll_failures") >= 3);
});

test("the stock build refuses a configuration without endpoints", () => {
  assert.throws(() => pickerHost({ flavor: "envoy", config: {} }));
});

test("without allow_on_headers_stop_iteration the body does not reach the filter; the watchdog resumes the request", () => {
  const states = new Map<string, EndpointLoad | "down">(PODS.map((p) => [p, { waiting: 0, running: 0, kv: 0.1 }]));
  const h = pickerHost({ flavor: "envoy", allowOnHeadersStopIteration: false, config, clusters: metricsClusters(states, []) });
  const s = h.send(chat(text(2, 300), [], "q"));
  assert.equal(s.requestState, "stalled");
  let resumed = 0;
  s.onChange = () => resumed++;
  h.clock.advanceTo(h.clock.nowMs() + 2500);
  assert.equal(s.requestState, "forwarded");
  assert.equal(resumed, 1, "the gateway is told the request may go on");
  assert.equal(h.chosen(s), null, "no decision without a body: the fallback load balancer decides");
  assert.equal(h.counter("fallback.body_not_delivered"), 1);
  assert.equal(new TextDecoder().decode(s.state.properties.get("endpoint_picker.fallback")), "body_not_delivered",
    "the stream, not the root context the timer runs in, carries the fallback for its access log");
  assert.ok(h.logs.some((m) => m.includes("allow_on_headers_stop_iteration")));
  h.complete(s);
});

test("a wall clock stepped back while a request waits for its body does not keep the watchdog from resuming it", () => {
  const states = new Map<string, EndpointLoad | "down">(PODS.map((p) => [p, { waiting: 0, running: 0, kv: 0.1 }]));
  const clock = new SteppedWallClock();
  const h = pickerHost({ flavor: "envoy", allowOnHeadersStopIteration: false, clock, config, clusters: metricsClusters(states, []) });
  const s = h.send(chat(text(4, 300), [], "q"));
  assert.equal(s.requestState, "stalled");
  clock.offsetMs -= 3_600_000;
  clock.pass(2500);
  assert.equal(s.requestState, "forwarded", "not held until the wall clock catches up");
  assert.equal(h.counter("fallback.body_not_delivered"), 1);
  h.complete(s);
});

test("a stalled request whose trailers came is still let go by the watchdog: Envoy gives the filter neither until it continues", () => {
  const states = new Map<string, EndpointLoad | "down">(PODS.map((p) => [p, { waiting: 0, running: 0, kv: 0.1 }]));
  const h = pickerHost({ flavor: "envoy", allowOnHeadersStopIteration: false, config, clusters: metricsClusters(states, []) });
  const body = new TextEncoder().encode(JSON.stringify(chat(text(3, 300), [], "q")));
  const s = h.host.newStream({});
  s.decodeHeaders(requestHeaders(body.length), false);
  s.decodeData(body, false);
  s.decodeTrailers([["x-checksum", "abc"]]);
  assert.equal(s.requestState, "stalled");
  h.clock.advanceTo(h.clock.nowMs() + 2500);
  assert.equal(s.requestState, "forwarded", "resumed, not left waiting for the stream idle timeout");
  assert.deepEqual(s.calls.slice(2), ["proxy_on_request_body", "proxy_on_request_trailers"], "both reach the filter after it continues");
  assert.deepEqual(s.takeReleasedBody(), body);
  assert.equal(h.chosen(s), null);
  assert.equal(h.counter("fallback.body_not_delivered"), 1);
  h.complete(s);
});

test("the stock build also drops an endpoint's index entries when its engine restarts (prefix-cache counters go back)", () => {
  let queries = 1000;
  const registry = new ClusterRegistry();
  PODS.forEach((address, i) => {
    registry.add({
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch(_req, respond) {
        // Only the first endpoint is idle, so the prompt goes there; its counters are `queries`.
        const load: EndpointLoad = i === 0 ? { waiting: 0 } : { waiting: 5, running: 9, kv: 0.5 };
        const page = vllmPage(load, { metrics: { prefixCacheQueries: i === 0 ? queries : 5000, prefixCacheHits: 0 } });
        respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(page), trailers: [] });
      },
    });
  });
  const h = pickerHost({ flavor: "envoy", workers: 1, config: { ...config, debug: { header: true } }, clusters: registry });
  const matched = (prompt: object): number => {
    const s = h.send(prompt);
    s.encodeHeaders([[":status", "200"]], false);
    const debug = s.state.responseHeaders!.get("x-endpoint-picker-debug")!;
    h.complete(s);
    return Number(/matched=(\d+)/.exec(debug)![1]);
  };
  const prompt = chat(text(11, 4000), [], "q");
  h.clock.advanceTo(h.clock.nowMs() + 500);
  matched(prompt);
  queries = 3000; // the same engine, busier
  h.clock.advanceTo(h.clock.nowMs() + 500);
  assert.ok(matched(prompt) > 0, "the index remembers the prompt");
  queries = 10; // a new process counts from zero
  h.clock.advanceTo(h.clock.nowMs() + 500);
  assert.ok(matched(prompt) > 0, "one low page is not believed alone (a series missing, or cut short)");
  queries = 40; // the next poll reads low too: a restart
  h.clock.advanceTo(h.clock.nowMs() + 500);
  assert.equal(matched(prompt), 0, "a restarted engine holds nothing the index remembered");
});
