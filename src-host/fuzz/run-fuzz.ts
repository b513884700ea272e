// Runs fuzz targets for a number of iterations from a seed. Iteration i of a target draws its input from a
// generator seeded by (seed, target, i), so any single failure is reproducible on its own. Failing inputs go to
// a findings folder. Targets that reuse one plugin VM get a leak check: after the run, the last inputs are replayed,
// and the replay must not grow linear memory (the run was the warm-up).
import { BodyTarget } from "./body-target.ts";
import { ConfigTarget } from "./config-target.ts";
import { saveCorpusEntry } from "./corpus.ts";
import { HostsTarget } from "./hosts-target.ts";
import { SeededRandom } from "../util/seeded-random.ts";
import { SchedulerTarget } from "./scheduler-target.ts";
import type { FuzzTarget } from "./target.ts";

export const TARGET_NAMES = ["bodies", "hosts", "configs", "scheduler"] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

export interface FuzzOptions {
  targets?: readonly TargetName[];
  iterations: number;
  seed: number;
  /** Run only this iteration (to reproduce one failure). */
  only?: number;
  /** Save failing inputs (default true), into saveDir (default corpus.ts's FINDINGS_DIR). */
  save?: boolean;
  saveDir?: string;
  /** Inputs replayed by the leak check (default 200). */
  replay?: number;
  /** Per-target iteration count overrides (configs are slower: each makes a VM). */
  iterationsFor?: Partial<Record<TargetName, number>>;
  log?: (line: string) => void;
}

export interface FuzzFailure {
  iteration: number;
  violations: string[];
  file: string | null;
}

export interface TargetReport {
  target: TargetName;
  iterations: number;
  failures: FuzzFailure[];
  ms: number;
  memory: { afterRun: number; afterReplay: number } | null;
}

export async function createTarget(name: TargetName): Promise<FuzzTarget<unknown>> {
  switch (name) {
    case "bodies": return new BodyTarget() as FuzzTarget<unknown>;
    case "hosts": return new HostsTarget() as FuzzTarget<unknown>;
    case "configs": return new ConfigTarget() as FuzzTarget<unknown>;
    case "scheduler": return (await SchedulerTarget.create()) as FuzzTarget<unknown>;
  }
}

/** The seed of iteration i of a target. */
export function iterationSeed(seed: number, target: string, i: number): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (const ch of `${target}#${i}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

/** Runs an input, turning an exception thrown by the host into a violation. */
export function runSafely<I>(target: FuzzTarget<I>, input: I): string[] {
  try {
    return target.run(input);
  } catch (e) {
    return [`exception: ${e instanceof Error ? e.stack ?? e.message : String(e)}`];
  }
}

export async function runFuzz(o: FuzzOptions): Promise<TargetReport[]> {
  const log = o.log ?? (() => {});
  const reports: TargetReport[] = [];
  for (const name of o.targets ?? TARGET_NAMES) {
    const started = performance.now();
    const target = await createTarget(name);
    const iterations = o.iterationsFor?.[name] ?? o.iterations;
    const failures: FuzzFailure[] = [];
    const kept: unknown[] = [];
    const keep = o.replay ?? 200;
    const first = o.only ?? 0;
    const last = o.only ?? iterations - 1;
    for (let i = first; i <= last; i++) {
      const input = target.generate(new SeededRandom(iterationSeed(o.seed, name, i)));
      const violations = runSafely(target, input);
      if (violations.length > 0) {
        const file = o.save === false ? null : saveCorpusEntry({ target: name, violations, seed: o.seed, iteration: i, input: target.toJson(input) }, o.saveDir);
        failures.push({ iteration: i, violations, file });
        log(`${name} #${i}: ${violations.join("; ")}${file ? ` (saved ${file})` : ""}`);
      }
      if (target.memoryBytes() !== null) {
        kept.push(input);
        if (kept.length > keep) kept.shift();
      }
    }
    let memory: TargetReport["memory"] = null;
    const afterRun = target.memoryBytes();
    if (afterRun !== null) {
      for (const input of kept) runSafely(target, input);
      memory = { afterRun, afterReplay: target.memoryBytes()! };
    }
    target.close();
    const ms = performance.now() - started;
    reports.push({ target: name, iterations: last - first + 1, failures, ms, memory });
    log(`${name}: ${last - first + 1} iterations, ${failures.length} failing, ${ms.toFixed(0)} ms${memory ? `, memory ${memory.afterRun} -> ${memory.afterReplay} bytes after replay` : ""}`);
  }
  return reports;
}
