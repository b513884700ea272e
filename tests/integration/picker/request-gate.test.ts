// assembly/picker/request-gate.ts through the Higress build: which request headers let the plugin read the body
// (a decision) and which make it fail open, and under which counted reason.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HeaderList } from "../../../src-host/host/header-map.ts";
import { StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";
import { sendRequest, completeStream } from "../../../src-host/harness/plugin-request.ts";
import { pickerCounters } from "../../../src-host/fuzz/picker-driver.ts";

const MAX_BODY = 4096;
const BODY = new TextEncoder().encode(JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] }));

const harness = new StaticClusterHarness({ pluginConfig: JSON.stringify({ limits: { maxRequestBodyBytes: MAX_BODY } }), log: () => {} });
harness.setEndpoints([{ address: "10.9.0.1:8000" }, { address: "10.9.0.2:8000", waiting: 3 }]);

/** "decision", or the fallback reason whose counter this one request moved. */
function outcome(headers: HeaderList, body: Uint8Array = BODY): string {
  const before = pickerCounters(harness.host);
  const s = sendRequest(harness.host, headers, body, { clusterName: "backends" });
  const after = pickerCounters(harness.host);
  completeStream(s);
  const moved = [...after].filter(([k, v]) => (k === "decisions" || k.startsWith("fallback.")) && v !== (before.get(k) ?? 0)).map(([k]) => k);
  assert.equal(moved.length, 1, `exactly one outcome counter moves: ${moved}`);
  if (moved[0] === "decisions") assert.notEqual(harness.chosen(s), null, "a decision routes");
  else assert.equal(harness.chosen(s), null, "a fail-open does not route");
  return moved[0] === "decisions" ? "decision" : moved[0].slice("fallback.".length);
}

function headers(overrides: Record<string, string | null>, length = BODY.length): HeaderList {
  const base: Record<string, string | null> = {
    ":method": "POST", ":path": "/v1/chat/completions", ":authority": "gateway", ":scheme": "http",
    "content-type": "application/json", "content-length": String(length), ...overrides,
  };
  return Object.entries(base).filter((e): e is [string, string] => e[1] !== null);
}

test("a JSON POST with its length is read and decided", () => {
  assert.equal(outcome(headers({})), "decision");
});

test("the method must be POST, in any case", () => {
  assert.equal(outcome(headers({ ":method": "GET" })), "method");
  assert.equal(outcome(headers({ ":method": "PUT" })), "method");
  assert.equal(outcome(headers({ ":method": "post" })), "decision");
});

test("an upgrade, by its own header or a Connection token, is left alone", () => {
  assert.equal(outcome(headers({ upgrade: "websocket" })), "upgrade");
  assert.equal(outcome(headers({ connection: "keep-alive, Upgrade" })), "upgrade");
  assert.equal(outcome(headers({ connection: "keep-alive" })), "decision");
});

test("the content type must be JSON: application/json with parameters, or application/*+json", () => {
  assert.equal(outcome(headers({ "content-type": "text/plain" })), "content_type");
  assert.equal(outcome(headers({ "content-type": null })), "content_type");
  assert.equal(outcome(headers({ "content-type": "application/jsonl" })), "content_type");
  assert.equal(outcome(headers({ "content-type": "Application/JSON; charset=utf-8" })), "decision");
  assert.equal(outcome(headers({ "content-type": "application/vnd.openai+json" })), "decision");
});

test("an encoded body is not read; identity (or an empty value) is no encoding", () => {
  assert.equal(outcome(headers({ "content-encoding": "gzip" })), "content_encoding");
  assert.equal(outcome(headers({ "content-encoding": "br" })), "content_encoding");
  assert.equal(outcome(headers({ "content-encoding": "Identity" })), "decision");
  assert.equal(outcome(headers({ "content-encoding": "" })), "decision");
});

test("the announced length must be positive and within limits.maxRequestBodyBytes; none at all is a chunked upload", () => {
  assert.equal(outcome(headers({}, 0), new Uint8Array(0)), "content_length");
  assert.equal(outcome(headers({ "content-length": "12x" })), "content_length");
  assert.equal(outcome(headers({}, MAX_BODY + 1)), "body_too_large");
  assert.equal(outcome(headers({ "content-length": null })), "decision");
});

test("the first field of a repeated header counts, as Envoy's header map lookup does; a repeated inline header arrives joined", () => {
  assert.equal(outcome([...headers({}), ["content-encoding", "identity"], ["content-encoding", "gzip"]]), "decision");
  assert.equal(outcome([...headers({}), ["content-encoding", "gzip"], ["content-encoding", "identity"]]), "content_encoding");
  // content-type is inline: the codec joins the two (header_map_impl.cc insertByKey), and the joined value is no JSON.
  const h = headers({ "content-type": null });
  assert.equal(outcome([...h, ["content-type", "application/json"], ["content-type", "text/plain"]]), "content_type");
});

test("a name of a judged header's length that differs from it in any byte is another header", () => {
  // The gate compares a name only with the judged names of its length, a word at a time: each byte counts.
  assert.equal(outcome(headers({ "content-type": null, "content-typx": "application/json" })), "content_type");
  assert.equal(outcome(headers({ "content-type": null, "xontent-type": "application/json" })), "content_type");
  assert.equal(outcome(headers({ upgradf: "websocket" })), "decision");
  assert.equal(outcome(headers({ "connectiom": "upgrade" })), "decision");
  assert.equal(outcome(headers({ "content-encodinh": "gzip" })), "decision");
  assert.equal(outcome(headers({ "content-length": null, "content-lengtx": "0" })), "decision");
  assert.equal(outcome(headers({ ":method": "GET", "x-method": "POST" })), "method");
  assert.equal(outcome(headers({ "content-type": "application/jsom" })), "content_type");
  assert.equal(outcome(headers({ "content-type": "APPLICATION/JSON" })), "decision");
  assert.equal(outcome(headers({ ":method": "pOsT" })), "decision");
  assert.equal(outcome(headers({ ":method": "POSTS" })), "method");
});

test("each judged name with any one byte changed is another header (the gate reads 7-byte names as two words, 8 to 16 as their first and last)", () => {
  const other = (c: string) => (c === "z" ? "y" : /[a-y]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 1) : "x");
  // Per judged name: the headers it goes into, the value it carries, and the outcome when it is not that header.
  const cases: [string, Record<string, string | null>, string, string][] = [
    [":method", { ":method": null }, "POST", "method"],
    ["upgrade", {}, "websocket", "decision"],
    ["connection", {}, "upgrade", "decision"],
    ["content-type", { "content-type": null }, "application/json", "content_type"],
    ["content-length", { "content-length": null }, "0", "decision"],
    ["content-encoding", {}, "gzip", "decision"],
  ];
  for (const [name, base, value, unjudged] of cases) {
    for (let i = 0; i < name.length; i++) {
      const changed = name.slice(0, i) + other(name[i]) + name.slice(i + 1);
      assert.equal(outcome(headers({ ...base, [changed]: value })), unjudged, `${changed}: ${value}`);
    }
  }
  // And each one as itself, for contrast.
  assert.equal(outcome(headers({ upgrade: "websocket" })), "upgrade");
  assert.equal(outcome(headers({ connection: "upgrade" })), "upgrade");
  assert.equal(outcome(headers({ "content-length": "0" })), "content_length");
  assert.equal(outcome(headers({ "content-encoding": "gzip" })), "content_encoding");
});
