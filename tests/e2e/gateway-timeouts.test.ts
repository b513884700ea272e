// The gateway's two stream timers, as Envoy's: the route timeout starts only once the router has the whole request
// (router.cc Filter::onRequestComplete), so the time a slow upload and the plugin holding it take do not count; the
// HTTP connection manager's stream idle timeout fires after a silence in either direction (conn_manager_impl.cc
// ActiveStream::onIdleTimeout): 408 mid-request, 504 once the request is in, a reset once the response started; a
// route's idle_timeout replaces it. The HCM's request_timeout and request_headers_timeout are off unless set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector } from "../support/node-upstreams.ts";

const { gateway, upstream } = gatewayHarness();

/** A plugin that holds each request until its last body byte (StopIterationAndBuffer), as the picker does. */
const bufferingPlugin = async () => ({ wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {} });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Outcome = { status: number; body: string; chunks: string[] } | "reset" | "no answer";

/**
 * POSTs a body of `declared` bytes, of which it sends `chunks` one every `gapMs`; `waitMs` after the request started
 * without an answer it gives up ("no answer").
 */
function upload(url: string, chunks: string[], gapMs: number, declared: number, waitMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => {
      req.destroy();
      resolve("no answer");
    }, waitMs);
    const done = (o: Outcome) => {
      clearTimeout(deadline);
      resolve(o);
    };
    const req = request(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-length": declared }, agent: false }, (res) => {
      const received: string[] = [];
      res.on("data", (c: Buffer) => received.push(c.toString()));
      res.on("end", () => done({ status: res.statusCode ?? 0, body: received.join(""), chunks: received }));
      res.on("aborted", () => done("reset"));
      res.on("error", () => done("reset"));
    });
    req.on("error", () => done("reset"));
    req.flushHeaders();
    void (async () => {
      for (const c of chunks) {
        await sleep(gapMs);
        if (req.destroyed) return;
        req.write(c);
      }
      if (chunks.join("").length === declared) req.end();
    })();
  });
}

test("the route timeout starts once the whole request has passed the plugin: an upload longer than it succeeds", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [a.address], requestTimeoutMs: 200, streamIdleTimeoutMs: 5000, plugin: await bufferingPlugin() }, logs);
  // Eight pieces 100 ms apart: the upload and the plugin's hold last about four route timeouts.
  const pieces = ['{"messages":[', '{"role":"user",', '"content":', '"a slow', " upload", ' body"', "}", "]}"];
  const body = pieces.join("");
  const r = await upload(g.url, pieces, 100, body.length, 5000);
  assert.ok(typeof r !== "string", `an answer, got ${String(r)}`);
  if (typeof r === "string") return;
  assert.equal(r.status, 200, r.body);
  assert.equal(a.seen.at(-1)?.body, body);
  assert.equal(parseRequestLine(logs.requestLines()[0])!.flags, "-");
});

test("stream idle timeout mid-upload: body chunks keep it off, a silence then gets 408 'stream timeout', flag SI", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  // No route timeout: only the idle timer can end this request.
  const g = await gateway({ upstreams: [a.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 400, plugin: await bufferingPlugin() }, logs);
  // Five chunks 100 ms apart (longer than the idle timeout in all), then nothing of the 100 bytes declared.
  const r = await upload(g.url, ["0123456789", "0123456789", "0123456789", "0123456789", "0123456789"], 100, 100, 5000);
  assert.ok(typeof r !== "string", `an answer, got ${String(r)}`);
  if (typeof r === "string") return;
  assert.equal(r.status, 408, "the request is not complete: conn_manager_impl.cc onIdleTimeout → maybeRequestTimeoutCode(false)");
  assert.equal(r.body, "stream timeout");
  const f = parseRequestLine(logs.requestLines()[0])!;
  assert.equal(f.flags, "SI");
  assert.equal(f.bytes_in, "50", "every chunk arrived before the timeout: each one reset it");
  assert.equal(a.seen.length, 0, "the plugin never let the request go");
});

test("stream idle timeout after the response started: chunks keep it off, a silent upstream then gets the client reset, flag SI", async () => {
  let sent = 0;
  const silent = await upstream("silent", (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    // Five events 100 ms apart (longer than the idle timeout in all), then silence without an end.
    const tick = setInterval(() => {
      res.write(`data: ${sent++}\n\n`);
      if (sent === 5) clearInterval(tick);
    }, 100);
    res.on("close", () => clearInterval(tick));
  });
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [silent.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 400, plugin: await bufferingPlugin() }, logs);
  const received: string[] = [];
  const outcome = await new Promise<string>((resolve) => {
    const deadline = setTimeout(() => resolve("no answer"), 5000);
    const done = (o: string) => {
      clearTimeout(deadline);
      resolve(o);
    };
    const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": 2 }, agent: false }, (res) => {
      res.on("data", (c: Buffer) => received.push(c.toString()));
      res.on("end", () => done("end"));
      res.on("aborted", () => done("reset"));
      res.on("error", () => done("reset"));
    });
    req.on("error", () => done("reset"));
    req.end("{}");
  });
  assert.equal(outcome, "reset", "sendLocalReply after the response headers went out resets the stream");
  assert.match(received.join(""), /data: 4\n\n/, "every event arrived before the timeout: each one reset it");
  const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
  assert.equal(f.flags, "SI");
  assert.equal(f.status, "200");
  assert.equal(f.details, "stream_idle_timeout", "DownstreamFilterManager::sendLocalReply sets the details before it resets");
});

test("stream idle timeout before the response: a silent upstream gets 504 'stream timeout', flag SI, without a route timeout", async () => {
  const silent = await upstream("silent", (req) => req.resume());
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [silent.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 300, plugin: await bufferingPlugin() }, logs);
  const r = await upload(g.url, ["{}"], 0, 2, 5000);
  assert.ok(typeof r !== "string", `an answer, got ${String(r)}`);
  if (typeof r === "string") return;
  assert.equal(r.status, 504, "the whole request was received: maybeRequestTimeoutCode(true)");
  assert.equal(r.body, "stream timeout");
  assert.equal(parseRequestLine(logs.requestLines()[0])!.flags, "SI");
  assert.equal(silent.seen.length, 1);
});

test("HCM request_timeout: a request that has not passed the plugin in time gets 408 'request timeout' (conn_manager_impl.cc ActiveStream::onRequestTimeout)", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  // Chunks every 100 ms keep the idle timer off; the request timeout counts from the stream's start regardless.
  const g = await gateway({ upstreams: [a.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 5000, hcmRequestTimeoutMs: 500, plugin: await bufferingPlugin() }, logs);
  const pieces = Array.from({ length: 20 }, () => "0123456789");
  const r = await upload(g.url, pieces, 100, 1000, 5000);
  assert.ok(typeof r !== "string", `an answer, got ${String(r)}`);
  if (typeof r === "string") return;
  assert.equal(r.status, 408, "the request is not complete: maybeRequestTimeoutCode(false)");
  assert.equal(r.body, "request timeout");
  assert.equal(parseRequestLine(logs.requestLines()[0])!.flags, "-", "onRequestTimeout sets no response flag");
  assert.equal(a.seen.length, 0);
});

test("HCM request_timeout stops once the whole request has passed the plugin: a slow upstream answer is not cut by it", async () => {
  const slow = await upstream("slow", (req, res) => req.on("end", () => setTimeout(() => res.end("late"), 800)).resume());
  const g = await gateway({ upstreams: [slow.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 5000, hcmRequestTimeoutMs: 300, plugin: await bufferingPlugin() });
  const r = await upload(g.url, ["{}"], 0, 2, 5000);
  assert.ok(typeof r !== "string", `an answer, got ${String(r)}`);
  if (typeof r === "string") return;
  assert.equal(r.status, 200, "filter_manager.cc decodeData: disarmRequestTimeout() once end_stream passed every filter");
  assert.equal(r.body, "late");
});

test("a route's idle_timeout replaces the HCM's stream_idle_timeout: shorter, it fires; 0 turns the idle timer off (conn_manager_impl.cc ActiveStream::refreshIdleTimeout)", async () => {
  const silent = await upstream("silent", (req) => req.resume());
  const logs = new LogCollector();
  const shorter = await gateway({ upstreams: [silent.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 60_000, routeIdleTimeoutMs: 300, plugin: await bufferingPlugin() }, logs);
  const r = await upload(shorter.url, ["{}"], 0, 2, 5000);
  assert.ok(typeof r !== "string", `an answer, got ${String(r)}`);
  if (typeof r === "string") return;
  assert.equal(r.status, 504);
  assert.equal(r.body, "stream timeout");
  assert.equal(parseRequestLine(logs.requestLines()[0])!.flags, "SI");

  const slow = await upstream("slow", (req, res) => req.on("end", () => setTimeout(() => res.end("late"), 800)).resume());
  const off = await gateway({ upstreams: [slow.address], requestTimeoutMs: 0, streamIdleTimeoutMs: 300, routeIdleTimeoutMs: 0, plugin: await bufferingPlugin() });
  const o = await upload(off.url, ["{}"], 0, 2, 5000);
  assert.ok(typeof o !== "string", `an answer, got ${String(o)}`);
  if (typeof o === "string") return;
  assert.equal(o.status, 200, "the route's 0 disables the HCM's 300 ms");
  assert.equal(o.body, "late");
});

test("HCM request_headers_timeout: headers that do not all arrive in time get 408 and the connection closed; none by default", async () => {
  const a = await upstream("a");
  /** Sends a request line and one header, never the end of the headers; resolves with what came back. */
  const partialHeaders = (port: number) =>
    new Promise<string>((resolve) => {
      const received: Buffer[] = [];
      const socket = connect(port, "127.0.0.1", () => socket.write("POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"));
      const deadline = setTimeout(() => {
        socket.destroy();
        resolve("no answer");
      }, 2500);
      socket.on("data", (d: Buffer) => received.push(d));
      socket.on("close", () => {
        clearTimeout(deadline);
        resolve(Buffer.concat(received).toString());
      });
    });
  const limited = await gateway({ upstreams: [a.address], requestHeadersTimeoutMs: 300 });
  const answer = await partialHeaders(limited.port);
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.ok(answer.endsWith("\r\n\r\nrequest header timeout"), answer);
  const unlimited = await gateway({ upstreams: [a.address] });
  assert.equal(await partialHeaders(unlimited.port), "no answer", "Envoy's request_headers_timeout is off by default");
});

test("an idle keep-alive client connection stays open past Node's 5 s keepAliveTimeout: Envoy's connection idle_timeout defaults to 1 h", { timeout: 30_000 }, async () => {
  const a = await upstream("a");
  const g = await gateway({ upstreams: [a.address] });
  const socket = connect(g.port, "127.0.0.1");
  let closed = false;
  socket.on("close", () => (closed = true));
  socket.on("error", () => {});
  const answered = new Promise<void>((resolve) => socket.once("data", () => resolve()));
  socket.write("POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}");
  await answered;
  // Node closes it about 6 s after the response (its 5 s, checked on a timer).
  await sleep(8000);
  assert.equal(closed, false, "still open after 8 s without a request");
  socket.destroy();
});
