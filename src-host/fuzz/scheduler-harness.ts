// Compiles tests/wasm/fuzz-scheduler-harness.ts (the plugin's Scheduler behind a few exports) with the release
// build's optimization flags and runs candidate sets through it.
import asc from "assemblyscript/asc";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Candidate, ScoringParams, Scores } from "./reference-scoring.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ENTRY = path.join(repoRoot, "tests/wasm/fuzz-scheduler-harness.ts");

interface Exports {
  capacity(): number;
  configure(...a: Array<number | bigint>): void;
  add(...a: number[]): number;
  pick(chainLength: number): number;
  score(signal: number, i: number): number;
  guarded(i: number): number;
}

export interface SchedulerRun {
  pick: number;
  scores: Scores;
}

export class SchedulerHarness {
  private constructor(private readonly x: Exports) {}

  static async compile(): Promise<SchedulerHarness> {
    let binary: Uint8Array | null = null;
    const errors: string[] = [];
    const { error } = await asc.main([ENTRY, "--outFile", "harness.wasm", "-O3", "--converge", "--noAssert", "--runtime", "stub"], {
      readFile(name: string, baseDir: string) {
        // The repo's asconfig.json wires the plugin's ABI abort handler; this standalone entry does without.
        if (path.basename(name) === "asconfig.json") return null;
        try {
          return readFileSync(path.resolve(baseDir, name), "utf8");
        } catch {
          return null;
        }
      },
      writeFile(name: string, contents: Uint8Array | string) {
        if (name.endsWith(".wasm") && typeof contents !== "string") binary = new Uint8Array(contents);
      },
      stderr: { write: (c: Uint8Array | string) => errors.push(String(c)) > 0 } as never,
    });
    if (error || !binary) throw new Error(`asc ${ENTRY}: ${error?.message}\n${errors.join("")}`);
    const instance = new WebAssembly.Instance(new WebAssembly.Module(binary), {
      env: {
        abort: () => {
          throw new Error("scheduler harness aborted");
        },
      },
    });
    return new SchedulerHarness(instance.exports as unknown as Exports);
  }

  get capacity(): number {
    return this.x.capacity();
  }

  run(candidates: Candidate[], chainLength: number, p: ScoringParams, seed: bigint): SchedulerRun {
    const w = p.weights;
    this.x.configure(
      w.queue, w.kvCache, w.prefixCache, w.inflight, w.loraAffinity, w.failure, w.session,
      p.lambda, p.lengthCreditChars, p.chunkChars | 0, p.guardFactor, p.guardSlack, BigInt.asUintN(64, seed),
      p.queueSpan, p.inflightSpan,
    );
    for (const c of candidates) {
      this.x.add(+c.healthy, +c.hasMetrics, c.waiting, c.running, c.kvUsage, +c.hasKv, c.inflight | 0, c.prefixMatched | 0, c.loraState | 0, c.failureEwma, +c.sessionMatch);
    }
    const pick = this.x.pick(chainLength | 0);
    const n = Math.min(candidates.length, this.capacity);
    const col = (signal: number) => Array.from({ length: n }, (_, i) => this.x.score(signal, i));
    return {
      pick,
      scores: {
        queue: col(0), kv: col(1), prefix: col(2), inflight: col(3), lora: col(4), failure: col(5), session: col(6), total: col(7),
        guarded: Array.from({ length: n }, (_, i) => this.x.guarded(i) !== 0),
      },
    };
  }
}
