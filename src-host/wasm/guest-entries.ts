// The AssemblyScript entries the tooling compiles (with compile-as.ts), relative to the repository root. The
// guest modules written for the tooling live in src-host/guest/; the tests' own guests live in tests/guest/.

/** The product plugin (the Higress build's entry), compiled in the bench's own builds. */
export const PICKER_PLUGIN_ENTRY = "assembly/higress.ts";
/** A plugin that only buffers the body: the bench's baseline for the cost of running any plugin. */
export const BASELINE_PLUGIN_ENTRY = "src-host/guest/bench-baseline-plugin.ts";
/** Empty stages, to measure one stage mark's own cost. */
export const CALIBRATION_ENTRY = "src-host/guest/bench-stage-calibration.ts";
/** The prefix index behind a loop of lookups and records. */
export const INDEX_HARNESS_ENTRY = "src-host/guest/bench-prefix-index.ts";
/** The plugin's XXH64 behind an export. */
export const XXH64_HARNESS_ENTRY = "src-host/guest/xxh64-harness.ts";
/** The plugin's Scheduler behind a few exports, for the differential fuzz target. */
export const SCHEDULER_HARNESS_ENTRY = "src-host/guest/fuzz-scheduler-harness.ts";
