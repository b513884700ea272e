// proxy_set_buffer_bytes and proxy_get_buffer_bytes on HTTP bodies as upstream Envoy does them: cpp-host exports.cc
// set_buffer_bytes / get_buffer_bytes on the buffer envoy context.cc Context::getBuffer picks (the filter manager's
// while buffering, else request_body_buffer_ / response_body_buffer_), changed by envoy context.cc Buffer::copyFrom.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFixture } from "../support/compile.ts";
import { PluginHost } from "../../src-host/host/plugin-host.ts";
import { BufferType, DataStatus, Status, StreamType } from "../../src-host/host/abi.ts";
import type { HeaderList } from "../../src-host/host/header-map.ts";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const END = 0xffffffff;
const CONTINUE_FROM_CALLBACK = 4;

async function setBufferHost(flavor: "envoy" | "higress" = "envoy") {
  const wasm = await compileFixture("tests/guest/set-buffer-plugin.ts");
  const checks: Array<[string, string]> = [];
  const host = PluginHost.create({
    wasm,
    flavor,
    pluginConfig: "{}",
    log: (_level, message) => {
      const m = /^CHECK (\S+) ?(.*)$/s.exec(message);
      if (m) checks.push([m[1], m[2]]);
    },
  });
  const worker = host.workers[0];
  const root = (name: string, args: number[]) => worker.vm.call(name, args, worker.rootContextId);
  return {
    host,
    values: (name: string) => checks.filter(([n]) => n === name).map(([, v]) => v),
    /** The next body callback writes `count` copies of `char` at (start, length). */
    arm: (start: number, length: number, char: string, count = 1) => root("set_buffer_arm", [start, length, char.charCodeAt(0), count]),
    nextResult: (result: number) => root("set_buffer_next_result", [result]),
    /** A write from the root context on stream `s` (contextId 0: the root context itself). */
    set: (s: FilterStream | null, type: number, start: number, length: number, char: string, count = 1) =>
      root("set_buffer_call", [s ? s.contextId : worker.rootContextId, type, start, length, char.charCodeAt(0), count]),
    get: (s: FilterStream, type: number, start: number, length: number) => root("get_buffer_call", [s.contextId, type, start, length]),
    size: (s: FilterStream, type: number) => root("get_buffer_status_call", [s.contextId, type]),
    continueStream: (s: FilterStream, type: number) => root("set_buffer_continue", [s.contextId, type]),
  };
}

const request: HeaderList = [[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "gateway"], [":scheme", "http"]];

test("in a body callback a write prepends (start 0, draining `length` bytes first), appends (a start at or past the end) or is BadArgument (any other start), and what it makes goes on (context.cc Buffer::copyFrom)", async () => {
  const cases: Array<[number, number, string, string]> = [
    [0, 0, "<abcd", "prepend"],
    [0, 2, "<cd", "drain 2, prepend"],
    [0, END, "<", "replace all"],
    [4, 0, "abcd<", "append at the end"],
    [9, 3, "abcd<", "append past the end, length ignored"],
    [END, 0, "abcd<", "append"],
    [1, 1, "", "a start inside the body"],
    [3, 0, "", "an insert inside the body"],
  ];
  for (const [start, length, want, what] of cases) {
    const h = await setBufferHost();
    const s = h.host.newStream();
    s.decodeHeaders(request, false);
    h.arm(start, length, "<");
    s.decodeData(enc.encode("abcd"), true);
    const status = want === "" ? Status.BadArgument : Status.Ok;
    assert.deepEqual(h.values("set"), [`${status}:${want || "abcd"}`], what);
    assert.equal(dec.decode(s.takeReleasedBody()), want || "abcd", what);
  }
});

test("the response body follows the same rule (context.cc Buffer::copyFrom on response_body_buffer_)", async () => {
  const h = await setBufferHost();
  const s = h.host.newStream();
  s.decodeHeaders(request, true);
  s.encodeHeaders([[":status", "200"]], false);
  h.arm(2, 1, "<");
  assert.equal(dec.decode(s.encodeData(enc.encode("abcd"), false)), "abcd");
  h.arm(0, 1, "<");
  assert.equal(dec.decode(s.encodeData(enc.encode("efgh"), true)), "<fgh");
  assert.deepEqual(h.values("set"), [`${Status.BadArgument}:abcd`, `${Status.Ok}:<fgh`]);
});

for (const flavor of ["envoy", "higress"] as const) {
  test(`${flavor}: after StopIterationAndBuffer another callback of the context writes the buffered body, which is what goes on at continue_stream (exports.cc set_buffer_bytes: any callback; context.cc Context::getBuffer: the decoding buffer while buffering)`, async () => {
    const h = await setBufferHost(flavor);
    const s = h.host.newStream();
    s.decodeHeaders(request, false);
    h.nextResult(DataStatus.StopIterationAndBuffer);
    s.decodeData(enc.encode("ab"), false);
    h.nextResult(DataStatus.StopIterationAndBuffer);
    s.decodeData(enc.encode("cd"), true);
    h.set(s, BufferType.HttpRequestBody, 0, 0, "<");
    h.set(s, BufferType.HttpRequestBody, END, 0, ">");
    h.set(s, BufferType.HttpRequestBody, 2, 0, "x");
    assert.deepEqual(h.values("set"), [`${Status.Ok}:<abcd`, `${Status.Ok}:<abcd>`, `${Status.BadArgument}:<abcd>`]);
    assert.equal(s.takeReleasedBody().length, 0);
    h.continueStream(s, StreamType.HttpRequest);
    assert.equal(dec.decode(s.takeReleasedBody()), "<abcd>");
  });
}

test("with no Envoy buffer behind the body (before any body, after Continue, on a root context) the module reads an empty body and a write is BadArgument (context.cc Context::getBuffer: buffer_.set(nullptr); proxy_wasm::BufferBase::copyFrom)", async () => {
  const h = await setBufferHost();
  const s = h.host.newStream();
  s.decodeHeaders(request, false);
  h.set(s, BufferType.HttpRequestBody, 0, 0, "<");
  s.decodeData(enc.encode("ab"), false);
  h.set(s, BufferType.HttpRequestBody, 0, 0, "<");
  h.set(null, BufferType.HttpRequestBody, 0, 0, "<");
  assert.deepEqual(h.values("set"), [`${Status.BadArgument}:`, `${Status.BadArgument}:`, `${Status.BadArgument}:`]);
  h.size(s, BufferType.HttpRequestBody);
  assert.deepEqual(h.values("status"), ["0"]);
  s.decodeData(enc.encode("cd"), true);
  assert.equal(dec.decode(s.takeReleasedBody()), "abcd");
});

test("continue_stream from a body callback drops the request's chunk at once: the module then reads no request body and cannot write it, and the chunk goes on as it was (context.cc Context::continueStream request_body_buffer_ = nullptr)", async () => {
  const h = await setBufferHost();
  const s = h.host.newStream();
  s.decodeHeaders(request, false);
  h.nextResult(CONTINUE_FROM_CALLBACK);
  s.decodeData(enc.encode("ab"), true);
  assert.deepEqual(h.values("after_continue"), [""]);
  assert.deepEqual(h.values("set"), [`${Status.BadArgument}:`]);
  assert.equal(dec.decode(s.takeReleasedBody()), "ab");
});

test("continue_stream keeps the response's chunk (context.cc Context::continueStream drops only request_body_buffer_, for either type): the module still reads and writes it, and the write goes on", async () => {
  const h = await setBufferHost();
  const s = h.host.newStream();
  s.decodeHeaders(request, true);
  s.encodeHeaders([[":status", "200"]], false);
  h.nextResult(CONTINUE_FROM_CALLBACK);
  const sent = dec.decode(s.encodeData(enc.encode("ab"), true)) + dec.decode(s.takeReleasedResponseBody());
  assert.deepEqual(h.values("after_continue"), ["ab"]);
  assert.deepEqual(h.values("set"), [`${Status.Ok}:!ab`]);
  assert.equal(sent, "!ab");
});

test("after StopIterationAndWatermark the module's body is the codec's chunk buffer: a write to it from another callback is Ok and leads the next chunk; continue_stream of the response drops the request's chunk too (context.cc Context::getBuffer request_body_buffer_, Context::continueStream; http1 codec_impl.cc ConnectionImpl::dispatchBufferedBody)", async () => {
  const h = await setBufferHost();
  const s = h.host.newStream();
  s.decodeHeaders(request, false);
  h.nextResult(DataStatus.StopIterationAndWatermark);
  s.decodeData(enc.encode("ab"), false);
  h.set(s, BufferType.HttpRequestBody, 0, 0, "<");
  s.decodeData(enc.encode("cd"), false);
  assert.deepEqual(h.values("body"), ["ab", "<cd"]);
  h.nextResult(DataStatus.StopIterationAndWatermark);
  s.decodeData(enc.encode("ef"), false);
  h.continueStream(s, StreamType.HttpResponse);
  h.set(s, BufferType.HttpRequestBody, 0, 0, "<");
  assert.deepEqual(h.values("set"), [`${Status.Ok}:<`, `${Status.BadArgument}:`]);
  s.decodeData(enc.encode("gh"), true);
  assert.equal(dec.decode(s.takeReleasedBody()), "ab<cdefgh");
});

test("get_buffer_bytes: a start at or past the end, or a zero length, is Ok and empty; a length past the end is cut there (exports.cc get_buffer_bytes)", async () => {
  const h = await setBufferHost();
  const s = h.host.newStream();
  s.decodeHeaders(request, false);
  h.nextResult(DataStatus.StopIterationAndBuffer);
  s.decodeData(enc.encode("abcd"), true);
  h.get(s, BufferType.HttpRequestBody, 1, 2);
  h.get(s, BufferType.HttpRequestBody, 2, END);
  h.get(s, BufferType.HttpRequestBody, 4, 1);
  h.get(s, BufferType.HttpRequestBody, 9, 1);
  h.get(s, BufferType.HttpRequestBody, 1, 0);
  assert.deepEqual(h.values("get"), ["0:bc", "0:cd", "0:", "0:", "0:"]);
  h.size(s, BufferType.HttpRequestBody);
  assert.deepEqual(h.values("status"), ["4"]);
});

test("a buffer that is not a body cannot be written: the plugin configuration in on_configure is BadArgument (proxy_wasm::BufferBase::copyFrom)", async () => {
  const h = await setBufferHost();
  const statuses = h.values("set_config");
  assert.ok(statuses.length > 0);
  assert.deepEqual(new Set(statuses), new Set([String(Status.BadArgument)]));
});

test("CallData is the context's buffer as its last getBuffer left it: a root's configuration, a stream's body buffer (writable through it), empty before any (envoy context.cc Context::getBuffer: `return &buffer_;`, every other type buffer_.set(...); decodeData calls getBuffer(HttpRequestBody) before the callback)", async () => {
  const h = await setBufferHost();
  const worker = h.host.workers[0];
  const rootGet = (type: number) => worker.vm.call("get_buffer_call", [worker.rootContextId, type, 0, END], worker.rootContextId);
  // The root's on_configure wrote the plugin configuration (getBuffer(PluginConfiguration)).
  rootGet(BufferType.CallData);
  rootGet(BufferType.VmConfiguration);
  rootGet(BufferType.CallData);
  assert.deepEqual(h.values("get"), [`${Status.Ok}:{}`, `${Status.Ok}:`, `${Status.Ok}:`]);

  const s = h.host.newStream();
  s.decodeHeaders(request, false);
  h.get(s, BufferType.CallData, 0, END);
  h.nextResult(DataStatus.StopIterationAndBuffer);
  s.decodeData(enc.encode("ab"), false);
  h.nextResult(DataStatus.StopIterationAndBuffer);
  s.decodeData(enc.encode("cd"), true);
  h.get(s, BufferType.CallData, 0, END);
  h.set(s, BufferType.CallData, 0, 0, "<");
  assert.deepEqual(h.values("get").slice(3), [`${Status.Ok}:`, `${Status.Ok}:abcd`]);
  assert.deepEqual(h.values("set"), [`${Status.Ok}:<abcd`]);
  h.continueStream(s, StreamType.HttpRequest);
  assert.equal(dec.decode(s.takeReleasedBody()), "<abcd");
});
