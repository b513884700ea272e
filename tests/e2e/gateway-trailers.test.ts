// HTTP/1 trailers through the gateway as Envoy's codecs and filter manager pass them: with
// Http1ProtocolOptions.enable_trailers on the cluster, an upstream response's trailers end it through the plugin
// (proxy_on_response_trailers) instead of an empty end-of-stream body chunk, and with it on the connection manager
// they reach the client as the plugin left them; with Envoy's default (off) the codecs drop them. Request trailers
// the same way (proxy_on_request_trailers, then upstream).
import { test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingHttpHeaders } from "node:http";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { startBackend, USAGE_TRAILERS } from "../../src-host/backend/server.ts";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { compileFixture } from "../support/compile.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";
import { LogCollector } from "../support/node-upstreams.ts";

const { gateway, upstream, onClose } = gatewayHarness();

interface Answer {
  status: number;
  body: string;
  trailers: IncomingHttpHeaders;
}

/** POSTs `body` chunked, with `trailers` after it if any; resolves with the whole answer. */
function post(url: string, body: string, trailers: Array<[string, string]> = []): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, trailers: res.trailers }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.write(body);
    if (trailers.length > 0) req.addTrailers(trailers);
    req.end();
  });
}

const chat = (content: string) => JSON.stringify({ model: "sim-model", stream: true, max_tokens: 4, messages: [{ role: "user", content }] });

test("the picker's response ends with the backend's trailers: they reach the client with both codecs enabling trailers, and the request ends normally", async () => {
  const backend = await startBackend({ usageTrailers: true, engine: { speed: 50 } });
  onClose(() => backend.close());
  const logs = new LogCollector();
  const g = await gateway({
    upstreams: [`127.0.0.1:${backend.port}`],
    trailers: { downstream: true, upstream: true },
    plugin: { wasm: readBuiltPlugin("higress"), flavor: "higress", config: { weights: { failure: 2 } }, workers: 1 },
  }, logs);
  const a = await post(g.url, chat("a question whose answer ends with trailers"));
  assert.equal(a.status, 200);
  assert.ok(a.body.endsWith("data: [DONE]\n\n"), a.body);
  for (const name of USAGE_TRAILERS) assert.match(String(a.trailers[name]), /^\d+$/, `${name} in ${JSON.stringify(a.trailers)}`);
  assert.equal(a.trailers[USAGE_TRAILERS[1]], "4");
  const line = parseRequestLine(logs.requestLines()[0])!;
  assert.equal(line.status, "200");
  assert.equal(line.flags, "-");
});

test("with Envoy's default (enable_trailers off) the codecs drop trailers: the client gets the body and none", async () => {
  const backend = await startBackend({ usageTrailers: true, engine: { speed: 50 } });
  onClose(() => backend.close());
  const g = await gateway({
    upstreams: [`127.0.0.1:${backend.port}`],
    plugin: { wasm: readBuiltPlugin("higress"), flavor: "higress", config: {}, workers: 1 },
  });
  const a = await post(g.url, chat("a question whose trailers are dropped"));
  assert.equal(a.status, 200);
  assert.ok(a.body.endsWith("data: [DONE]\n\n"), a.body);
  assert.deepEqual(a.trailers, {});
});

test("the plugin reads the upstream trailers in proxy_on_response_trailers and what it adds reaches the client", async () => {
  const u = await upstream("t", (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain", trailer: "x-checksum" });
      res.write("part one, ");
      res.addTrailers({ "x-checksum": "c0ffee" });
      res.end("part two");
    });
  });
  const plugin = { wasm: await compileFixture("tests/guest/body-results-plugin.ts"), flavor: "higress" as const, config: {} };
  const g = await gateway({ upstreams: [u.address], trailers: { downstream: true, upstream: true }, plugin });
  const a = await post(g.url, "{}");
  assert.equal(a.status, 200);
  assert.equal(a.body, "part one, part two");
  assert.equal(a.trailers["x-checksum"], "c0ffee");
  assert.equal(a.trailers["x-plugin-saw"], "c0ffee");
});

test("request trailers end the request through the picker (proxy_on_request_trailers decides) and go upstream", async () => {
  const received: Array<{ body: string; trailers: NodeJS.Dict<string> }> = [];
  const u = await upstream("r", (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      received.push({ body, trailers: req.trailers });
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end("data: [DONE]\n\n");
    });
  });
  const g = await gateway({
    upstreams: [u.address],
    trailers: { downstream: true, upstream: true },
    plugin: { wasm: readBuiltPlugin("higress"), flavor: "higress", config: {}, workers: 1 },
  });
  const body = chat("a request whose body ends with trailers");
  const a = await post(g.url, body, [["x-request-checksum", "42"]]);
  assert.equal(a.status, 200);
  assert.deepEqual(received.map((r) => r.body), [body]);
  assert.equal(received[0].trailers["x-request-checksum"], "42");
});
