// Responses stream through the gateway chunk by chunk (SSE is never buffered), and a client that goes away
// resets the stream: the plugin still gets on_log and on_done, and the upstream request is cancelled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage, type ServerResponse } from "node:http";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { startBackend } from "../../src-host/backend/server.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector } from "../support/node-upstreams.ts";

const { gateway, upstream, onClose } = gatewayHarness();

/** Fails a test that would otherwise hang (a buffered stream never delivers its first chunk). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

for (const withPlugin of [false, true]) {
  test(`SSE reaches the client chunk by chunk ${withPlugin ? "through the plugin" : "without a plugin"}`, async () => {
    // The upstream writes its last event only once the client has seen the first one: a gateway that
    // buffered the response would never let this finish.
    let clientSawFirst!: () => void;
    const firstSeen = new Promise<void>((resolve) => (clientSawFirst = resolve));
    const sse = await upstream("sse", (req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write("data: first\n\n");
      firstSeen.then(() => {
        res.write("data: second\n\n");
        res.end("data: [DONE]\n\n");
      });
    });
    const plugin = withPlugin ? { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {} } : undefined;
    const logs = new LogCollector();
    const g = await gateway({ upstreams: [sse.address], plugin }, logs);
    const received: string[] = [];
    const done = new Promise<number>((resolve, reject) => {
      const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": 2 }, agent: false }, (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          received.push(chunk);
          if (received.join("").includes("data: first") && !received.join("").includes("second")) clientSawFirst();
        });
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end("{}");
    });
    await within(firstSeen, 5000, "first SSE event");
    assert.equal(await within(done, 5000, "end of stream"), 200);
    assert.equal(received.join(""), "data: first\n\ndata: second\n\ndata: [DONE]\n\n");
    assert.ok(received.length >= 2, "the events arrived in separate writes");
    const f = parseRequestLine(logs.requestLines()[0])!;
    assert.equal(f.bytes_out, String(Buffer.byteLength(received.join(""))));
    assert.notEqual(f.ttft_ms, "-");
  });
}

test("the simulated vLLM backend streams a chat completion through the gateway", async () => {
  const backend = await startBackend({ id: "sim-1" });
  onClose(() => backend.close());
  const g = await gateway({
    upstreams: [`127.0.0.1:${backend.port}`],
    plugin: { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress", config: {} },
  });
  assert.ok(g.healthChecker.hosts()[0].metrics.includes("vllm:"), "the health check stored the vLLM metrics page");
  const res = await fetch(`${g.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: backend.modelName, stream: true, max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-backend-id"), "sim-1");
  assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
  const text = await res.text();
  const events = text.split("\n\n").filter((e) => e.startsWith("data: "));
  assert.equal(events.at(-1), "data: [DONE]");
  assert.ok(events.length >= 2);
});

test("a client abort resets the stream: on_log and on_done run, the upstream request is cancelled", async () => {
  const upstreamClosed: Array<Promise<void>> = [];
  const open: ServerResponse[] = [];
  const slow = await upstream("slow", (req, res) => {
    req.resume();
    open.push(res);
    upstreamClosed.push(new Promise((resolve) => res.on("close", () => resolve())));
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: first\n\n");
    // Never ends on its own.
  });
  onClose(async () => open.forEach((r) => r.destroy()));
  const logs = new LogCollector();
  const g = await gateway({ upstreams: [slow.address], plugin: { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress", config: {} } }, logs);
  const counters = () => g.host!.scrape() as Record<string, number>;
  const before = { log: counters()["fixture.on_log"], done: counters()["fixture.on_done"] };

  // 1. Abort after the response started.
  await new Promise<void>((resolve, reject) => {
    const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": 2 }, agent: false }, (res) => {
      res.once("data", () => {
        req.destroy();
        resolve();
      });
    });
    req.on("error", () => {});
    req.on("timeout", reject);
    req.end("{}");
  });
  const line = parseRequestLine(await within(logs.waitFor((l) => l.startsWith("gw req ")), 5000, "log line"))!;
  assert.equal(line.flags, "DC");
  assert.equal(line.status, "200");
  await within(upstreamClosed[0], 5000, "upstream close");
  assert.equal(counters()["fixture.on_log"], before.log + 1);
  assert.equal(counters()["fixture.on_done"], before.done + 1);

  // 2. Abort while the plugin still holds the request (body not complete): nothing reaches the upstream.
  const seenBefore = slow.seen.length;
  const req = request(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "content-length": 100 }, agent: false });
  req.on("error", () => {});
  req.write("{\"partial\":");
  // Wait until the gateway has the stream open, then go away.
  const streamOpen = (async () => {
    while (!g.host!.workers.some((w) => w.streams.size > 0)) await new Promise((r) => setImmediate(r));
  })();
  await within(streamOpen, 5000, "stream open");
  req.destroy();
  const held = parseRequestLine(await within(logs.waitFor((l) => l.startsWith("gw req id=2 ")), 5000, "log line"))!;
  assert.equal(held.flags, "DC");
  assert.equal(held.status, "0");
  assert.equal(held.endpoint, "-");
  assert.equal(slow.seen.length, seenBefore);
  assert.equal(counters()["fixture.on_log"], before.log + 2);
  assert.equal(counters()["fixture.on_done"], before.done + 2);
  assert.ok(g.host!.workers.every((w) => w.streams.size === 0), "the stream contexts were deleted");
});

/** Writes `total` bytes to `out` as fast as it drains; `done` resolves true once all are written, `stalled`
 *  once a write has waited `quietMs` for a drain that did not come (the reader stopped taking bytes). */
function pushBytes(out: NodeJS.WritableStream, total: number, quietMs: number): { done: Promise<boolean>; stalled: Promise<boolean> } {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  let markStalled!: (v: boolean) => void;
  const stalled = new Promise<boolean>((resolve) => (markStalled = resolve));
  const done = new Promise<boolean>((resolve) => {
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!out.write(chunk)) {
          const quiet = setTimeout(() => markStalled(false), quietMs);
          out.once("drain", () => {
            clearTimeout(quiet);
            pump();
          });
          return;
        }
      }
      out.end();
      resolve(true);
    };
    pump();
  });
  return { done, stalled };
}

// More than loopback socket buffers and Node's stream buffers hold together, so only a reader can take it all.
const FLOW_BYTES = 64 * 1024 * 1024;

for (const withPlugin of [false, true]) {
  test(`a client that stops reading stops the upstream instead of filling the gateway's memory ${withPlugin ? "(plugin)" : "(no plugin)"}`, async () => {
    let upstreamWrite!: ReturnType<typeof pushBytes>;
    let started!: () => void;
    const upstreamStarted = new Promise<void>((resolve) => (started = resolve));
    const bulk = await upstream("bulk", (req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/octet-stream" });
      upstreamWrite = pushBytes(res, FLOW_BYTES, 500);
      started();
    });
    const plugin = withPlugin ? { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {} } : undefined;
    const g = await gateway({ upstreams: [bulk.address], plugin });
    const res = await new Promise<IncomingMessage>((resolve, reject) => request(`${g.url}/download`, { agent: false }, resolve).on("error", reject).end());
    res.pause(); // reads nothing until the upstream has stalled
    await within(upstreamStarted, 10_000, "the upstream's response");
    const finishedFirst = await Promise.race([upstreamWrite.done, upstreamWrite.stalled]);
    assert.equal(finishedFirst, false, "the upstream wrote everything while the client read nothing: the gateway buffered it");
    let received = 0;
    res.on("data", (c: Buffer) => (received += c.length));
    const ended = new Promise((resolve) => res.on("end", resolve));
    res.resume();
    await within(ended, 30_000, "the rest of the response");
    assert.equal(received, FLOW_BYTES, "every byte arrives once the client reads");
  });
}

test("an upstream that stops reading the request body stops the gateway reading it from the client", async () => {
  let upstreamReq!: IncomingMessage;
  let gotRequest!: () => void;
  const requested = new Promise<void>((resolve) => (gotRequest = resolve));
  const sink = await upstream("sink", (req, res) => {
    upstreamReq = req;
    req.pause(); // reads nothing until the client has stalled
    let received = 0;
    req.on("data", (c: Buffer) => (received += c.length));
    req.on("end", () => res.end(String(received)));
    gotRequest();
  });
  const g = await gateway({ upstreams: [sink.address] });
  let answer!: (text: string) => void;
  const answered = new Promise<string>((resolve) => (answer = resolve));
  const req = request(`${g.url}/upload`, { method: "POST", headers: { "content-length": FLOW_BYTES }, agent: false }, (res) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (c: string) => (text += c));
    res.on("end", () => answer(text));
  });
  const clientWrite = pushBytes(req, FLOW_BYTES, 500);
  await within(requested, 10_000, "the request reaching the upstream");
  const finishedFirst = await Promise.race([clientWrite.done, clientWrite.stalled]);
  assert.equal(finishedFirst, false, "the client sent everything while the upstream read nothing: the gateway buffered it");
  upstreamReq.resume();
  assert.equal(await within(answered, 30_000, "the upstream's answer"), String(FLOW_BYTES));
});
