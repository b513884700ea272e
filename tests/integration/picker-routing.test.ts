// The picker through the host, with Higress's get_upstream_hosts payloads and vLLM /metrics text: who wins,
// when it fails open, and that it cleans up after itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chat, pickerHost, text } from "../support/picker.ts";

const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000", "10.0.0.4:8000"];

test("with no prefix to reuse, the least-loaded endpoint wins", () => {
  const h = pickerHost();
  h.setPods([
    { address: PODS[0], waiting: 6, running: 10, kv: 0.7 },
    { address: PODS[1], waiting: 0, running: 2, kv: 0.1 },
    { address: PODS[2], waiting: 3, running: 8, kv: 0.5 },
    { address: PODS[3], waiting: 9, running: 12, kv: 0.9 },
  ]);
  for (let i = 0; i < 5; i++) {
    const s = h.send(chat(text(100 + i, 3000), [], "q" + i));
    assert.equal(h.chosen(s), PODS[1]);
    h.complete(s);
  }
  assert.equal(h.counter("decisions"), 5);
});

test("the second turn of a chat returns to the endpoint that served the first", () => {
  const h = pickerHost();
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  const system = text(7, 6000);
  const firstTurns: string[] = [];
  for (let conv = 0; conv < 8; conv++) {
    const s = h.send(chat(system + conv, [], "first question of " + conv));
    firstTurns.push(h.chosen(s)!);
    h.complete(s);
  }
  for (let conv = 0; conv < 8; conv++) {
    const s = h.send(chat(system + conv, [["first question of " + conv, text(conv, 800)]], "follow-up"));
    assert.equal(h.chosen(s), firstTurns[conv], `conversation ${conv}`);
    h.complete(s);
  }
  assert.ok(h.counter("prefix_hits") >= 8);
  assert.ok(h.counter("prefix_matched_chars") > 0);
});

test("an overloaded endpoint holding the cache loses to an idle one", () => {
  const h = pickerHost();
  h.setPods([
    { address: PODS[0], waiting: 0, running: 1, kv: 0.2 },
    { address: PODS[1], waiting: 0, running: 1, kv: 0.2 },
  ]);
  const body = chat(text(3, 8000), [], "question");
  const first = h.send(body);
  const cached = h.chosen(first)!;
  h.complete(first);
  const other = PODS.slice(0, 2).find((p) => p !== cached)!;
  h.setPods([
    { address: cached, waiting: 40, running: 64, kv: 0.98 },
    { address: other, waiting: 0, running: 0, kv: 0.05 },
  ]);
  const again = h.send(body);
  assert.equal(h.chosen(again), other);
});

test("unhealthy endpoints are never chosen", () => {
  const h = pickerHost();
  h.setPods([
    { address: PODS[0], waiting: 0, running: 0, kv: 0, health: "Unhealthy" },
    { address: PODS[1], waiting: 20, running: 30, kv: 0.9 },
    { address: PODS[2], waiting: 0, running: 0, kv: 0, health: "Timeout" },
  ]);
  for (let i = 0; i < 10; i++) {
    const s = h.send(chat(text(i, 500), [], "x"));
    assert.equal(h.chosen(s), PODS[1]);
    h.complete(s);
  }
  h.setPods(PODS.slice(0, 2).map((address) => ({ address, health: "Unhealthy" })));
  const s = h.send(chat("sys", [], "x"));
  assert.equal(h.chosen(s), null);
  assert.equal(s.requestState, "forwarded");
  assert.equal(h.counter("fallback.no_healthy_endpoint"), 1);
});

test("a client's own x-gateway-destination-endpoint never survives, fail-open included", () => {
  const h = pickerHost({ flavor: "envoy", config: { endpoints: [{ address: PODS[0], metricsCluster: "m0" }] } });
  const picked = h.send(chat(text(1, 300), [], "x"), [["x-gateway-destination-endpoint", "10.9.9.9:1"]]);
  assert.equal(h.chosen(picked), PODS[0]);
  // A GET is a fail-open: the header must still be gone.
  const s = h.host.newStream();
  s.decodeHeaders([[":method", "GET"], [":path", "/v1/models"], [":authority", "g"], ["x-gateway-destination-endpoint", "10.9.9.9:1"]], true);
  assert.equal(s.requestState, "forwarded");
  assert.ok(!s.requestHeaders.some(([k]) => k === "x-gateway-destination-endpoint"));
});

test("a salt header isolates tenants: the same prompt under another salt does not match", () => {
  const h = pickerHost({ config: { prefix: { saltHeader: "x-tenant" } } });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  const body = chat(text(11, 8000), [], "same prompt");
  const a = h.send(body, [["x-tenant", "alpha"]]);
  h.complete(a);
  const matchedBefore = h.counter("prefix_matched_chars");
  const b = h.send(body, [["x-tenant", "beta"]]);
  h.complete(b);
  assert.equal(h.counter("prefix_matched_chars"), matchedBefore, "another tenant's chain shares nothing");
  const c = h.send(body, [["x-tenant", "alpha"]]);
  assert.equal(h.chosen(c), h.chosen(a));
  assert.ok(h.counter("prefix_matched_chars") > matchedBefore, "the same tenant matches");
});

test("inflight returns to 0 after every stream ends, however it ends", () => {
  const h = pickerHost({ workers: 2 });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  const open = [];
  for (let i = 0; i < 40; i++) open.push(h.send(chat(text(i, 2000), [], "q" + i), [], { worker: i % 2 }));
  assert.equal(h.counter("inflight"), 40);
  open.forEach((s, i) => {
    if (i % 3 === 0) s.reset();
    else if (i % 3 === 1) h.complete(s, 503);
    else h.complete(s, 200);
  });
  assert.equal(h.counter("inflight"), 0);
});

test("inflight steers load: with equal metrics, requests in flight spread over endpoints", () => {
  const h = pickerHost();
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  const seen = new Map<string, number>();
  for (let i = 0; i < 8; i++) {
    const s = h.send(chat(text(1000 + i, 200), [], "q"));
    seen.set(h.chosen(s)!, (seen.get(h.chosen(s)!) ?? 0) + 1);
  }
  assert.deepEqual([...seen.values()].sort(), [2, 2, 2, 2]);
});

const failOpenCases: Array<[string, (h: ReturnType<typeof pickerHost>) => import("../../src-host/host/filter-stream.ts").FilterStream]> = [
  ["method", (h) => {
    const s = h.host.newStream({ clusterName: "backends" });
    s.decodeHeaders([[":method", "GET"], [":path", "/v1/models"], [":authority", "g"]], true);
    return s;
  }],
  ["content_type", (h) => h.send("x=1", [["content-type", "application/x-www-form-urlencoded"]])],
  ["content_encoding", (h) => h.send({ model: "m", messages: [] }, [["content-encoding", "gzip"]])],
  ["upgrade", (h) => h.send({ model: "m", messages: [] }, [["upgrade", "websocket"]])],
  ["invalid_json", (h) => h.send('{"model": "m", "messages": [')],
  ["missing_model", (h) => h.send({ messages: [{ role: "user", content: "hi" }] })],
  ["body_too_large", (h) => {
    const s = h.host.newStream({ clusterName: "backends" });
    s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"], ["content-length", String(64 * 1024 * 1024)]], false);
    s.decodeData(new TextEncoder().encode("{}"), true);
    return s;
  }],
  ["content_length", (h) => {
    // A POST without a body (chunked uploads with a body are read: tests/conformance/chunked-upload.test.ts).
    const s = h.host.newStream({ clusterName: "backends" });
    s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"]], true);
    return s;
  }],
];

for (const [reason, run] of failOpenCases) {
  test(`fail-open "${reason}" is counted and the request still goes through untouched`, () => {
    const h = pickerHost();
    h.setPods(PODS.map((address) => ({ address })));
    const s = run(h);
    assert.equal(s.requestState, "forwarded");
    assert.equal(h.chosen(s), null);
    assert.equal(h.counter(`fallback.${reason}`), 1);
    assert.equal(new TextDecoder().decode(s.state.properties.get("endpoint_picker.fallback") ?? new Uint8Array()), reason);
    h.complete(s);
    assert.equal(h.counter("inflight"), 0);
  });
}

test("the gate reads its headers from one map: a Connection upgrade token fails open, identity encoding and keep-alive route", () => {
  const h = pickerHost();
  h.setPods(PODS.map((address) => ({ address })));
  const up = h.send({ model: "m", messages: [] }, [["connection", "keep-alive, Upgrade"]]);
  assert.equal(h.chosen(up), null);
  assert.equal(h.counter("fallback.upgrade"), 1);
  h.complete(up);
  const ok = h.send(chat("sys", [], "x"), [["connection", "keep-alive"], ["content-encoding", "identity"]]);
  assert.notEqual(h.chosen(ok), null);
  assert.equal(h.counter("fallback.upgrade"), 1);
  assert.equal(h.counter("fallback.content_encoding"), 0);
  h.complete(ok);
});

test("no hosts from the gateway is a counted fail-open", () => {
  const h = pickerHost();
  const s = h.send(chat("sys", [], "x"));
  assert.equal(h.chosen(s), null);
  assert.equal(s.requestState, "forwarded");
  assert.equal(h.counter("fallback.no_endpoints"), 1);
});

test("invalid configurations are rejected with every bad field named in one log line", () => {
  const logs: string[] = [];
  assert.throws(() =>
    pickerHost({ config: { weights: { queue: -1 }, prefix: { chunkSize: 3 } } as any, log: (_l, m) => logs.push(m) }),
  );
  const line = logs.find((m) => m.includes("weights.queue"));
  assert.ok(line && line.includes("prefix.chunkSize"), line);
});

test("the debug header explains the decision without request content", () => {
  const h = pickerHost({ config: { debug: { header: true } } });
  h.setPods(PODS.slice(0, 2).map((address, i) => ({ address, waiting: i * 5, running: 1, kv: 0.2 })));
  const secret = "the-secret-prompt-text";
  const s = h.send(chat(secret + text(5, 600), [], secret));
  s.encodeHeaders([[":status", "200"]], false);
  const header = s.state.responseHeaders!.get("x-endpoint-picker-debug")!;
  assert.match(header, /^endpoint=10\.0\.0\.1:8000; chain=\d+; matched=0; scores=10\.0\.0\.1:8000\{t=/);
  assert.ok(header.includes("10.0.0.2:8000{"));
  assert.ok(!header.includes(secret));
  const off = pickerHost();
  off.setPods([{ address: PODS[0] }]);
  const t = off.send(chat("x", [], "y"));
  t.encodeHeaders([[":status", "200"]], false);
  assert.equal(t.state.responseHeaders!.get("x-endpoint-picker-debug"), undefined);
});

test("a conversation's next turn on another worker finds its endpoint through the shared hints", () => {
  const run = (share: boolean) => {
    const h = pickerHost({ workers: 2, config: { prefix: { shareAcrossWorkers: share } } });
    h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
    const first: string[] = [];
    for (let conv = 0; conv < 8; conv++) {
      const s = h.send(chat(text(500 + conv, 9000), [], "first"), [], { worker: 0 });
      first.push(h.chosen(s)!);
      h.complete(s);
    }
    let same = 0;
    for (let conv = 0; conv < 8; conv++) {
      const s = h.send(chat(text(500 + conv, 9000), [["first", text(conv, 300)]], "second"), [], { worker: 1 });
      if (h.chosen(s) === first[conv]) same++;
      h.complete(s);
    }
    return { same, hints: h.counter("shared_hint_hits") };
  };
  const shared = run(true);
  assert.equal(shared.same, 8);
  assert.equal(shared.hints, 8);
  const isolated = run(false);
  assert.equal(isolated.hints, 0);
  assert.ok(isolated.same < 8, "without hints the other worker does not know where the conversation went");
});

test("a conversation's previous endpoint is credited with the answer it generated, unless creditAnswers is off", () => {
  const run = (creditAnswers: boolean) => {
    const h = pickerHost({ config: { debug: { header: true }, prefix: { creditAnswers } } });
    const pods = PODS.slice(0, 2);
    h.setPods(pods.map((address) => ({ address, waiting: 0, running: 0, kv: 0.2 })));
    const system = text(11, 2100);
    const first = h.send(chat(system, [], "first question"));
    const served = h.chosen(first)!;
    h.complete(first);
    // The endpoint that answered now queues three requests more than the other one: more than its four chunks of
    // the previous prompt are worth (prefix.creditOfBestMatch charges the other endpoint half the credit for them).
    h.setPods(pods.map((address) => ({ address, waiting: address === served ? 3 : 0, running: 0, kv: 0.2 })));
    const next = h.send(chat(system, [["first question", text(12, 4000)]], "second question"));
    next.encodeHeaders([[":status", "200"]], false);
    const header = next.state.responseHeaders!.get("x-endpoint-picker-debug")!;
    return { stayed: h.chosen(next) === served, matched: Number(/; matched=(\d+);/.exec(header)![1]), credits: h.counter("answer_credits") };
  };
  const credited = run(true);
  assert.ok(credited.stayed, "the answer's 4,000 characters outweigh a queue three requests longer");
  assert.ok(credited.matched >= 11, `matched ${credited.matched} chunks: the previous prompt and the answer`);
  assert.equal(credited.credits, 1);
  const plain = run(false);
  assert.ok(!plain.stayed, "credited only with the previous prompt, the endpoint loses to the shorter queue");
  assert.equal(plain.credits, 0);
});

test("new conversations on one tool prompt spread over the endpoints, unless spreadHotPreambles is off", () => {
  const run = (spreadHotPreambles: boolean) => {
    const h = pickerHost({ config: { prefix: { spreadHotPreambles } } });
    h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
    const tools = text(21, 6000);
    const homes = new Set<string>();
    let toHolders = 0;
    for (let conv = 0; conv < 12; conv++) {
      const s = h.send(chat(tools, [], `task ${conv}: ` + text(100 + conv, 600)));
      if (homes.has(h.chosen(s)!)) toHolders++;
      homes.add(h.chosen(s)!);
      h.complete(s);
    }
    return { homes: homes.size, spreads: h.counter("hot_preamble_spreads"), hits: h.counter("prefix_hits"), toHolders };
  };
  const spread = run(true);
  assert.ok(spread.homes >= 3, `every request carries the tool prompt: its first holder cannot take them all (${spread.homes} endpoints)`);
  assert.ok(spread.spreads >= 2);
  assert.equal(spread.hits, spread.toHolders, "a request spread to an endpoint without the tool prompt is no prefix hit");
  const held = run(false);
  assert.equal(held.homes, 1, "without it the tool prompt's holder takes every new conversation");
  assert.equal(held.spreads, 0);
});

test("interleaved streams keep their own announced body length", () => {
  const h = pickerHost();
  h.setPods(PODS.map((address) => ({ address })));
  const enc = new TextEncoder();
  const big = enc.encode(JSON.stringify(chat(text(1, 5000), [], "long")));
  const small = enc.encode(JSON.stringify(chat("s", [], "short")));
  const open = (bytes: Uint8Array) => {
    const s = h.host.newStream({ clusterName: "backends" });
    s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"], ["content-length", String(bytes.length)]], false);
    return s;
  };
  // Envoy interleaves the callbacks of concurrent streams on one worker.
  const a = open(big);
  const b = open(small);
  a.decodeData(big, true);
  b.decodeData(small, true);
  assert.ok(h.chosen(a) !== null, "the long request is decided, not failed open as too large");
  assert.ok(h.chosen(b) !== null);
  assert.equal(h.counter("fallback.body_too_large"), 0);
});

test("a body followed by trailers is decided when the trailers arrive", () => {
  const h = pickerHost();
  h.setPods(PODS.map((address) => ({ address })));
  const bytes = new TextEncoder().encode(JSON.stringify(chat(text(2, 2000), [], "q")));
  const s = h.host.newStream({ clusterName: "backends" });
  s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"], ["content-length", String(bytes.length)]], false);
  s.decodeData(bytes, false);
  assert.equal(s.requestState, "paused");
  s.decodeTrailers([["x-checksum", "abc"]]);
  assert.equal(s.requestState, "forwarded");
  assert.ok(PODS.includes(h.chosen(s)!));
  assert.equal(h.counter("decisions"), 1);
});
