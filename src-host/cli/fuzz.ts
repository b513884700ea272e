// Seeded fuzzing of the built picker: request bodies, upstream-host answers, plugin configs, and the scheduler
// against its reference model. Failing inputs are saved under build/fuzz-findings/<target>/ (or --save-dir);
// copy one into tests/corpus/<target>/ to have the tests replay it.
//   npm run fuzz -- --iterations 20000 --seed 7 [--target bodies,hosts] [--only 123] [--no-save] [--save-dir D]
//   npm run fuzz -- --soak 5000000 --seed 7      (lease/memory soak only)
import { runLeaseSoak } from "../fuzz/lease-soak.ts";
import { runFuzz, TARGET_NAMES, type TargetName } from "../fuzz/run-fuzz.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (arg("soak") !== undefined) {
  const r = runLeaseSoak({ requests: Number(arg("soak")), seed: Number(arg("seed") ?? 1) });
  const even = r.spread.every((m) => m.size === r.liveEndpoints && [...m.values()].every((n) => n === 2));
  console.log(JSON.stringify({ ...r, spread: r.spread.map((m) => Object.fromEntries(m)) }));
  const ok = r.inflightGauge === 0 && even && r.memoryAtEnd === r.memoryAfterWarmup;
  console.log(ok ? "soak: every lease back, memory flat" : "soak: FAILED");
  process.exit(ok ? 0 : 1);
}

const iterations = Number(arg("iterations") ?? 1000);
const seed = Number(arg("seed") ?? 1);
const only = arg("only") === undefined ? undefined : Number(arg("only"));
const targets = (arg("target")?.split(",") ?? [...TARGET_NAMES]) as TargetName[];
for (const t of targets) {
  if (!TARGET_NAMES.includes(t)) {
    console.error(`unknown target ${t}; targets: ${TARGET_NAMES.join(", ")}`);
    process.exit(2);
  }
}
if (!(iterations > 0) || !Number.isInteger(seed)) {
  console.error("usage: fuzz --iterations N --seed S [--target a,b] [--only I] [--no-save] [--save-dir DIR]");
  process.exit(2);
}

const reports = await runFuzz({
  targets,
  iterations,
  seed,
  only,
  save: !process.argv.includes("--no-save"),
  saveDir: arg("save-dir"),
  // Each config iteration builds two VMs; keep their share of the time reasonable.
  iterationsFor: { configs: Math.max(1, Math.ceil(iterations / 10)) },
  log: (line) => console.log(line),
});
let failed = 0;
for (const r of reports) {
  failed += r.failures.length;
  if (r.memory && r.memory.afterReplay > r.memory.afterRun) {
    console.log(`${r.target}: linear memory grew during the replay (${r.memory.afterRun} -> ${r.memory.afterReplay})`);
    failed++;
  }
}
console.log(failed === 0 ? "fuzz: no property violated" : `fuzz: ${failed} failure(s)`);
process.exit(failed === 0 ? 0 : 1);
