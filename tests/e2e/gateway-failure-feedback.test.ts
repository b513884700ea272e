// The failure EWMA fed through the gateway as Envoy feeds it: an upstream that resets its responses after they
// started (status 200, then the connection drops: flag UC in `response.flags`) is avoided once weights.failure is on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { gatewayHarness } from "../support/gateway-harness.ts";

const { gateway, upstream } = gatewayHarness();

/** Sends a chat request; resolves once its response ended or was cut. */
function chat(url: string, content: string): Promise<void> {
  const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content }] });
  return new Promise((resolve) => {
    const req = request(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }, agent: false }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve());
      res.on("aborted", () => resolve());
      res.on("error", () => resolve());
    });
    req.on("error", () => resolve());
    req.end(body);
  });
}

test("an upstream that resets its responses mid-stream is avoided (weights.failure on)", async () => {
  let broken = true;
  const answer = (res: import("node:http").ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (!broken) return res.end("data: [DONE]\n\n");
    res.write("data: {}\n\n", () => setTimeout(() => res.socket?.destroy(), 5));
  };
  const a = await upstream("a", (req, res) => req.on("end", () => answer(res)).resume());
  const b = await upstream("b", (req, res) => req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end("data: [DONE]\n\n");
  }).resume());
  const g = await gateway({
    upstreams: [a.address, b.address],
    plugin: { wasm: readBuiltPlugin("higress"), flavor: "higress", config: { weights: { failure: 4 } }, workers: 1 },
  });
  for (let i = 0; i < 20; i++) await chat(g.url, `unrelated question number ${i}`);
  assert.ok(a.seen.length > 0, "the broken upstream got requests before its resets were known");
  broken = false;
  const before = a.seen.length;
  for (let i = 100; i < 140; i++) await chat(g.url, `unrelated question number ${i}`);
  assert.ok(a.seen.length - before <= 5, `later requests go to the upstream that answers (${a.seen.length - before} of 40 went to a)`);
});
