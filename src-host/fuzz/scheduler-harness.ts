// Compiles src-host/guest/fuzz-scheduler-harness.ts (the plugin's Scheduler behind a few exports) with the release
// build's optimization flags and runs candidate sets through it.
import { compileAs } from "../wasm/compile-as.ts";
import { SCHEDULER_HARNESS_ENTRY } from "../wasm/guest-entries.ts";
import type { Candidate, ScoringParams, Scores } from "./reference-scoring.ts";

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
    const binary = (await compileAs(SCHEDULER_HARNESS_ENTRY, "standalone")) as Uint8Array<ArrayBuffer>;
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
      p.queueSpan, p.inflightSpan, p.queueRelativeSpan, p.inflightRelativeSpan, p.creditOfBestMatch,
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
