// Workload files and traffic generators: strict validation, the documented request shapes, token counts
// through the real tokenizer, multi-turn prefix sharing, and determinism by seed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { attentionCostFor, kvReadCostFor, resolveEngineConfig } from "../../src-host/backend/engine.ts";
import { Tokenizer } from "../../src-host/backend/tokenizer.ts";
import { createGenerator } from "../../src-host/sim/generators/create-generator.ts";
import type { RequestSpec } from "../../src-host/sim/generators/traffic-generator.ts";
import { pseudoText } from "../../src-host/sim/pseudo-text.ts";
import { SimRequest } from "../../src-host/sim/sim-request.ts";
import { VocabularyTokenizer } from "../../src-host/sim/vocabulary-tokenizer.ts";
import { engineConfig } from "../../src-host/sim/sim-pod.ts";
import { parseWorkload, scaleWorkload, WorkloadError, type TrafficSpec } from "../../src-host/sim/workload.ts";
import { readdirSync, readFileSync } from "node:fs";

const bpe = new Tokenizer({ memoEntries: 0 });
const fast = new VocabularyTokenizer();

function base(): Record<string, unknown> {
  return {
    seed: 1,
    pods: { count: 2, kvTokens: 4096, prefillTokensPerSec: 1000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
    arrival: { qps: 1, durationS: 10 },
    traffic: [{ type: "shared-prefix", groups: 2, promptsPerGroup: 2, systemTokens: 10, questionTokens: 5, outputTokens: 3 }],
  };
}

function rejects(mutate: (w: Record<string, any>) => void, path: string): void {
  const w = base() as Record<string, any>;
  mutate(w);
  assert.throws(() => parseWorkload(w), (e: unknown) => e instanceof WorkloadError && e.message.startsWith(path), path);
}

test("workload validation names the path of unknown keys and bad values", () => {
  const ok = parseWorkload(base());
  assert.equal(ok.pods.blockTokens, 16, "defaults filled in");
  assert.deepEqual(ok.arrival.stages, [{ qps: 1, durationS: 10 }]);
  rejects((w) => (w.extra = 1), "workload.extra");
  rejects((w) => (w.pods.gpu = "h100"), "workload.pods.gpu");
  rejects((w) => (w.pods.decodeStepMs.perSeq = 1), "workload.pods.decodeStepMs.perSeq");
  rejects((w) => (w.traffic[0].systemToken = 1), "workload.traffic[0].systemToken");
  rejects((w) => (w.traffic[0].type = "chat"), "workload.traffic[0].type");
  rejects((w) => (w.traffic[0].groups = 0), "workload.traffic[0].groups");
  rejects((w) => (w.traffic[0].groups = 1.5), "workload.traffic[0].groups");
  rejects((w) => (w.arrival = { stages: [{ qps: 1, durationS: 1, ramp: true }] }), "workload.arrival.stages[0].ramp");
  rejects((w) => (w.faults = [{ type: "restart", atS: 1, pod: 0 }]), "workload.faults[0].downS");
  rejects((w) => (w.faults = [{ type: "wedge", atS: 1, pod: 0 }]), "workload.faults[0].durationS");
  rejects((w) => (w.faults = [{ type: "wedge", atS: 1, pod: 0, durationS: 5, externalQps: -1 }]), "workload.faults[0].externalQps");
  rejects((w) => delete w.seed, "workload.seed");
  rejects(
    (w) => (w.traffic = [{ type: "multi-turn", conversations: 1, turns: [3, 2], systemTokens: 0, userTokens: [1, 2], assistantTokens: [1, 2], thinkTimeS: [0, 1] }]),
    "workload.traffic[0].turns",
  );
});

test("a workload sets the engine's context costs, or leaves them to be derived from its GPU speed", () => {
  const w = base() as Record<string, any>;
  w.pods.attentionMsPerMTokenPairs = 1.5;
  w.pods.decodeStepMs.perKContextTokensMs = 0.07;
  const given = resolveEngineConfig(engineConfig(parseWorkload(w).pods, 1));
  assert.equal(given.attentionMsPerMTokenPairs, 1.5);
  assert.equal(given.decodeMsPerKContextTokens, 0.07);
  const derived = resolveEngineConfig(engineConfig(parseWorkload(base()).pods, 1));
  assert.equal(derived.attentionMsPerMTokenPairs, attentionCostFor(1000));
  assert.equal(derived.decodeMsPerKContextTokens, kvReadCostFor(5));
  rejects((w) => (w.pods.attentionMsPerMTokenPairs = -1), "workload.pods.attentionMsPerMTokenPairs");
  rejects((w) => (w.pods.decodeStepMs.perKContextTokensMs = "0.1"), "workload.pods.decodeStepMs.perKContextTokensMs");
});

test("every shipped workload file parses, the held-out ones too", () => {
  for (const dir of ["examples/workloads", "examples/workloads/held-out"]) {
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    assert.ok(files.length >= 3, dir);
    for (const f of files) parseWorkload(JSON.parse(readFileSync(`${dir}/${f}`, "utf8")), f);
  }
});

test("pseudo-text has exactly the requested token count under the real tokenizer, and the fast path agrees", () => {
  for (const [key, n] of [["a", 1], ["b", 57], ["c", 1000], ["d", 3000]] as const) {
    const t = pseudoText(42, key, n);
    const ids = bpe.encode(t.text);
    assert.equal(ids.length, n);
    assert.deepEqual([...ids], t.ids);
    assert.deepEqual([...fast.encode(t.text)], t.ids);
  }
  // Text that is not pure vocabulary goes through BPE unchanged.
  assert.deepEqual([...fast.encode(" hello, world")], [...bpe.encode(" hello, world")]);
});

function spec(type: TrafficSpec["type"], extra: Record<string, unknown>): TrafficSpec {
  return { type, weight: 1, ...extra } as TrafficSpec;
}

test("shared-prefix: a system and a user message of the documented token sizes; a group shares its system prompt", () => {
  const g = createGenerator(spec("shared-prefix", { groups: 3, promptsPerGroup: 4, systemTokens: 120, questionTokens: 30, outputTokens: 7, groupSkew: 0 }), 0, 5);
  const byGroup = new Map<string, string>();
  for (let i = 0; i < 40; i++) {
    const r = g.next(0)!;
    assert.deepEqual(r.messages.map((m) => m.role), ["system", "user"]);
    assert.equal(bpe.encode(r.messages[0].content).length, 120);
    assert.equal(bpe.encode(r.messages[1].content).length, 30);
    assert.equal(r.maxTokens, 7);
    const prev = byGroup.get(r.sessionKey);
    if (prev !== undefined) assert.equal(r.messages[0].content, prev);
    byGroup.set(r.sessionKey, r.messages[0].content);
  }
  assert.equal(byGroup.size, 3);
  assert.equal(new Set(byGroup.values()).size, 3, "groups have different system prompts");
  const req = new SimRequest(0, g.next(0)!, "m", 0, fast, 16);
  const body = JSON.parse(req.body);
  assert.deepEqual(Object.keys(body), ["model", "messages", "max_tokens", "stream"]);
  assert.equal(body.model, "m");
  assert.equal(body.stream, true);
  assert.equal(body.max_tokens, 7);
});

test("shared-prefix with groupSkew sends more to the first group", () => {
  const g = createGenerator(spec("shared-prefix", { groups: 10, promptsPerGroup: 1, systemTokens: 1, questionTokens: 1, outputTokens: 1, groupSkew: 1.5 }), 0, 5);
  const counts = new Map<string, number>();
  for (let i = 0; i < 2000; i++) {
    const k = g.next(0)!.sessionKey;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  assert.ok(counts.get("t0/group/0")! > 3 * (counts.get("t0/group/9") ?? 0));
});

test("long-doc-qa: one user message = document then question; questions on a document share its tokens", () => {
  const g = createGenerator(spec("long-doc-qa", { documents: 2, docTokens: 400, questionsPerDoc: 3, questionTokens: 20, outputTokens: 5 }), 1, 9);
  const seen: RequestSpec[] = [];
  for (let i = 0; i < 12; i++) seen.push(g.next(0)!);
  for (const r of seen) {
    assert.deepEqual(r.messages.map((m) => m.role), ["user"]);
    assert.equal(bpe.encode(r.messages[0].content).length, 420);
  }
  const sameDoc = seen.filter((r) => r.sessionKey === seen[0].sessionKey);
  assert.ok(sameDoc.length >= 2);
  const a = bpe.encode(sameDoc[0].messages[0].content);
  const b = bpe.encode(sameDoc[1].messages[0].content);
  assert.deepEqual([...a.slice(0, 400)], [...b.slice(0, 400)]);
});

test("multi-turn: turn N+1 resends turn N's messages plus its answer, and its prompt tokens extend turn N's prompt and output", () => {
  const g = createGenerator(
    spec("multi-turn", { conversations: 1, turns: [4, 4], systemTokens: 50, userTokens: [10, 30], assistantTokens: [5, 25], thinkTimeS: [1, 2] }),
    0, 3,
  );
  let prev: SimRequest | null = null;
  for (let turn = 0; turn < 4; turn++) {
    const s = g.next(0)!;
    assert.ok(s, "the conversation is ready");
    assert.equal(g.next(0), null, "busy until its answer arrives and the think time passes");
    const req = new SimRequest(turn, s, "m", 0, fast, 16);
    assert.equal(s.messages.length, 2 + 2 * turn);
    assert.deepEqual(req.promptTokens, [...new SimRequest(turn, s, "m", 0, bpe, 16).promptTokens], "fast path = BPE");
    if (prev !== null) {
      const p: RequestSpec = prev.spec;
      assert.deepEqual(s.messages.slice(0, p.messages.length), p.messages);
      assert.equal(s.messages[p.messages.length].role, "assistant");
      assert.deepEqual([...bpe.encode(s.messages[p.messages.length].content)], [...p.outputTokens!]);
      const answered: number[] = [...prev.promptTokens, ...p.outputTokens!];
      assert.deepEqual(req.promptTokens.slice(0, answered.length), answered);
    }
    const readyAt = g.complete(s, 1000);
    assert.ok(readyAt !== null && readyAt >= 2000 && readyAt <= 3000, "think time 1..2 s");
    g.release(s.slot);
    prev = req;
  }
  const fresh = g.next(0)!;
  assert.equal(fresh.messages.length, 2, "after its last turn the slot starts a new conversation");
  assert.notEqual(fresh.sessionKey, prev!.spec.sessionKey);
});

test("generators are deterministic by seed", () => {
  const mk = (seed: number) =>
    [
      createGenerator(spec("shared-prefix", { groups: 5, promptsPerGroup: 5, systemTokens: 20, questionTokens: 5, outputTokens: 2, groupSkew: 0 }), 0, seed),
      createGenerator(spec("long-doc-qa", { documents: 3, docTokens: 30, questionsPerDoc: 2, questionTokens: 4, outputTokens: 2 }), 1, seed),
      createGenerator(spec("multi-turn", { conversations: 3, turns: [1, 3], systemTokens: 5, userTokens: [2, 9], assistantTokens: [2, 9], thinkTimeS: [0, 0] }), 2, seed),
    ];
  const draw = (seed: number) => {
    const gens = mk(seed);
    const out: string[] = [];
    for (let i = 0; i < 30; i++) {
      const g = gens[i % 3];
      const s = g.next(0)!;
      out.push(JSON.stringify(s));
      const at = g.complete(s, 0);
      if (at !== null) g.release(s.slot);
    }
    return out;
  };
  assert.deepEqual(draw(1), draw(1));
  assert.notDeepEqual(draw(1), draw(2));
});

test("multi-turn as agent sessions: each session draws one of several tool prompts, the first message has its own size", () => {
  const g = createGenerator(
    spec("multi-turn", {
      conversations: 40, turns: [2, 2], systemTokens: 30, systemPrompts: 3, systemSkew: 0,
      firstUserTokens: [50, 50], userTokens: [5, 5], assistantTokens: [3, 3], thinkTimeS: [0, 0],
    }),
    0, 8,
  );
  const systems = new Set<string>();
  const first: RequestSpec[] = [];
  for (let i = 0; i < 40; i++) first.push(g.next(0)!);
  for (const s of first) {
    assert.equal(bpe.encode(s.messages[0].content).length, 30);
    assert.equal(bpe.encode(s.messages[1].content).length, 50, "the task");
    systems.add(s.messages[0].content);
    g.complete(s, 0);
    g.release(s.slot);
  }
  assert.equal(systems.size, 3, "sessions spread over the three tool prompts");
  const second = g.next(0)!;
  assert.equal(second.messages.length, 4);
  assert.equal(bpe.encode(second.messages[3].content).length, 5, "later messages (tool outputs) use userTokens");
  const single = createGenerator(
    spec("multi-turn", { conversations: 1, turns: [1, 1], systemTokens: 30, systemPrompts: 1, systemSkew: 0, userTokens: [5, 5], assistantTokens: [3, 3], thinkTimeS: [0, 0] }),
    0, 8,
  );
  assert.ok(systems.has(single.next(0)!.messages[0].content), "prompt 0 is the single-prompt shape's system prompt");
});

test("a wedge fault parses with externalQps 0 by default, and scaling scales its start and its length", () => {
  const w = parseWorkload(JSON.parse(readFileSync("examples/workloads/wedged-pod.json", "utf8")));
  const wedge = w.faults.find((f) => f.type === "wedge");
  assert.ok(wedge !== undefined && wedge.type === "wedge");
  const scaled = scaleWorkload(w, 0.25).faults.find((f) => f.type === "wedge");
  assert.ok(scaled !== undefined && scaled.type === "wedge");
  assert.equal(scaled.atS, wedge.atS * 0.25);
  assert.equal(scaled.durationS, wedge.durationS * 0.25);
  assert.equal(scaled.externalQps, wedge.externalQps);
  const bare = parseWorkload({ ...JSON.parse(readFileSync("examples/workloads/wedged-pod.json", "utf8")), faults: [{ type: "wedge", atS: 1, pod: 0, durationS: 2 }] });
  assert.deepEqual(bare.faults[0], { type: "wedge", atS: 1, pod: 0, durationS: 2, externalQps: 0 });
});
