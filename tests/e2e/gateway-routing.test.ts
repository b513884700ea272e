// The gateway routes as the Envoy/Higress route would after the plugin ran: the Higress override host or the
// stock override-host header when it names a usable host of the cluster, round robin otherwise; connections
// are pinned to one worker VM; one access-log line per request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent } from "node:http";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector, send, type TestUpstream } from "../support/node-upstreams.ts";

const { gateway, upstream } = gatewayHarness();

async function twoUpstreams(): Promise<[TestUpstream, TestUpstream]> {
  return [await upstream("a"), await upstream("b")];
}

const higressFixture = () => compileFixture("tests/guest/higress-target.ts");
const envoyFixture = () => compileFixture("tests/guest/envoy-target.ts");

test("Higress flavor: the override host set by the plugin receives the request, body intact", async () => {
  const [a, b] = await twoUpstreams();
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address, b.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } }, logs);
  for (let i = 0; i < 3; i++) {
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: `hello ${i}` }] });
    const r = await send(g.url, { body, headers: { "x-target": b.address, "content-type": "application/json" } });
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(r.body).upstream, "b");
    assert.equal(b.seen.at(-1)?.body, body);
  }
  assert.equal(a.seen.length, 0);
  assert.deepEqual(g.stats().routes, { override: 3 });
  assert.deepEqual(g.stats().byEndpoint, { [b.address]: 3 });
  for (const line of logs.requestLines()) {
    const f = parseRequestLine(line)!;
    assert.equal(f.route, "override");
    assert.equal(f.endpoint, b.address);
  }
});

test("stock Envoy flavor: the x-gateway-destination-endpoint header the plugin set picks the host", async () => {
  const [a, b] = await twoUpstreams();
  const g = await gateway({
    upstreams: [a.address, b.address],
    plugin: { wasm: await envoyFixture(), flavor: "envoy", config: {}, allowOnHeadersStopIteration: true },
  });
  for (const target of [a, b, a]) {
    const r = await send(g.url, { body: "{}", headers: { "x-target": target.address } });
    assert.equal(JSON.parse(r.body).upstream, target.name);
    assert.equal(target.seen.at(-1)?.headers["x-gateway-destination-endpoint"], target.address, "the header goes upstream as Envoy leaves it");
  }
  // A headers-only request is decided in the headers callback.
  const r = await send(g.url, { method: "GET", path: "/v1/models", headers: { "x-target": b.address } });
  assert.equal(JSON.parse(r.body).upstream, "b");
  assert.deepEqual(g.stats().routes, { override: 4 });
});

test("an override naming a host outside the cluster falls back to round robin (both flavors)", async () => {
  const [a, b] = await twoUpstreams();
  const higress = await gateway({ upstreams: [a.address, b.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } });
  const got: string[] = [];
  for (let i = 0; i < 4; i++) got.push(JSON.parse((await send(higress.url, { body: "{}", headers: { "x-target": "10.9.9.9:8000" } })).body).upstream);
  assert.deepEqual(new Set(got), new Set(["a", "b"]));
  assert.deepEqual(higress.stats().routes, { "fallback:override-unknown-host": 4 });

  // The conformance plugin always asks for 10.0.0.1:8000 through the stock header.
  const conformance = await compileFixture("tests/guest/conformance-plugin.ts");
  const envoy = await gateway({
    upstreams: [a.address, b.address],
    plugin: { wasm: conformance, flavor: "envoy", config: "conformance", allowOnHeadersStopIteration: true, logLevel: 4 },
  });
  const before = a.seen.length + b.seen.length;
  const r1 = await send(envoy.url, { body: "x" });
  const r2 = await send(envoy.url, { body: "y" });
  assert.notEqual(JSON.parse(r1.body).upstream, JSON.parse(r2.body).upstream, "round robin alternates");
  assert.equal(a.seen.length + b.seen.length, before + 2);
  assert.deepEqual(envoy.stats().routes, { "fallback:override-unknown-host": 2 });
});

test("no override from the plugin, or no plugin at all: round robin over the healthy hosts", async () => {
  const [a, b] = await twoUpstreams();
  const plain = await gateway({ upstreams: [a.address, b.address] });
  const order: string[] = [];
  for (let i = 0; i < 4; i++) order.push(JSON.parse((await send(plain.url, { method: "GET", path: "/v1/models" })).body).upstream);
  assert.notEqual(order[0], order[1]);
  assert.equal(order[0], order[2]);
  assert.equal(order[1], order[3]);
  assert.equal(plain.host, null);
  assert.deepEqual(plain.stats().routes, { "no-plugin": 4 });

  const g = await gateway({ upstreams: [a.address, b.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } });
  const seen = new Set<string>();
  for (let i = 0; i < 2; i++) seen.add(JSON.parse((await send(g.url, { body: "{}" })).body).upstream);
  assert.deepEqual(seen, new Set(["a", "b"]));
  assert.deepEqual(g.stats().routes, { "fallback:no-override": 2 });
});

test("each connection is pinned to one worker VM, connections spread round robin", async () => {
  const [a, b] = await twoUpstreams();
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address, b.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {}, workers: 2 } }, logs);
  const agent1 = new Agent({ keepAlive: true, maxSockets: 1 });
  const agent2 = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const seq1: number[] = [];
    for (let i = 0; i < 3; i++) seq1.push(Number((await send(g.url, { body: "{}", agent: agent1 })).headers["x-fixture-seq"]));
    const seq2: number[] = [];
    for (let i = 0; i < 2; i++) seq2.push(Number((await send(g.url, { body: "{}", agent: agent2 })).headers["x-fixture-seq"]));
    // Streams counted by the VM that served them: consecutive on one VM, a fresh count on the other.
    assert.deepEqual(seq1, [seq1[0], seq1[0] + 1, seq1[0] + 2]);
    assert.deepEqual(seq2, [seq2[0], seq2[0] + 1]);
    const workers = logs.requestLines().map((l) => parseRequestLine(l)!.worker);
    assert.equal(new Set(workers.slice(0, 3)).size, 1);
    assert.equal(new Set(workers.slice(3)).size, 1);
    assert.notEqual(workers[0], workers[3]);
  } finally {
    agent1.destroy();
    agent2.destroy();
  }
});

test("one access-log line per request, with the plugin's fail-open reason", async () => {
  const [a, b] = await twoUpstreams();
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address, b.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } }, logs);
  const body = "0123456789";
  await send(g.url, { body, headers: { "x-fallback": "body_too_large" } });
  await send(g.url, { body, headers: { "x-target": a.address } });
  await send(g.url, { method: "GET", path: "/v1/models?x=1" });
  const lines = logs.requestLines();
  assert.equal(lines.length, 3);
  const f = lines.map((l) => parseRequestLine(l)!);
  assert.deepEqual(f.map((x) => x.id), ["1", "2", "3"]);
  assert.deepEqual(f.map((x) => x.fallback), ["body_too_large", "-", "-"]);
  assert.deepEqual(f.map((x) => x.route), ["fallback:no-override", "override", "fallback:no-override"]);
  assert.deepEqual(f.map((x) => x.method), ["POST", "POST", "GET"]);
  assert.equal(f[2].path, "/v1/models?x=1");
  assert.deepEqual(f.map((x) => x.bytes_in), [String(body.length), String(body.length), "0"]);
  assert.deepEqual(f.map((x) => x.status), ["200", "200", "200"]);
  for (const x of f) {
    assert.ok(Number(x.bytes_out) > 0);
    assert.ok(Number(x.ttft_ms) <= Number(x.dur_ms));
  }
  assert.equal(g.stats().requests, 3);
});
