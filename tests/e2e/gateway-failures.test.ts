// What the gateway answers when things go wrong, as Envoy would: a trapping plugin under each failure policy,
// the 413 for an oversized buffered body, a request the filter never releases (504 at the stream idle timeout), an
// unreachable upstream (503), an upstream reset mid-response, and a plugin's own local reply. The gateway keeps
// serving after each.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector, deadAddress, send } from "../support/node-upstreams.ts";

const { gateway, upstream, onClose } = gatewayHarness();

const higressFixture = () => compileFixture("tests/guest/higress-target.ts");

for (const where of ["trap-headers", "trap-body"]) {
  test(`legacy fail_open: a trap in ${where} still reaches a backend, untouched`, async () => {
    const a = await upstream("a");
    const logs = new LogCollector();
    const g = await gateway({ upstreams: [a.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {}, workers: 1, legacyFailOpen: true, logLevel: 5 } }, logs);
    const body = JSON.stringify({ messages: [{ role: "user", content: "still served" }] });
    const r = await send(g.url, { body, headers: { "x-fixture": where, "x-target": "10.9.9.9:1" } });
    assert.equal(r.status, 200);
    assert.equal(a.seen.at(-1)?.body, body);
    assert.equal(a.seen.at(-1)?.headers["x-fixture"], where, "the bypassed filter changed nothing");
    assert.equal(g.host!.traps, 1);
    // The failed VM is bypassed from now on; requests still flow.
    const next = await send(g.url, { body: "{}" });
    assert.equal(next.status, 200);
    assert.equal(a.seen.length, 2);
    assert.deepEqual(logs.requestLines().map((l) => parseRequestLine(l)!.route), ["fallback:no-override", "fallback:no-override"]);
    // router.cc Filter::onUpstreamHeaders: StreamInfo::ResponseCodeDetails ViaUpstream.
    assert.deepEqual(logs.requestLines().map((l) => parseRequestLine(l)!.details), ["via_upstream", "via_upstream"]);
  });

  test(`failure_policy FAIL_OPEN: a trap in ${where} fails that request with a 503; later ones bypass the filter`, async () => {
    const a = await upstream("a");
    const g = await gateway({ upstreams: [a.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {}, workers: 1, failurePolicy: "FAIL_OPEN", logLevel: 5 } });
    const r = await send(g.url, { body: "{}", headers: { "x-fixture": where } });
    assert.equal(r.status, 503);
    assert.equal(a.seen.length, 0);
    assert.equal((await send(g.url, { body: "{}" })).status, 200);
    assert.equal(a.seen.length, 1);
  });
}

test("FAIL_CLOSED: a trap answers 503 and nothing reaches the backend", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {}, workers: 1, logLevel: 5 } }, logs);
  const r = await send(g.url, { body: "{}", headers: { "x-fixture": "trap-body" } });
  assert.equal(r.status, 503);
  assert.equal(a.seen.length, 0);
  const f = parseRequestLine(logs.requestLines()[0])!;
  assert.equal(f.flags, "LR");
  assert.equal(f.details, "wasm_fail_stream", "context.cc Context::failStream's details (filter_manager.cc sendLocalReply sets them)");
  assert.equal(f.endpoint, "-");
  assert.equal(g.stats().errors, 1);
});

test("a buffered body over bufferLimitBytes gets 413; one under it goes through", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], bufferLimitBytes: 1024, plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } }, logs);
  const small = "s".repeat(1000);
  const ok = await send(g.url, { body: small });
  assert.equal(ok.status, 200);
  assert.equal(a.seen.at(-1)?.body, small);
  const big = await send(g.url, { body: "b".repeat(4096) });
  assert.equal(big.status, 413);
  assert.equal(big.body, "Payload Too Large");
  assert.equal(a.seen.length, 1);
  assert.equal(parseRequestLine(logs.requestLines()[1])!.status, "413");
  // The connection is still usable afterwards.
  assert.equal((await send(g.url, { body: "{}" })).status, 200);
});

test("stock Envoy without allow_on_headers_stop_iteration stalls the request: it never reaches the router, the stream idle timeout ends it (504, SI)", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway(
    {
      upstreams: [a.address],
      // The route timeout never starts: router.cc Filter::onRequestComplete runs only once the request passed every filter.
      requestTimeoutMs: 200,
      streamIdleTimeoutMs: 400,
      plugin: { wasm: await compileFixture("tests/guest/conformance-plugin.ts"), flavor: "envoy", config: "conformance", logLevel: 5 },
    },
    logs,
  );
  const r = await send(g.url, { body: "{}" });
  // conn_manager_impl.cc ActiveStream::onIdleTimeout: the whole request was received, so 504 (maybeRequestTimeoutCode).
  assert.equal(r.status, 504);
  assert.equal(r.body, "stream timeout");
  assert.equal(a.seen.length, 0);
  const f = parseRequestLine(logs.requestLines()[0])!;
  assert.equal(f.flags, "SI");
  assert.equal(g.host!.workers.every((w) => w.streams.size === 0), true, "the stream was torn down");
});

test("request timeout 0 means no timeout, as Envoy's route timeout 0: a slow upstream is waited for", async () => {
  // The upstream answers only after the gateway has had many turns of its event loop.
  const slow = await upstream("slow", (req, res) => {
    req.resume();
    setTimeout(() => res.end("late"), 100);
  });
  const g = await gateway({ upstreams: [slow.address], requestTimeoutMs: 0 });
  const r = await send(g.url, { body: "{}" });
  assert.equal(r.status, 200, r.body);
  assert.equal(r.body, "late");
});

test("an unreachable upstream gets Envoy's 503; the gateway keeps serving", async () => {
  const dead = await deadAddress();
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [dead], plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } }, logs);
  assert.equal(g.healthChecker.hosts()[0].healthStatus, "Unhealthy");
  const r = await send(g.url, { body: "{}" });
  assert.equal(r.status, 503);
  // router.cc onUpstreamReset: RemoteConnectionFailure, with connection_impl.cc's transport failure reason.
  assert.match(r.body, /^upstream connect error or disconnect\/reset before headers\. reset reason: remote connection failure, transport failure reason: delayed connect error: \d+$/);
  const f = parseRequestLine(logs.requestLines()[0])!;
  assert.equal(f.flags, "UF");
  assert.match(f.details, /^upstream_reset_before_response_started\{remote_connection_failure\|delayed_connect_error:_\d+\}$/);
  assert.equal(f.endpoint, dead, "with no healthy host the fallback uses all hosts (panic mode)");
  assert.equal((await send(g.url, { body: "{}" })).status, 503);
  assert.equal(g.stats().errors, 2);
});

test("an upstream that drops the connection before its response headers gets 503 'connection termination', flag UC (router.cc streamResetReasonToResponseFlag)", async () => {
  const dropping = await upstream("dropping", (req) => req.on("end", () => req.socket.destroy()).resume());
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [dropping.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } }, logs);
  const r = await send(g.url, { body: "{}" });
  assert.equal(r.status, 503);
  assert.equal(r.body, "upstream connect error or disconnect/reset before headers. reset reason: connection termination");
  const f = parseRequestLine(logs.requestLines()[0])!;
  assert.equal(f.flags, "UC", "the connection was open: ConnectionTermination, not a connect failure");
  assert.equal(f.details, "upstream_reset_before_response_started{connection_termination}");
  assert.equal(g.stats().errors, 1);
});

test("an upstream reset after the response started resets the client", async () => {
  const broken = await upstream("broken", (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: partial\n\n", () => setTimeout(() => res.socket?.destroy(), 20));
  });
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [broken.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } }, logs);
  const outcome = await new Promise<string>((resolve) => {
    const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": 2 }, agent: false }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve("end"));
      res.on("aborted", () => resolve("aborted"));
      res.on("error", () => resolve("aborted"));
    });
    req.on("error", () => resolve("aborted"));
    req.end("{}");
  });
  assert.equal(outcome, "aborted");
  const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
  assert.equal(f.flags, "UC");
  assert.equal(f.status, "200");
  // router.cc Filter::onUpstreamReset: LateUpstreamReset once downstream_response_started_; sendLocalReply sets the
  // details (the stream's response.code_details) before it resets the downstream stream.
  assert.equal(f.details, "upstream_reset_after_response_started{connection_termination}");
  assert.equal(g.stats().errors, 1);
  const counters = g.host!.scrape() as Record<string, number>;
  assert.equal(counters["fixture.on_log"], 1);
  assert.equal(counters["fixture.on_done"], 1);
});

test("an upstream reset while the filter holds the response headers: the client gets the router's 503 straight (sendDirectLocalReply), and the details say the response had started (router.cc onUpstreamReset: downstream_response_started_)", async () => {
  const broken = await upstream("broken-held", (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream", "x-headers-result": "1", "x-response-body-results": "1" });
    res.write("data: partial\n\n", () => setTimeout(() => res.socket?.destroy(), 20));
  });
  const logs = new LogCollector();
  const plugin = { wasm: await compileFixture("tests/guest/body-results-plugin.ts"), flavor: "higress" as const, config: {} };
  const g = await gateway({ upstreams: [broken.address], plugin }, logs);
  const r = await send(g.url, { body: "{}" });
  assert.equal(r.status, 503);
  assert.equal(r.body, "upstream connect error or disconnect/reset before headers. reset reason: connection termination");
  const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
  assert.equal(f.flags, "UC");
  assert.equal(f.details, "upstream_reset_after_response_started{connection_termination}");
});

test("a response still streaming at the route timeout is cut: the client is reset, flag UT", async () => {
  let release: () => void = () => {};
  const slow = await upstream("slow", (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: first\n\n");
    // Ends only when the test is done with it (an Envoy-like gateway cuts it first).
    release = () => res.end("data: [DONE]\n\n");
  });
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [slow.address], requestTimeoutMs: 300, plugin: { wasm: await higressFixture(), flavor: "higress", config: {} } }, logs);
  const outcome = new Promise<string>((resolve) => {
    const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": 2 }, agent: false }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve("end"));
      res.on("aborted", () => resolve("aborted"));
      res.on("error", () => resolve("aborted"));
    });
    req.on("error", () => resolve("aborted"));
    req.end("{}");
  });
  const line = await Promise.race([logs.waitFor((l) => l.startsWith("gw req ")), new Promise<string>((r) => setTimeout(() => r("none"), 3000))]);
  release();
  assert.equal(await outcome, "aborted", "router.cc onResponseTimeout resets a started response");
  const f = parseRequestLine(line === "none" ? await logs.waitFor((l) => l.startsWith("gw req ")) : line)!;
  assert.equal(f.flags, "UT");
  assert.equal(f.status, "200");
  assert.equal(f.details, "response_timeout", "router.cc onResponseTimeout's details, set before the reset");
  const counters = g.host!.scrape() as Record<string, number>;
  assert.equal(counters["fixture.on_log"], 1);
  assert.equal(counters["fixture.on_done"], 1);
});

test("a local reply from the plugin is sent as the plugin built it", async () => {
  const a = await upstream("a");
  const g = await gateway({ upstreams: [a.address], plugin: { wasm: await compileFixture("tests/guest/conformance-plugin.ts"), flavor: "higress", config: "conformance", logLevel: 5 } });
  const r = await send(g.url, { body: "{}", headers: { "x-scenario": "local-headers" } });
  assert.equal(r.status, 429);
  assert.equal(r.body, "slow down");
  assert.equal(r.headers["x-local"], "1");
  assert.equal(r.headers["content-type"], "text/plain", "http/utility.cc prepareLocalReply: a body without a content-type gets text/plain");
  assert.equal(r.headers["x-conformance"], "seen", "the local reply ran through the response callbacks");
  assert.equal(a.seen.length, 0);
});

test("a trap in the response callbacks: FAIL_CLOSED replaces the response with a 503, legacy fail_open lets it through", async () => {
  const a = await upstream("a");
  const closed = await gateway({ upstreams: [a.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {}, workers: 1, logLevel: 5 } });
  const r = await send(closed.url, { body: "{}", headers: { "x-fixture": "trap-response-headers" } });
  assert.equal(r.status, 503);
  assert.equal(a.seen.length, 1, "the request had reached the upstream");
  const open = await gateway({ upstreams: [a.address], plugin: { wasm: await higressFixture(), flavor: "higress", config: {}, workers: 1, legacyFailOpen: true, logLevel: 5 } });
  const o = await send(open.url, { body: "{}", headers: { "x-fixture": "trap-response-headers" } });
  assert.equal(o.status, 200);
  assert.equal(JSON.parse(o.body).upstream, "a");
});
