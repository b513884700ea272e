// Per-stage profile of one decision: where the plugin's time goes, by stage, for several body sizes and
// endpoint counts. A bench-only build of the plugin (compileAs "profile": the release build with
// PROFILE_STAGES defined) calls the host at every stage boundary (assembly/abi/stage-profile.ts); the host
// timestamps each call and charges the time since the previous one to the innermost open stage. One mark's
// own cost is measured on empty stages (src-host/guest/bench-stage-calibration.ts) and taken out of every
// interval. The product build, timed in the same rounds, shows how far the marks distort the whole.
import { BenchGateway } from "./bench-gateway.ts";
import { chatBody } from "./chat-body.ts";
import { interleavedRounds, median, type Contender } from "./interleaved-rounds.ts";
import { compileAs } from "../wasm/compile-as.ts";
import { BASELINE_PLUGIN_ENTRY, CALIBRATION_ENTRY, PICKER_PLUGIN_ENTRY } from "../wasm/guest-entries.ts";
import type { ImportBuilder, WasmVm } from "../host/vm.ts";
import { instrumentOpCount, opsCounted } from "./wasm-op-count.ts";

/** Index = the stage id of assembly/abi/stage-profile.ts (0: outside every stage). */
export const STAGE_NAMES = [
  "", "gc", "context", "gate", "bodyRead", "headers", "extract", "chunkHash", "snapshot", "indexLookup",
  "sharedHints", "scoring", "route", "record", "telemetry", "response",
] as const;
export type StageName = Exclude<(typeof STAGE_NAMES)[number], "">;

/** Time per stage from the host's side of the stage marks. */
export class StageClock {
  readonly totalMs = new Float64Array(STAGE_NAMES.length);
  readonly intervals = new Float64Array(STAGE_NAMES.length);
  private readonly stack = new Int32Array(64);
  private depth = 0;
  private last = 0;

  enter(stage: number): void {
    const now = performance.now();
    this.charge(now);
    if (this.depth < this.stack.length - 1) this.stack[++this.depth] = stage;
  }

  leave(): void {
    const now = performance.now();
    this.charge(now);
    if (this.depth > 0) this.depth--;
  }

  private charge(now: number): void {
    if (this.depth > 0) {
      const top = this.stack[this.depth];
      this.totalMs[top] += now - this.last;
      this.intervals[top]++;
    }
    this.last = now;
  }

  reset(): void {
    this.totalMs.fill(0);
    this.intervals.fill(0);
  }

  imports(): ImportBuilder {
    return () => ({
      "bench_profile.stage_enter": (stage: number) => this.enter(stage),
      "bench_profile.stage_leave": () => this.leave(),
    });
  }
}

/** Operations per stage from a profiling build counted by wasm-op-count.ts (the stage marks' own calls included). */
export class StageOps {
  readonly ops = new Float64Array(STAGE_NAMES.length);
  private readonly stack: number[] = [0];
  private vm: WasmVm | null = null;
  private last = 0n;

  private now(): bigint {
    return this.vm === null ? 0n : opsCounted(this.vm.instance);
  }

  private charge(): void {
    const now = this.now();
    this.ops[this.stack[this.stack.length - 1]] += Number(now - this.last);
    this.last = now;
  }

  /** Starts counting afresh (between requests: no stage is open). */
  reset(): void {
    this.ops.fill(0);
    this.stack.length = 1;
    this.last = this.now();
  }

  /** Charges what ran since the last mark to the stage open now (0: outside every stage). */
  settle(): void {
    this.charge();
  }

  imports(): ImportBuilder {
    return (vm) => {
      this.vm = vm;
      return {
        "bench_profile.stage_enter": (stage: number) => {
          this.charge();
          this.stack.push(stage);
        },
        "bench_profile.stage_leave": () => {
          this.charge();
          if (this.stack.length > 1) this.stack.pop();
        },
      };
    };
  }
}

export interface StageProfileOptions {
  sizes: number[];
  endpointCounts: number[];
  rounds: number;
  targetMs: number;
  variants: number;
}

export interface StageProfileRow {
  endpoints: number;
  bodyBytes: number;
  /** Median over rounds of microseconds per request in each stage, one mark's cost taken out of each interval. */
  stagesUs: Record<StageName, number>;
  /** Sum of stagesUs. */
  stagesSumUs: number;
  /** Stage intervals per request (marks the profiling build adds, about two per interval). */
  intervalsPerRequest: number;
  /** Medians, microseconds per request: the profiling build, the product build, the body-copy baseline. */
  profiledUs: number;
  pickerUs: number;
  bodyCopyUs: number;
  /** pickerUs - bodyCopyUs, as in the decision bench. */
  pluginOwnUs: number;
  /** WebAssembly operations per request in each stage, and outside every stage (wasm-op-count.ts: the profiling build
   *  counted, the same on every run), over the same bodies. */
  stagesOps: Record<StageName | "outside", number>;
  /** All of a request's operations (the stages' and those outside them). */
  opsPerRequest: number;
}

export interface StageProfileResult {
  rounds: number;
  /** Microseconds one stage interval's marks cost (measured on empty stages, taken out of every interval). */
  markUs: number;
  rows: StageProfileRow[];
}

/** The plugin configuration for a bench with `endpoints` endpoints (the default allows 64). */
export function configForEndpoints(endpoints: number): string {
  return endpoints > 64 ? JSON.stringify({ limits: { maxEndpoints: endpoints } }) : "{}";
}

async function markCostUs(clock: StageClock): Promise<number> {
  const binary = await compileAs(CALIBRATION_ENTRY, "standalone");
  const builder = clock.imports();
  const fns = builder(undefined as never) as Record<string, WebAssembly.ImportValue>;
  const { instance } = await WebAssembly.instantiate(binary, {
    env: { abort() { throw new Error("stage calibration aborted"); } },
    bench_profile: { stage_enter: fns["bench_profile.stage_enter"], stage_leave: fns["bench_profile.stage_leave"] },
  });
  const mark = instance.exports.markEmptyStages as (stage: number, n: number) => void;
  const samples: number[] = [];
  for (let round = 0; round < 15; round++) {
    clock.reset();
    mark(1, 20_000);
    samples.push((clock.totalMs[1] * 1000) / clock.intervals[1]);
  }
  clock.reset();
  return median(samples.slice(5));
}

export async function stageProfile(options: StageProfileOptions): Promise<StageProfileResult> {
  const clock = new StageClock();
  const markUs = await markCostUs(clock);
  const profileBinary = await compileAs(PICKER_PLUGIN_ENTRY, "profile");
  const profileWasm = new WebAssembly.Module(profileBinary);
  const countedWasm = new WebAssembly.Module(await instrumentOpCount(profileBinary));
  const pickerWasm = new WebAssembly.Module(await compileAs(PICKER_PLUGIN_ENTRY, "release"));
  const baselineWasm = new WebAssembly.Module(await compileAs(BASELINE_PLUGIN_ENTRY, "release"));
  const rows: StageProfileRow[] = [];

  for (const endpoints of options.endpointCounts) {
    const config = configForEndpoints(endpoints);
    const profiled = new BenchGateway(profileWasm, config, undefined, false, { endpoints, extraImports: [clock.imports()] });
    const picker = new BenchGateway(pickerWasm, config, undefined, false, { endpoints });
    const bodyCopy = new BenchGateway(baselineWasm, "read-body", "bench_baseline", false, { endpoints });
    const stageOps = new StageOps();
    const counted = new BenchGateway(countedWasm, config, undefined, false, { endpoints, extraImports: [stageOps.imports()] });
    for (const size of options.sizes) {
      const bodies = Array.from({ length: options.variants }, (_, v) => chatBody(size, v));
      for (let pass = 0; pass < 2; pass++) {
        for (const body of bodies) {
          for (const g of [profiled, picker, counted]) {
            if (g.request(body.bytes).overrideHost === null) {
              throw new Error(`no decision for a ${size}-byte body with ${endpoints} endpoints: ${g.warnings.join(" | ") || "no warning logged"}`);
            }
          }
        }
      }
      // Operations: each body once, after the same warm-up as the timed builds.
      stageOps.reset();
      for (const body of bodies) counted.request(body.bytes);
      stageOps.settle();
      const stagesOps = {} as Record<StageName | "outside", number>;
      let opsTotal = 0;
      for (let s = 0; s < STAGE_NAMES.length; s++) {
        stagesOps[(STAGE_NAMES[s] || "outside") as StageName | "outside"] = stageOps.ops[s] / bodies.length;
        opsTotal += stageOps.ops[s];
      }
      const stageSamples: number[][] = STAGE_NAMES.map(() => []);
      const intervalSamples: number[] = [];
      const contender = (name: string, g: BenchGateway, afterRun?: (n: number) => void): Contender => {
        let next = 0;
        return {
          name,
          run(n) {
            for (let i = 0; i < n; i++) g.request(bodies[next++ % bodies.length].bytes);
            afterRun?.(n);
          },
        };
      };
      const profiledRun = contender("profiled", profiled, (n) => {
        let intervals = 0;
        for (let s = 1; s < STAGE_NAMES.length; s++) {
          stageSamples[s].push(((clock.totalMs[s] * 1000) - clock.intervals[s] * markUs) / n);
          intervals += clock.intervals[s];
        }
        intervalSamples.push(intervals / n);
        clock.reset();
      });
      clock.reset();
      const result = interleavedRounds(
        [profiledRun, contender("picker", picker), contender("bodyCopy", bodyCopy)],
        { rounds: options.rounds, targetMs: options.targetMs, minIterations: 2 },
      );
      // The calibration runs fill the first samples; keep the timed rounds only.
      const timed = (samples: number[]) => samples.slice(samples.length - options.rounds);
      const stagesUs = {} as Record<StageName, number>;
      let sum = 0;
      for (let s = 1; s < STAGE_NAMES.length; s++) {
        const us = median(timed(stageSamples[s]));
        stagesUs[STAGE_NAMES[s] as StageName] = us;
        sum += us;
      }
      const us = result.medianUs;
      rows.push({
        endpoints,
        bodyBytes: size,
        stagesUs,
        stagesSumUs: sum,
        intervalsPerRequest: median(timed(intervalSamples)),
        profiledUs: us.profiled,
        pickerUs: us.picker,
        bodyCopyUs: us.bodyCopy,
        pluginOwnUs: us.picker - us.bodyCopy,
        stagesOps,
        opsPerRequest: opsTotal / bodies.length,
      });
    }
    for (const g of [profiled, picker, bodyCopy, counted]) g.host.close();
  }
  return { rounds: options.rounds, markUs, rows };
}
