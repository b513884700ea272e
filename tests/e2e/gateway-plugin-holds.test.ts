// A request body or a response the plugin holds (StopIteration in on_response_headers, StopIterationAndBuffer in a
// body callback) and later lets go with continue_stream, as Envoy runs it: envoy context.cc Context::continueStream →
// continueEncoding → filter_manager.cc ActiveStreamFilterBase::commonContinue, whose doHeaders/doData go through
// FilterManager::encodeHeaders/encodeData (each resets the stream idle timer) straight on to the client, and the
// response ends only when the held end_stream is let go.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage, type ServerResponse } from "node:http";
import { StreamType } from "../../src-host/host/abi.ts";
import type { GatewayHandle } from "../../src-host/gateway/gateway.ts";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector } from "../support/node-upstreams.ts";

const { gateway, upstream } = gatewayHarness();

const conformancePlugin = async () => ({
  wasm: await compileFixture("tests/guest/conformance-plugin.ts"),
  flavor: "higress" as const,
  config: "conformance",
  workers: 1,
  logLevel: 2,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with what `promise` gives, or with `fallback` after `ms`. */
function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  return Promise.race([promise, sleep(ms).then(() => fallback)]);
}

/** The plugin calls continue_stream for the gateway's one stream in flight, from its root context. */
function continueStream(g: GatewayHandle, type: number): void {
  const worker = g.host!.workers[0];
  const ids = [...worker.streams.keys()];
  assert.equal(ids.length, 1, "one stream in flight");
  worker.vm.call("conformance_continue_stream", [ids[0], type], worker.rootContextId);
}
const continueResponse = (g: GatewayHandle) => continueStream(g, StreamType.HttpResponse);

/** An upstream that answers headers at once and the body when the test says so. */
async function heldUpstream() {
  let answer: ServerResponse | null = null;
  let headersSent!: () => void;
  const sent = new Promise<void>((r) => (headersSent = r));
  const u = await upstream("held", (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" });
    res.flushHeaders();
    answer = res;
    headersSent();
  });
  return { u, headersSent: sent, finish: (body: string) => answer!.end(body), reset: () => answer!.socket?.destroy() };
}

/** A POST of the "hold-response" scenario through a gateway (with `options`) to a held upstream; `headersHeld`
 *  resolves once the upstream sent its headers and the plugin's on_response_headers held them. */
async function heldResponse(options: { requestTimeoutMs?: number; streamIdleTimeoutMs?: number } = {}) {
  const up = await heldUpstream();
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [up.u.address], ...options, plugin: await conformancePlugin() }, logs);
  const r = post(g.url, "hold-response");
  const headersHeld = async () => {
    await up.headersSent;
    await logs.waitFor((l) => l.includes("CHECK resp_status 200"));
  };
  return { up, logs, g, r, headersHeld };
}

/** The router's local reply reached the client while the plugin held the response headers: sent directly (not
 *  through the filter) in place of them, and logged with its status and response flags. */
async function assertRouterLocalReply(
  r: ReturnType<typeof post>, logs: LogCollector, waitMs: number, status: number, body: string, flags: string,
): Promise<void> {
  const res = await within(r.headers, waitMs, "no answer");
  assert.notEqual(res, "no answer");
  if (typeof res === "string") return;
  assert.equal(res.statusCode, status, "no headers had gone out: the router's local reply replaces them");
  assert.equal(res.headers["x-conformance"], undefined, "sent directly, not through the filter");
  assert.equal(await r.body, body);
  const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
  assert.equal(f.flags, flags);
  assert.equal(f.status, String(status));
}

/** A POST whose response headers and body the test can wait for separately. */
function post(url: string, scenario: string) {
  let onHeaders!: (res: IncomingMessage) => void;
  const headers = new Promise<IncomingMessage>((r) => (onHeaders = r));
  const body = new Promise<string>((resolve) => {
    const req = request(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-length": 2, "x-scenario": scenario }, agent: false }, (res) => {
      onHeaders(res);
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks).toString()));
      res.on("aborted", () => resolve("<reset>"));
    });
    req.on("error", () => resolve("<reset>"));
    req.end("{}");
  });
  return { headers, body };
}

test("held response headers go to the client as soon as the plugin continues, before any body arrives", { timeout: 20_000 }, async () => {
  const { up, logs, g, r, headersHeld } = await heldResponse();
  await headersHeld();
  assert.equal(await within(r.headers, 300, "held"), "held", "on_response_headers returned StopIteration");
  continueResponse(g);
  const res = await within(r.headers, 3000, "still held");
  assert.notEqual(res, "still held", "commonContinue → doHeaders encodes the headers at once");
  if (typeof res === "string") return;
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers["x-conformance"], "seen", "the headers as the plugin left them");
  up.finish("the body");
  assert.equal(await r.body, "the body");
  assert.equal(parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!.flags, "-");
});

test("continuing held response headers restarts the stream idle timer (filter_manager.cc FilterManager::encodeHeaders resetIdleTimer)", { timeout: 20_000 }, async () => {
  // The upstream's body comes 1000 ms after its headers: past the idle timeout counted from the headers, within it
  // counted from the continue at 500 ms.
  const { up, logs, g, r, headersHeld } = await heldResponse({ requestTimeoutMs: 0, streamIdleTimeoutMs: 800 });
  await headersHeld();
  await sleep(500);
  continueResponse(g);
  await sleep(500);
  up.finish("late body");
  const res = await r.headers;
  assert.equal(res.statusCode, 200, "no idle timeout: the continue was activity");
  assert.equal(await r.body, "late body");
  assert.equal(parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!.flags, "-");
});

test("a response body the plugin buffers to its end is sent, and the response ended, only when the plugin continues", { timeout: 20_000 }, async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], plugin: await conformancePlugin() }, logs);
  const r = post(g.url, "hold-response-body");
  await logs.waitFor((l) => /CHECK resp_body_size \d+:end/.test(l));
  assert.equal(await within(r.body, 300, "held"), "held", "the filter holds the end of the stream");
  assert.equal(logs.requestLines().length, 0, "the request is not over");
  continueResponse(g);
  const body = await within(r.body, 3000, "still held");
  assert.equal(JSON.parse(body).upstream, "a", "commonContinue → doData sends the buffered body with end_stream");
  assert.equal(parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!.status, "200");
});

test("the route timeout ends with the upstream response: a response the plugin still holds past it is not cut (router.cc Filter::onUpstreamComplete → cleanup)", { timeout: 20_000 }, async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], requestTimeoutMs: 300, streamIdleTimeoutMs: 0, plugin: await conformancePlugin() }, logs);
  const r = post(g.url, "hold-response-body");
  await logs.waitFor((l) => /CHECK resp_body_size \d+:end/.test(l));
  await sleep(600);
  continueResponse(g);
  const body = await within(r.body, 3000, "still held");
  assert.equal(JSON.parse(body).upstream, "a");
  assert.equal(parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!.flags, "-");
});

test("an upstream reset while the plugin holds the response headers: 503 straight to the client, flag UC (filter_manager.cc sendLocalReply → sendDirectLocalReply)", { timeout: 20_000 }, async () => {
  const { up, logs, r, headersHeld } = await heldResponse();
  await headersHeld();
  up.reset();
  await assertRouterLocalReply(r, logs, 3000, 503, "upstream connect error or disconnect/reset before headers. reset reason: connection termination", "UC");
});

test("a response body the plugin buffers past the buffer limit: 500 while the headers are held, a reset once they went out (filter_manager.cc ActiveStreamEncoderFilter::responseDataTooLarge)", { timeout: 20_000 }, async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  // The upstream's JSON answer is longer than 16 bytes.
  const g = await gateway({ upstreams: [a.address], bufferLimitBytes: 16, plugin: await conformancePlugin() }, logs);
  const held = post(g.url, "hold-response-all");
  const res = await within(held.headers, 3000, "no answer");
  assert.notEqual(res, "no answer");
  if (typeof res === "string") return;
  assert.equal(res.statusCode, 500, "sendLocalReply before the headers went out: sendDirectLocalReply");
  assert.equal(res.headers["x-conformance"], undefined, "not through the filter");
  assert.equal(await held.body, "Internal Server Error");
  const first = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
  assert.equal(first.status, "500");
  assert.equal(first.flags, "-", "no response flag");

  const sent = post(g.url, "hold-response-body");
  assert.equal((await sent.headers).statusCode, 200, "the headers had gone on");
  assert.equal(await within(sent.body, 3000, "still held"), "<reset>", "after the headers only a reset is left");
  const second = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ") && l.includes("id=2 ")))!;
  assert.equal(second.status, "200");
});

test("a request body the plugin holds to its end after letting the headers go reaches the upstream, whole and ended, only when the plugin continues", { timeout: 20_000 }, async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], plugin: await conformancePlugin() }, logs);
  const r = post(g.url, "continue-hold-body");
  await logs.waitFor((l) => /CHECK body_size \d+:end/.test(l));
  assert.equal(await within(r.body, 300, "held"), "held");
  assert.equal(a.seen.length, 0, "the upstream request has not ended");
  continueStream(g, StreamType.HttpRequest);
  const body = await within(r.body, 3000, "still held");
  assert.equal(JSON.parse(body).body, "{}", "commonContinue → doData: the held body, with end_stream");
  assert.equal(a.seen.at(-1)?.body, "{}");
});

test("continuing a held request body restarts the stream idle timer (filter_manager.cc FilterManager::decodeData resetIdleTimer)", { timeout: 20_000 }, async () => {
  // The upstream answers 700 ms after the request's end: past the idle timeout counted from the client's last byte,
  // within it counted from the continue at 500 ms.
  const slow = await upstream("slow", (req, res) => req.on("end", () => setTimeout(() => res.end("late"), 700)).resume());
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [slow.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 1000, plugin: await conformancePlugin() }, logs);
  const r = post(g.url, "continue-hold-body");
  await logs.waitFor((l) => /CHECK body_size \d+:end/.test(l));
  await sleep(500);
  continueStream(g, StreamType.HttpRequest);
  assert.equal(await r.body, "late", "no idle timeout: the continue was activity");
  assert.equal((await r.headers).statusCode, 200);
});

test("a request body the plugin holds in a streaming buffer (StopIterationAndWatermark) past the limit stops the client being read, without a 413 (filter_manager.cc requestDataTooLarge → onDecoderFilterAboveWriteBufferHighWatermark)", { timeout: 30_000 }, async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], bufferLimitBytes: 1024, plugin: await conformancePlugin() }, logs);
  const size = 4 * 1024 * 1024;
  let answered = false;
  const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": size, "x-scenario": "watermark-body" }, agent: false }, () => (answered = true));
  req.on("error", () => {});
  req.write(Buffer.alloc(size, 0x61));
  await logs.waitFor((l) => l.includes("CHECK body_size"));
  await sleep(1500);
  // After StopIterationAndWatermark each body callback gets only its own chunk (context.cc Context::getBuffer): the
  // filter holds their sum.
  const held = logs.lines.map((l) => /CHECK body_size (\d+):/.exec(l)).filter((m) => m !== null).reduce((sum, m) => sum + Number(m[1]), 0);
  req.destroy();
  assert.equal(answered, false, "no 413: the buffer streams");
  assert.ok(held < 1024 * 1024, `the gateway stopped reading: the filter holds ${held} of ${size} bytes`);
});

test("a response body the plugin holds in a streaming buffer (StopIterationAndWatermark) past the limit stops the upstream being read, without a 500; continue_stream lets it all go (ActiveStreamEncoderFilter::responseDataTooLarge → onEncoderFilterAboveWriteBufferHighWatermark)", { timeout: 30_000 }, async () => {
  const size = 4 * 1024 * 1024;
  const big = await upstream("big", (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/plain", "content-length": size });
    res.end(Buffer.alloc(size, 0x62));
  });
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [big.address], bufferLimitBytes: 1024, plugin: await conformancePlugin() }, logs);
  const r = post(g.url, "watermark-response");
  await logs.waitFor((l) => l.includes("CHECK resp_body_size"));
  await sleep(1500);
  const bodySizes = () => logs.lines.map((l) => /CHECK resp_body_size (\d+):/.exec(l)).filter((m) => m !== null).map((m) => Number(m[1]));
  const sizes = bodySizes();
  // Each callback gets only its own chunk (context.cc Context::getBuffer): the filter holds their sum.
  const held = sizes.reduce((sum, n) => sum + n, 0);
  assert.ok(held < 1024 * 1024, `the gateway stopped reading the upstream: the filter holds ${held} of ${size} bytes`);
  assert.equal((await r.headers).statusCode, 200, "no 500: the buffer streams");
  // The plugin holds each new chunk the same way: its body callbacks show the upstream being read again.
  continueResponse(g);
  const more = await within(logs.waitFor((l) => l.includes("CHECK resp_body_size") && bodySizes().length > sizes.length), 3000, "none");
  assert.notEqual(more, "none", "the upstream is read again once the filter let its buffer go");
});

test("the route timeout while the plugin holds the response headers: 504 straight to the client, flag UT (router.cc onResponseTimeout → sendLocalReply → sendDirectLocalReply)", { timeout: 20_000 }, async () => {
  const { logs, r } = await heldResponse({ requestTimeoutMs: 500 });
  await assertRouterLocalReply(r, logs, 5000, 504, "upstream request timeout", "UT");
});

test("the plugin's own local reply, held by its on_response_headers, goes to the client when it continues (filter_manager.cc sendLocalReplyViaFilterChain)", { timeout: 20_000 }, async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], plugin: await conformancePlugin() }, logs);
  const r = post(g.url, "local-hold");
  await logs.waitFor((l) => l.includes("CHECK resp_status 429"));
  assert.equal(await within(r.headers, 300, "held"), "held", "on_response_headers returned StopIteration for the reply");
  continueResponse(g);
  const res = await within(r.headers, 3000, "still held");
  assert.notEqual(res, "still held");
  if (typeof res === "string") return;
  assert.equal(res.statusCode, 429);
  assert.equal(res.headers["x-conformance"], "seen");
  await r.body;
  assert.equal(parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!.flags, "LR");
  assert.equal(a.seen.length, 0);
});

test("a 413 for a body the plugin buffers after letting the headers go resets the upstream request the headers opened (router.cc Filter::onDestroy → resetAll)", { timeout: 20_000 }, async () => {
  let upstreamClosed!: () => void;
  const closed = new Promise<string>((r) => (upstreamClosed = () => r("closed")));
  const a = await upstream("a", (req, res) => {
    req.resume();
    res.on("close", () => upstreamClosed());
  });
  const g = await gateway({ upstreams: [a.address], bufferLimitBytes: 16, plugin: await conformancePlugin() });
  const body = "x".repeat(64);
  const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": body.length, "x-scenario": "continue" }, agent: false });
  const status = new Promise<number>((resolve) => req.on("response", (res) => resolve(res.statusCode ?? 0)));
  req.on("error", () => {});
  req.write(body.slice(0, 8));
  await within(new Promise((r) => setTimeout(r, 300)), 1000, null);
  req.write(body.slice(8, 40));
  assert.equal(await within(status, 3000, 0), 413);
  assert.equal(a.seen.length, 1, "the headers had reached the upstream");
  assert.equal(await within(closed, 3000, "still open"), "closed");
  req.destroy();
});
