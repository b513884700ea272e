// The simulator's placement diagnostics: for every policy, how much of the prompt the chosen and the best pod held
// at the pick, how often a key (group, document, conversation) went to another pod than its previous request, and
// over how many pods each key spread.
import { test } from "node:test";
import assert from "node:assert/strict";
import { COLD_MAX_TOKENS, MOVE_MIN_TOKENS, PlacementDiagnostics, placementText } from "../../src-host/sim/placement-diagnostics.ts";
import { runPolicies } from "../../src-host/sim/run-policies.ts";
import { parseWorkload } from "../../src-host/sim/workload.ts";

const truth = (held: Record<string, number>, promptTokens = 1000) => ({ promptTokens, cachedByPod: new Map(Object.entries(held)) });

test("moves are counted against the key's previous pod, and a move that leaves the cache behind is told apart", () => {
  const d = new PlacementDiagnostics();
  d.add("g1", "a", truth({ a: 0, b: 0 })); // first request of g1: cold, no move possible
  d.add("g1", "a", truth({ a: 800, b: 0 })); // stays
  d.add("g1", "b", truth({ a: 800, b: 0 })); // moves away from a pod holding 800 more
  d.add("g1", "a", truth({ a: 800, b: 800 - MOVE_MIN_TOKENS + 1 })); // moves back, leaving less than MOVE_MIN_TOKENS behind
  d.add("g2", "b", truth({ a: COLD_MAX_TOKENS, b: 0 })); // first request of g2, a pod held COLD_MAX_TOKENS: not cold
  const s = d.summary();
  assert.equal(s.decisions, 5);
  assert.equal(s.cached_chosen, (0 + 800 + 0 + 800 + 0) / 5000);
  assert.equal(s.cached_best, (0 + 800 + 800 + 800 + COLD_MAX_TOKENS) / 5000);
  assert.equal(s.cold_share, 1 / 5);
  assert.equal(s.moved_share, 2 / 3, "two of g1's three repeats changed pod");
  assert.equal(s.moved_off_cache_share, 1 / 2);
  assert.equal(s.pods_per_key, 2, "g1 used two pods; g2, with one request, is left out");
  assert.match(placementText("p", s), /moved off its key's previous pod 66\.7% \(50\.0% of them/);
});

test("an empty run summarizes to zeros", () => {
  const s = new PlacementDiagnostics().summary();
  assert.deepEqual(s, { decisions: 0, cached_chosen: 0, cached_best: 0, cold_share: 0, moved_share: 0, moved_off_cache_share: 0, pods_per_key: 0 });
});

test("with diagnostics on, every policy reports its placement; a consistent hash never moves a key", async () => {
  const workload = parseWorkload({
    name: "tiny-groups",
    seed: 3,
    pods: { count: 3, kvTokens: 16_384, prefillTokensPerSec: 20_000, decodeStepMs: { baseMs: 5, perSequenceMs: 0.1 } },
    arrival: { qps: 20, durationS: 3 },
    traffic: [{ type: "shared-prefix", groups: 4, promptsPerGroup: 3, systemTokens: 600, questionTokens: 50, outputTokens: 10 }],
  });
  const result = await runPolicies(workload, ["consistent-hash", "round-robin"], { diagnose: true, parallel: 1 });
  const hash = result.policies["consistent-hash"].placement!;
  const rr = result.policies["round-robin"].placement!;
  assert.equal(hash.decisions, result.policies["consistent-hash"].completed);
  assert.equal(hash.moved_share, 0);
  assert.equal(hash.pods_per_key, 1);
  assert.ok(rr.moved_share > 0.3, `round-robin moves keys (${rr.moved_share})`);
  assert.ok(rr.pods_per_key > 1.5, String(rr.pods_per_key));
  assert.ok(hash.cached_chosen <= hash.cached_best && hash.cached_best <= 1);
  const plain = await runPolicies(workload, ["round-robin"], { parallel: 1 });
  assert.equal(plain.policies["round-robin"].placement, undefined, "no placement figures without diagnostics");
});
