// Seeded fuzzing of the built picker: request bodies, upstream-host answers, plugin configs, and the scheduler
// against its reference model. Failing inputs are saved under build/fuzz-findings/<target>/ (or --save-dir);
// copy one into tests/corpus/<target>/ to have the tests replay it.
//   npm run fuzz -- --iterations 20000 --seed 7 [--target bodies,hosts] [--only 123] [--no-save] [--save-dir D]
//   npm run fuzz -- --soak 5000000 --seed 7      (lease/memory soak only)
import { existsSync } from "node:fs";
import { runLeaseSoak } from "../fuzz/lease-soak.ts";
import { runFuzz, TARGET_NAMES, type TargetName } from "../fuzz/run-fuzz.ts";
import { builtPluginPath } from "../wasm/built-plugin.ts";
import { numberArg, parseCliArgs, usageError } from "../util/cli-args.ts";

const USAGE = `usage: npm run fuzz -- [--iterations N] [--seed S] [options]
       npm run fuzz -- --soak N [--seed S]
  --iterations N    inputs per target (default 1000; the configs target runs a tenth of them)
  --seed S          integer seed; a run is repeatable from it (default 1)
  --target a,b      targets to fuzz (default all: ${TARGET_NAMES.join(", ")})
  --only I          run only iteration I (to reproduce one failure)
  --no-save         do not save failing inputs
  --save-dir DIR    where failing inputs go (default build/fuzz-findings/<target>/)
  --soak N          instead of fuzzing, N requests of the lease/memory soak: every lease back, memory flat
  -h, --help        print this text and exit
Exit code 1 when a property is violated.`;

const TOOL = "fuzz";
const values = parseCliArgs(TOOL, USAGE, {
  iterations: { type: "string", default: "1000" },
  seed: { type: "string", default: "1" },
  target: { type: "string" },
  only: { type: "string" },
  "no-save": { type: "boolean", default: false },
  "save-dir": { type: "string" },
  soak: { type: "string" },
});
const seed = numberArg(TOOL, "seed", values.seed, { integer: true, min: 0, max: 0xffff_ffff });

// Every target but the scheduler (its own module) and the lease soak run the built plugin: a missing build is one line.
function needBuild(): void {
  for (const file of [builtPluginPath("higress"), builtPluginPath("envoy")]) {
    if (!existsSync(file)) usageError(TOOL, `${file} is missing: run \`npm run build\` first`);
  }
}

if (values.soak !== undefined) {
  const requests = numberArg(TOOL, "soak", values.soak, { integer: true, positive: true });
  needBuild();
  const r = runLeaseSoak({ requests, seed });
  const even = r.spread.every((m) => m.size === r.liveEndpoints && [...m.values()].every((n) => n === 2));
  console.log(JSON.stringify({ ...r, spread: r.spread.map((m) => Object.fromEntries(m)) }));
  const ok = r.inflightGauge === 0 && even && r.memoryAtEnd === r.memoryAfterWarmup;
  console.log(ok ? "soak: every lease back, memory flat" : "soak: FAILED");
  process.exit(ok ? 0 : 1);
}

const iterations = numberArg(TOOL, "iterations", values.iterations, { integer: true, positive: true });
const only = values.only === undefined ? undefined : numberArg(TOOL, "only", values.only, { integer: true, min: 0 });
const targets = (values.target?.split(",").map((t) => t.trim()).filter(Boolean) ?? [...TARGET_NAMES]) as TargetName[];
if (targets.length === 0) usageError(TOOL, "--target is empty");
for (const t of targets) {
  if (!TARGET_NAMES.includes(t)) usageError(TOOL, `unknown target "${t}"; targets: ${TARGET_NAMES.join(", ")}`);
}
if (targets.some((t) => t !== "scheduler")) needBuild();

const reports = await runFuzz({
  targets,
  iterations,
  seed,
  only,
  save: !values["no-save"],
  saveDir: values["save-dir"],
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
