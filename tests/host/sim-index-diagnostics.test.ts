import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDebugHeader } from "../../src-host/fuzz/debug-header.ts";
import { IndexDiagnostics, lossCause, DEFAULT_DIAGNOSTIC_WEIGHTS } from "../../src-host/sim/index-diagnostics.ts";

const A = "10.0.0.1:8000";
const B = "10.0.0.2:8000";

function header(endpoint: string, chain: number, a: string, b: string): string {
  return `endpoint=${endpoint}; chain=${chain}; matched=0; scores=${A}{${a}},${B}{${b}}`;
}

test("the debug header parses with matched chunks per endpoint", () => {
  const d = parseDebugHeader(header(A, 10, "t=0.9 q=1.000 kv=0.500 p=0.800 i=1.000 m=8", "t=0.5 q=0.5 kv=0.5 p=0 i=1 m=0 guarded"))!;
  assert.equal(d.chain, 10);
  const a = d.scores.get(A);
  assert.ok(a !== undefined && a !== "excluded");
  assert.equal(a.m, 8);
  const b = d.scores.get(B);
  assert.ok(b !== undefined && b !== "excluded" && b.guarded);
});

test("precision and recall compare the index's belief on the chosen pod with its real cache", () => {
  const diag = new IndexDiagnostics();
  // The index believes A holds 8 of 10 chunks (800 of 1000 tokens); A really holds 400 tokens.
  diag.record({ promptTokens: 1000, cachedTokens: new Map([[A, 400], [B, 0]]) },
    parseDebugHeader(header(A, 10, "t=1 q=1 kv=1 p=0.8 i=1 m=8", "t=0 q=1 kv=1 p=0 i=1 m=0")));
  const s = diag.summary();
  assert.equal(s.diag_decisions, 1);
  assert.equal(s.diag_index_precision, 0.5);
  assert.equal(s.diag_index_recall, 1);
  assert.equal(s.diag_lost_share, 0);
});

test("a decision is lost when another pod truly held clearly more, and the outvoting signal is named", () => {
  const diag = new IndexDiagnostics();
  // B holds 900 tokens, A none; the index knew it (p higher on B) but A's queue score outvoted it.
  diag.record({ promptTokens: 1000, cachedTokens: new Map([[A, 0], [B, 900]]) },
    parseDebugHeader(header(A, 10, "t=0.9 q=1 kv=0.5 p=0 i=1 m=0", "t=0.8 q=0 kv=0.5 p=0.9 i=1 m=9")));
  // B holds 900 tokens but the index credited it nothing: an index miss.
  diag.record({ promptTokens: 1000, cachedTokens: new Map([[A, 0], [B, 900]]) },
    parseDebugHeader(header(A, 10, "t=0.9 q=1 kv=0.5 p=0 i=1 m=0", "t=0.8 q=1 kv=0.5 p=0 i=1 m=0")));
  // A difference within the margin is not a loss.
  diag.record({ promptTokens: 1000, cachedTokens: new Map([[A, 850], [B, 900]]) },
    parseDebugHeader(header(A, 10, "t=0.9 q=1 kv=0.5 p=0.8 i=1 m=8", "t=0.8 q=1 kv=0.5 p=0.9 i=1 m=9")));
  const s = diag.summary();
  assert.equal(s.diag_decisions, 3);
  assert.equal(s.diag_lost_by_queue, 1);
  assert.equal(s.diag_lost_by_index, 1);
  assert.equal(s.diag_lost_share, 0.667);
});

test("loss causes: guard, kvCache and inflight", () => {
  const base = { t: 0, q: 1, kv: 1, p: 0, i: 1, m: 0, guarded: false };
  assert.equal(lossCause(base, { ...base, p: 0, m: 9, guarded: true }, DEFAULT_DIAGNOSTIC_WEIGHTS), "guard");
  assert.equal(lossCause({ ...base, kv: 1 }, { ...base, p: 0.5, kv: 0.2 }, DEFAULT_DIAGNOSTIC_WEIGHTS), "kvCache");
  assert.equal(lossCause({ ...base, i: 1 }, { ...base, p: 0.5, i: 0 }, DEFAULT_DIAGNOSTIC_WEIGHTS), "inflight");
});

test("an unreadable header is counted, not guessed", () => {
  const diag = new IndexDiagnostics();
  diag.record({ promptTokens: 10, cachedTokens: new Map() }, null);
  assert.equal(diag.summary().diag_unparsed, 1);
  assert.equal(diag.summary().diag_decisions, 0);
});
