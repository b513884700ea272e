// The soak's pure parts: the open-loop arrival schedule, nearest-rank percentiles (against a brute-force
// oracle), the linear-memory verdict, and the workload (same kinds for every arm, bodies as labelled).
import { test } from "node:test";
import assert from "node:assert/strict";
import { arrivalTimesMs } from "../../src-host/soak/arrival-schedule.ts";
import { percentileOfSorted, summarize } from "../../src-host/soak/latency-summary.ts";
import { memoryVerdict, type MemorySample } from "../../src-host/soak/memory-series.ts";
import { DEFAULT_SOAK_WORKLOAD, SoakWorkload } from "../../src-host/soak/soak-workload.ts";
import { SeededRandom } from "../../src-host/util/seeded-random.ts";

test("arrivals: round(rate × seconds) of them, ascending, inside the run, the same for the same seed", () => {
  for (const [rps, seconds] of [[20, 5], [350, 60], [0.5, 3], [1000, 0.01]]) {
    const t = arrivalTimesMs(rps, seconds, 7);
    assert.equal(t.length, Math.max(1, Math.round(rps * seconds)));
    for (let i = 0; i < t.length; i++) {
      assert.ok(t[i] >= 0 && t[i] < seconds * 1000);
      if (i > 0) assert.ok(t[i] >= t[i - 1]);
    }
    assert.deepEqual(arrivalTimesMs(rps, seconds, 7), t);
  }
  assert.notDeepEqual(arrivalTimesMs(50, 2, 1), arrivalTimesMs(50, 2, 2));
  // Spread over the run, not bunched: each half holds roughly half (binomial, n = 21000, far inside 5 sigma).
  const t = arrivalTimesMs(350, 60, 3);
  const firstHalf = t.filter((x) => x < 30_000).length;
  assert.ok(Math.abs(firstHalf - t.length / 2) < 5 * Math.sqrt(t.length / 4), `${firstHalf} of ${t.length} in the first half`);
  assert.throws(() => arrivalTimesMs(0, 5, 1), RangeError);
  assert.throws(() => arrivalTimesMs(5, Infinity, 1), RangeError);
});

test("percentiles: nearest rank, equal to counting the sample", () => {
  const rng = new SeededRandom(5);
  for (let round = 0; round < 50; round++) {
    const xs = Array.from({ length: 1 + rng.int(300) }, () => Math.round(rng.uniform(0, 100) * 10) / 10);
    const sorted = [...xs].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99, 1]) {
      const p = percentileOfSorted(sorted, q)!;
      // The smallest sample value with at least q of the sample at or below it.
      const atOrBelow = (v: number) => xs.filter((x) => x <= v).length;
      assert.ok(atOrBelow(p) >= q * xs.length);
      for (const v of xs) if (v < p) assert.ok(atOrBelow(v) < q * xs.length);
    }
    const s = summarize(xs);
    assert.equal(s.n, xs.length);
    assert.equal(s.max, Math.max(...xs));
    assert.ok(Math.abs(s.mean! - xs.reduce((a, b) => a + b, 0) / xs.length) < 1e-9);
  }
  assert.deepEqual(summarize([]), { n: 0, p50: null, p90: null, p99: null, max: null, mean: null });
});

test("memory verdict: growth after the middle of the run is caught, growth before it is warm-up", () => {
  const series = (sizes: number[][]): MemorySample[] =>
    sizes.map((linearMemoryBytes, i) => ({ at: i / 10, rssBytes: 1, heapUsedBytes: 1, linearMemoryBytes }));
  const P = 65536;
  const warmup = series([[P, P], [2 * P, P], [3 * P, 2 * P], [3 * P, 2 * P], [3 * P, 2 * P], [3 * P, 2 * P], [3 * P, 2 * P], [3 * P, 2 * P], [3 * P, 2 * P], [3 * P, 2 * P], [3 * P, 2 * P]]);
  assert.deepEqual(memoryVerdict(warmup), { linearGrewInSecondHalf: false, linearFlatFrom: 0.2 });
  const late = warmup.map((s) => ({ ...s, linearMemoryBytes: s.at >= 0.8 ? [3 * P, 3 * P] : s.linearMemoryBytes }));
  assert.deepEqual(memoryVerdict(late), { linearGrewInSecondHalf: true, linearFlatFrom: 0.8 });
  // Growth between 50% and 60% is already the second half.
  const justAfter = warmup.map((s) => ({ ...s, linearMemoryBytes: s.at >= 0.6 ? [4 * P, 2 * P] : s.linearMemoryBytes }));
  assert.equal(memoryVerdict(justAfter).linearGrewInSecondHalf, true);
  assert.deepEqual(memoryVerdict(series([[], []])), { linearGrewInSecondHalf: false, linearFlatFrom: null });
});

test("workload: every arm gets the same kinds; chats stream and grow turn by turn; odd bodies are what they claim", () => {
  const a = new SoakWorkload(DEFAULT_SOAK_WORKLOAD, 11);
  const b = new SoakWorkload(DEFAULT_SOAK_WORKLOAD, 11);
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const ra = a.next();
    const rb = b.next();
    assert.equal(ra.kind, rb.kind, `request ${i}`);
    seen.add(ra.kind);
    // Arm a gets answers, arm b never does: the kinds must still line up.
    if (ra.kind === "chat") a.answered(ra.conversation!, `answer ${i}`);
    if (ra.kind === "chat" || ra.kind === "abort") {
      const body = JSON.parse(ra.body) as { stream: boolean; max_tokens: number; messages: Array<{ role: string; content: string }> };
      assert.equal(body.stream, true);
      assert.equal(body.messages[0].role, "system");
      assert.equal(body.messages.at(-1)!.role, "user");
      // Turns alternate user/assistant after the system prompt.
      body.messages.slice(1).forEach((m, j) => assert.equal(m.role, j % 2 === 0 ? "user" : "assistant"));
      assert.ok(body.max_tokens >= DEFAULT_SOAK_WORKLOAD.maxTokens[0] && body.max_tokens <= DEFAULT_SOAK_WORKLOAD.maxTokens[1]);
    } else if (ra.kind === "malformed") {
      assert.equal(ra.contentType, "application/json");
      assert.throws(() => JSON.parse(ra.body));
    } else {
      assert.equal(ra.contentType, "text/plain");
      assert.throws(() => JSON.parse(ra.body));
    }
    assert.ok(a.waitingCount <= DEFAULT_SOAK_WORKLOAD.maxWaiting);
  }
  assert.deepEqual([...seen].sort(), ["abort", "chat", "malformed", "non-json"]);
});

test("workload: a conversation's follow-up repeats its earlier turns and its system prompt is shared", () => {
  const w = new SoakWorkload({ ...DEFAULT_SOAK_WORKLOAD, continueChance: 1, malformedShare: 0, nonJsonShare: 0, abortShare: 0, turns: [3, 3] }, 4);
  const first = w.next();
  w.answered(first.conversation!, "the first answer");
  const second = w.next();
  assert.equal(second.conversation, first.conversation);
  const m1 = (JSON.parse(first.body) as { messages: unknown[] }).messages;
  const m2 = (JSON.parse(second.body) as { messages: Array<{ role: string; content: string }> }).messages;
  assert.deepEqual(m2.slice(0, m1.length), m1);
  assert.deepEqual(m2[m1.length], { role: "assistant", content: "the first answer" });
  const prompts = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const r = w.next();
    prompts.add((JSON.parse(r.body) as { messages: Array<{ content: string }> }).messages[0].content);
  }
  assert.ok(prompts.size <= DEFAULT_SOAK_WORKLOAD.systemPromptTokens.length, `${prompts.size} distinct system prompts`);
});
