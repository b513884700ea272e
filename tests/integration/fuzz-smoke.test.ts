// A short seeded fuzz run of every target (bodies, upstream-host answers, configs, scheduler vs its reference
// model) with the leak check, and a replay of every saved corpus input. The long run is `npm run fuzz`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadCorpus } from "../../src-host/fuzz/corpus.ts";
import { createTarget, runFuzz, runSafely, TARGET_NAMES } from "../../src-host/fuzz/run-fuzz.ts";

const SEED = 20240601;

test("a short seeded fuzz run violates no property and does not grow linear memory on replay", async () => {
  const reports = await runFuzz({
    iterations: 400,
    seed: SEED,
    save: false,
    iterationsFor: { configs: 60, scheduler: 1500 },
  });
  for (const r of reports) {
    assert.deepEqual(
      r.failures.map((f) => `#${f.iteration}: ${f.violations.join("; ")}`),
      [],
      `${r.target}: reproduce with npm run fuzz -- --seed ${SEED} --target ${r.target} --only <iteration>`,
    );
    if (r.memory) assert.ok(r.memory.afterReplay <= r.memory.afterRun, `${r.target}: memory grew on replay ${JSON.stringify(r.memory)}`);
  }
  assert.deepEqual(reports.map((r) => r.target), [...TARGET_NAMES]);
});

for (const name of TARGET_NAMES) {
  test(`saved corpus inputs of "${name}" hold every property`, async () => {
    const entries = loadCorpus(name);
    if (entries.length === 0) return;
    const target = await createTarget(name);
    try {
      for (const { file, entry } of entries) {
        assert.deepEqual(runSafely(target, target.fromJson(entry.input)), [], file);
      }
    } finally {
      target.close();
    }
  });
}
