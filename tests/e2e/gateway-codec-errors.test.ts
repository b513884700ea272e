// A request the HTTP/1 codec refuses gets Envoy's answer from the gateway: a Content-Length given twice (equal values or
// not) is a 400 "Bad Request" with content-length, content-type and connection: close, logged with details
// http1.codec_error and flag DPE, the plugin's stream logged (on_log) though it saw no request headers, and no upstream
// reached (http1 balsa_parser.cc disallow_multiple_content_length; codec_impl.cc ServerConnectionImpl::sendProtocolError;
// filter_manager.cc sendLocalReplyViaFilterChain → createFilterChain; conn_manager_impl.cc ActiveStream::encodeHeaders).
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer as createNetServer, type AddressInfo } from "node:net";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector } from "../support/node-upstreams.ts";

const { gateway, upstream, onClose } = gatewayHarness();

/** Writes `raw` to the gateway and resolves with everything it answers until it closes the connection. */
function rawExchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(raw));
    let out = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => (out += d));
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
  });
}

for (const values of [["2", "2"], ["2", "5"]]) {
  test(`content-length ${values.join(" and ")}: Envoy's codec 400, logged with http1.codec_error and DPE, the plugin's stream logged`, async () => {
    const a = await upstream("a");
    const logs = new LogCollector();
    const plugin = { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {}, workers: 1 };
    const g = await gateway({ upstreams: [a.address], plugin }, logs);
    const lengths = values.map((v) => `content-length: ${v}\r\n`).join("");
    const answer = await rawExchange(g.port, `POST /v1/chat/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json\r\n${lengths}\r\n{}`);
    const [head, body] = answer.split("\r\n\r\n");
    const lines = head.split("\r\n");
    assert.equal(lines[0], "HTTP/1.1 400 Bad Request");
    const fields = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    assert.equal(fields.get("content-length"), "11");
    assert.equal(fields.get("content-type"), "text/plain");
    assert.equal(fields.get("connection"), "close");
    assert.equal(body, "Bad Request");
    const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
    assert.equal(f.status, "400");
    assert.equal(f.flags, "DPE");
    assert.equal(f.details, "http1.codec_error");
    assert.equal(a.seen.filter((r) => r.path !== "/metrics").length, 0, "nothing reached the upstream");
    const counters = g.host!.scrape() as Record<string, number>;
    assert.equal(counters["fixture.on_log"], 1);
    assert.equal(counters["fixture.on_done"], 1);
  });
}

// codec_impl.cc ServerConnectionImpl::onHeadersCompleteImpl: a Content-Length beside a Transfer-Encoding (any value, either
// order; Node's parser refuses it) is the codec's own 400 with details http1.content_length_and_chunked_not_allowed.
for (const [fields, status, text, details] of [
  ["transfer-encoding: chunked\r\ncontent-length: 5\r\n", 400, "Bad Request", "http1.content_length_and_chunked_not_allowed"],
  ["content-length: 5\r\ntransfer-encoding: chunked\r\n", 400, "Bad Request", "http1.content_length_and_chunked_not_allowed"],
  ["content-length: 5\r\ntransfer-encoding: gzip\r\n", 400, "Bad Request", "http1.content_length_and_chunked_not_allowed"],
] as const) {
  test(`${fields.replace(/\r\n/g, "; ")}: Envoy's codec answers ${status} with ${details}, flag DPE`, async () => {
    const a = await upstream("a");
    const logs = new LogCollector();
    const plugin = { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {}, workers: 1 };
    const g = await gateway({ upstreams: [a.address], plugin }, logs);
    const answer = await rawExchange(g.port, `POST /v1/chat/completions HTTP/1.1\r\nhost: gw\r\n${fields}\r\n0\r\n\r\n`);
    const [head, body] = answer.split("\r\n\r\n");
    assert.equal(head.split("\r\n")[0], `HTTP/1.1 ${status} ${text}`);
    assert.equal(body, text);
    const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
    assert.equal(f.status, String(status));
    assert.equal(f.flags, "DPE");
    assert.equal(f.details, details);
    assert.equal(a.seen.filter((r) => r.path !== "/metrics").length, 0, "nothing reached the upstream");
  });
}

/** The status line, header fields and body of a raw answer. */
function parseAnswer(answer: string): { statusLine: string; fields: Map<string, string>; body: string } {
  const at = answer.indexOf("\r\n\r\n");
  const lines = answer.slice(0, at).split("\r\n");
  const fields = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { statusLine: lines[0], fields, body: answer.slice(at + 4) };
}

const fieldLines = (n: number) => Array.from({ length: n }, (_, i) => `x-f${i}: v\r\n`).join("");
/** A GET whose whole head (request line, fields, line ends, blank line) is `bytes` long. */
function headOf(bytes: number): string {
  const start = "GET / HTTP/1.1\r\nhost: gw\r\nx-pad: ";
  return start + "a".repeat(bytes - start.length - 4) + "\r\n\r\n";
}

// codec_impl.cc ConnectionImpl::dispatchSlice names Balsa's errors (balsa_parser.cc BalsaParser::HandleError, its
// method, URL and version checks); completeCurrentHeader counts the fields; ServerConnectionImpl::checkProtocolVersion
// answers anything but HTTP/1.1 426 (accept_http_10 off). Each through sendProtocolError: flag DPE, connection: close.
for (const [what, raw, status, text, details] of [
  ["a control character in a header value", "GET / HTTP/1.1\r\nhost: gw\r\nx-a: a\x01b\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  ["DEL in a header value", "GET / HTTP/1.1\r\nhost: gw\r\nx-a: a\x7fb\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  ["a control character in a header name", "GET / HTTP/1.1\r\nhost: gw\r\nx\x01a: b\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  ["a separator in a header name", "GET / HTTP/1.1\r\nhost: gw\r\nx(a: b\r\n\r\n", 400, "Bad Request", "http1.codec_error"],
  ["an unknown method", "FOO / HTTP/1.1\r\nhost: gw\r\n\r\n", 400, "Bad Request", "http1.codec_error"],
  // Envoy's own request-line checks (BalsaParser::OnRequestFirstLineInput: method, URL, version) do not stop the framer,
  // whose check of the whole head for control characters (BalsaFrame::ProcessHeaderLines →
  // CheckHeaderLinesForInvalidChars, from the first line) then names the error (BalsaParser::HandleError).
  ["DEL in the URL", "GET /a\x7fb HTTP/1.1\r\nhost: gw\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  ["a form feed in the URL", "GET /a\fb HTTP/1.1\r\nhost: gw\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  ["an unknown method and a control character in a header", "GETX / HTTP/1.1\r\nhost: gw\r\nx-a: a\x01b\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  ["a separator in a header name and a control character in a later one", "GET / HTTP/1.1\r\nx(a: b\r\nx-b: a\x01b\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  ["HTTP/1.2 and a control character in a header", "GET / HTTP/1.2\r\nhost: gw\r\nx-a: a\x01b\r\n\r\n", 400, "Bad Request", "http1.invalid_characters"],
  // A first byte no method starts with is refused before the framer reads anything (BalsaParser::execute).
  ["a method's first byte and a control character in a header", "FOO / HTTP/1.1\r\nhost: gw\r\nx-a: a\x01b\r\n\r\n", 400, "Bad Request", "http1.codec_error"],
  ["HTTP/1.0", "GET / HTTP/1.0\r\nhost: gw\r\n\r\n", 426, "Upgrade Required", "low_version"],
  ["HTTP/1.2", "GET / HTTP/1.2\r\nhost: gw\r\n\r\n", 426, "Upgrade Required", "low_version"],
  ["a version not of the form HTTP/d.d", "GET / HTTP/1.10\r\nhost: gw\r\n\r\n", 400, "Bad Request", "http1.codec_error"],
  ["a head of 60 KiB and one byte (Node's count of it below the limit)", headOf(60 * 1024 + 1), 431, "Request Header Fields Too Large", "http1.headers_too_large"],
  ["a head of 70 KiB", headOf(70 * 1024), 431, "Request Header Fields Too Large", "http1.headers_too_large"],
  ["101 header fields", `GET / HTTP/1.1\r\nhost: gw\r\n${fieldLines(100)}\r\n`, 431, "Request Header Fields Too Large", "http1.too_many_headers"],
] as const) {
  test(`${what}: Envoy's codec answers ${status} with ${details}, flag DPE, before any upstream`, async () => {
    const a = await upstream("a");
    const logs = new LogCollector();
    const plugin = { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {}, workers: 1 };
    const g = await gateway({ upstreams: [a.address], plugin }, logs);
    const r = parseAnswer(await rawExchange(g.port, raw));
    assert.equal(r.statusLine, `HTTP/1.1 ${status} ${text}`);
    assert.equal(r.body, text);
    assert.equal(r.fields.get("connection"), "close");
    const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
    assert.equal(f.status, String(status));
    assert.equal(f.flags, "DPE");
    assert.equal(f.details, details);
    assert.equal(a.seen.filter((r) => r.path !== "/metrics").length, 0, "nothing reached the upstream");
    assert.equal((g.host!.scrape() as Record<string, number>)["fixture.on_log"], 1, "the plugin's stream was logged");
  });
}

// Within the limits Envoy takes what Node's defaults refuse (16 KiB heads) or cut (none here: 2000 fields).
for (const [what, raw] of [
  ["a head of exactly 60 KiB", headOf(60 * 1024)],
  ["100 header fields", `GET / HTTP/1.1\r\n${fieldLines(99)}host: gw\r\n\r\n`],
] as const) {
  test(`${what} is within Envoy's limits (max_request_headers_kb 60, max_headers_count 100): proxied`, async () => {
    // An upstream that takes any head (Node's own server would refuse one over 16 KiB).
    const heads: string[] = [];
    const up = createNetServer((c) => {
      let head = "";
      c.setEncoding("latin1");
      c.on("data", (d: string) => {
        head += d;
        for (let end = head.indexOf("\r\n\r\n"); end >= 0; end = head.indexOf("\r\n\r\n")) {
          heads.push(head.slice(0, end));
          head = head.slice(end + 4);
          c.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
        }
      });
    });
    await new Promise<void>((resolve) => up.listen(0, "127.0.0.1", resolve));
    onClose(() => new Promise<void>((resolve) => up.close(() => resolve())));
    const g = await gateway({ upstreams: [`127.0.0.1:${(up.address() as AddressInfo).port}`], plugin: { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {}, workers: 1 } });
    const socket = connect(g.port, "127.0.0.1", () => socket.write(raw));
    const first = await new Promise<string>((resolve, reject) => {
      socket.setEncoding("latin1");
      socket.once("data", (d: string) => resolve(d.split("\r\n")[0]));
      socket.on("error", reject);
    });
    socket.destroy();
    assert.equal(first, "HTTP/1.1 200 OK");
    assert.ok(heads.some((h) => h.startsWith("GET / HTTP/1.1")), "the request reached the upstream");
  });
}

test("the limits follow the gateway's maxRequestHeadersKb and maxRequestHeadersCount", async () => {
  const a = await upstream("a");
  const g = await gateway({ upstreams: [a.address], maxRequestHeadersKb: 1, maxRequestHeadersCount: 3 });
  assert.equal(parseAnswer(await rawExchange(g.port, headOf(1025))).statusLine, "HTTP/1.1 431 Request Header Fields Too Large");
  assert.equal(parseAnswer(await rawExchange(g.port, `GET / HTTP/1.1\r\nhost: gw\r\n${fieldLines(3)}\r\n`)).statusLine, "HTTP/1.1 431 Request Header Fields Too Large");
});

// A chunk size that is not hex, after the headers went to the filter: ServerConnectionImpl::sendProtocolError sends
// the 400 on the request's own stream (its response had not started), through the filter chain, then
// ConnectionManagerImpl::handleCodecError closes the connection.
test("a broken chunk in the middle of a request's body: the 400 http1.codec_error on the request's stream, flag DPE, the connection closed", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const plugin = { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {}, workers: 1 };
  const g = await gateway({ upstreams: [a.address], plugin }, logs);
  const socket = connect(g.port, "127.0.0.1");
  let out = "";
  socket.setEncoding("latin1");
  socket.on("data", (d: string) => (out += d));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.write("POST /v1/chat/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n");
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.write("zz\r\n");
  await closed;
  const r = parseAnswer(out);
  assert.equal(r.statusLine, "HTTP/1.1 400 Bad Request");
  assert.equal(r.fields.get("connection"), "close");
  assert.equal(r.body, "Bad Request");
  const f = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ")))!;
  assert.equal(f.path, "/v1/chat/completions", "the request's own stream answered");
  assert.equal(f.status, "400");
  assert.equal(f.flags, "DPE");
  assert.equal(f.details, "http1.codec_error");
});

// Envoy's codec reads a pipelined request only once the one before it is done (ServerConnectionImpl::dispatch
// read-disables the connection meanwhile), so a bad head right behind a good request is answered after its response.
test("a bad head pipelined behind a whole request: the first is answered, then the codec's 400, then the close", async () => {
  const a = await upstream("a");
  const logs = new LogCollector();
  const plugin = { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {}, workers: 1 };
  const g = await gateway({ upstreams: [a.address], plugin }, logs);
  const answer = await rawExchange(g.port, "GET /first HTTP/1.1\r\nhost: gw\r\n\r\nFOO / HTTP/1.1\r\nhost: gw\r\n\r\n");
  const statusLines = answer.split("\r\n").filter((l) => l.startsWith("HTTP/1.1 "));
  assert.deepEqual(statusLines, ["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"]);
  assert.ok(answer.includes('"path":"/first"'), "the first request's answer came whole, before the 400");
  const second = parseRequestLine(await logs.waitFor((l) => l.startsWith("gw req ") && l.includes("status=400")))!;
  assert.equal(second.flags, "DPE");
  assert.equal(second.details, "http1.codec_error");
});

// The same for a pipelined head Node's parser takes but Envoy's codec refuses once it has it whole (the version, the
// field count, the head's size: http1RequestHeadError): its answer still comes after the first request's response.
for (const [what, second, statusLine] of [
  ["an HTTP/1.0 request", "GET / HTTP/1.0\r\nhost: gw\r\n\r\n", "HTTP/1.1 426 Upgrade Required"],
  ["101 header fields", `GET / HTTP/1.1\r\nhost: gw\r\n${fieldLines(100)}\r\n`, "HTTP/1.1 431 Request Header Fields Too Large"],
] as const) {
  test(`${what} pipelined behind a whole request: the first is answered, then the codec's refusal, then the close`, async () => {
    const a = await upstream("a");
    const logs = new LogCollector();
    const plugin = { wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress" as const, config: {}, workers: 1 };
    const g = await gateway({ upstreams: [a.address], plugin }, logs);
    const answer = await rawExchange(g.port, `GET /first HTTP/1.1\r\nhost: gw\r\n\r\n${second}GET /third HTTP/1.1\r\nhost: gw\r\n\r\n`);
    const statusLines = answer.split("\r\n").filter((l) => l.startsWith("HTTP/1.1 "));
    assert.deepEqual(statusLines, ["HTTP/1.1 200 OK", statusLine]);
    assert.ok(answer.includes('"path":"/first"'), "the first request's answer came whole, before the refusal");
    // handleCodecError closes the connection: the codec never reads the request behind the refused one.
    assert.deepEqual(a.seen.map((r) => r.path).filter((p) => p !== "/metrics"), ["/first"]);
  });
}

// Envoy answers "expect: 100-continue" itself only for a request its codec took (conn_manager_impl.cc
// ActiveStream::decodeHeaders: encode1xxHeaders), never before the codec's own refusal; Node writes the 100 before the
// request event unless a checkContinue listener decides.
test("a refused head with expect: 100-continue is answered with the refusal alone, no 100 Continue before it", async () => {
  const a = await upstream("a");
  const g = await gateway({ upstreams: [a.address] });
  const answer = await rawExchange(g.port, `POST / HTTP/1.1\r\nhost: gw\r\nexpect: 100-continue\r\ncontent-length: 2\r\n${fieldLines(100)}\r\n`);
  const statusLines = answer.split("\r\n").filter((l) => l.startsWith("HTTP/1.1 "));
  assert.deepEqual(statusLines, ["HTTP/1.1 431 Request Header Fields Too Large"]);
});

test("a taken head with expect: 100-continue still gets the 100 Continue, then its response", async () => {
  const a = await upstream("a");
  const g = await gateway({ upstreams: [a.address] });
  const socket = connect(g.port, "127.0.0.1", () => socket.write("POST /v1/chat/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: 2\r\n\r\n"));
  let out = "";
  socket.setEncoding("latin1");
  const sawContinue = new Promise<void>((resolve) => socket.on("data", (d: string) => {
    out += d;
    if (out.includes("HTTP/1.1 100 Continue\r\n\r\n")) resolve();
  }));
  await sawContinue;
  socket.write("{}");
  await new Promise<void>((resolve) => socket.on("data", () => { if (/HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n/.test(out)) resolve(); }));
  socket.destroy();
  assert.ok(out.startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK"));
});
