// A request the HTTP/1 codec refuses gets Envoy's answer from the gateway: a Content-Length given twice (equal values or
// not) is a 400 "Bad Request" with content-length, content-type and connection: close, logged with details
// http1.codec_error and flag DPE, the plugin's stream logged (on_log) though it saw no request headers, and no upstream
// reached (http1 balsa_parser.cc disallow_multiple_content_length; codec_impl.cc ServerConnectionImpl::sendProtocolError;
// filter_manager.cc sendLocalReplyViaFilterChain → createFilterChain; conn_manager_impl.cc ActiveStream::encodeHeaders).
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector } from "../support/node-upstreams.ts";

const { gateway, upstream } = gatewayHarness();

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
