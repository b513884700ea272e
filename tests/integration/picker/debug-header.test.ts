// assembly/picker/debug-header.ts through the Higress build: the x-endpoint-picker-debug response header names
// the chosen endpoint, the request's chain and matched chunks, and every candidate's signal scores.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FilterStream } from "../../../src-host/host/filter-stream.ts";
import { StaticClusterHarness, type Endpoint } from "../../../src-host/harness/static-cluster-harness.ts";

const HEADER = "x-endpoint-picker-debug";
const [A, B, C] = ["10.9.0.1:8000", "10.9.0.2:8000", "10.9.0.3:8000"];
const ENDPOINTS: Endpoint[] = [
  { address: A, waiting: 0, kv: 0.1 },
  { address: B, waiting: 8, kv: 0.5 },
  { address: C, health: "Unhealthy" },
];
const SECRET = "do-not-echo-this-prompt ";
const BODY = { model: "m", messages: [{ role: "user", content: SECRET.repeat(60) }] };

function harness(config: object): StaticClusterHarness {
  const h = new StaticClusterHarness({ pluginConfig: JSON.stringify(config), log: () => {} });
  h.setEndpoints(ENDPOINTS);
  return h;
}

function debugHeader(h: StaticClusterHarness, s: FilterStream): string | undefined {
  s.encodeHeaders([[":status", "200"]], false);
  const v = s.state.responseHeaders?.get(HEADER);
  s.encodeData(new Uint8Array(0), true);
  s.finish();
  return v;
}

/** Per endpoint: "excluded" or its fields (t, q, kv, p, i, m, and optional l, f, s). */
function scores(header: string): Map<string, "excluded" | Map<string, string>> {
  const out = new Map<string, "excluded" | Map<string, string>>();
  const list = /; scores=(.*)$/.exec(header)![1];
  for (const m of list.matchAll(/([\d.:]+)\{([^}]*)\}/g)) {
    if (m[2] === "excluded") out.set(m[1], "excluded");
    else out.set(m[1], new Map(m[2].split(" ").map((kv) => kv.split("=") as [string, string])));
  }
  return out;
}

test("without debug.header the response carries no debug header", () => {
  const h = harness({});
  const s = h.send(BODY);
  assert.notEqual(h.chosen(s), null);
  assert.equal(debugHeader(h, s), undefined);
});

test("the header names the chosen endpoint and the chain, and scores every candidate; an unhealthy one is excluded", () => {
  const h = harness({ debug: { header: true } });
  const s = h.send(BODY);
  const chosen = h.chosen(s);
  const header = debugHeader(h, s)!;
  assert.match(header, /^endpoint=[\d.:]+; chain=\d+; matched=\d+; scores=/);
  assert.equal(/^endpoint=([\d.:]+);/.exec(header)![1], chosen);
  assert.ok(Number(/chain=(\d+)/.exec(header)![1]) > 1, "a long prompt spans several chunks");
  const sc = scores(header);
  assert.deepEqual([...sc.keys()], [A, B, C]);
  assert.equal(sc.get(C), "excluded");
  const a = sc.get(A) as Map<string, string>;
  const b = sc.get(B) as Map<string, string>;
  for (const fields of [a, b]) {
    assert.deepEqual([...fields.keys()].sort(), ["i", "kv", "l", "m", "p", "q", "t"], "no optional signal without its weight (LoRA affinity is weighted by default)");
    for (const k of ["t", "q", "kv", "p", "i"]) assert.match(fields.get(k)!, /^-?\d+\.\d{3}$/, `${k} has three decimals`);
  }
  // A has the shorter queue and the emptier cache, so the better scores, the higher total, and the pick.
  assert.ok(Number(a.get("q")) > Number(b.get("q")));
  assert.ok(Number(a.get("kv")) > Number(b.get("kv")));
  assert.ok(Number(a.get("t")) > Number(b.get("t")));
  assert.equal(chosen, A);
  assert.ok(!header.includes(SECRET.trim()), "the header carries no request content");
});

test("the same prompt again: its chunks are matched on the endpoint that took it first", () => {
  const h = harness({ debug: { header: true } });
  const first = debugHeader(h, h.send(BODY))!;
  assert.equal(/matched=(\d+)/.exec(first)![1], "0", "nothing is indexed yet");
  const again = debugHeader(h, h.send(BODY))!;
  const chain = /chain=(\d+)/.exec(again)![1];
  assert.equal(/matched=(\d+)/.exec(again)![1], chain);
  const sc = scores(again);
  assert.equal((sc.get(A) as Map<string, string>).get("m"), chain);
  assert.equal((sc.get(B) as Map<string, string>).get("m"), "0");
});

test("the failure, LoRA and session scores appear when their weights are on", () => {
  const h = harness({ debug: { header: true }, session: { header: "x-session-id" }, weights: { failure: 1, loraAffinity: 1, session: 1 } });
  const fields = scores(debugHeader(h, h.send(BODY))!).get(A) as Map<string, string>;
  assert.deepEqual([...fields.keys()].sort(), ["f", "i", "kv", "l", "m", "p", "q", "s", "t"]);
});
