// Fuzz target "scheduler": random candidate sets, weights and parameters (NaN, infinities, negatives, i32
// extremes, more candidates than capacity) through the plugin's compiled Scheduler, compared score by score and
// pick by pick (ties included, through the same SplitMix64 stream) with the TypeScript reference model.
import { bestCandidates, pickCandidate, scoreCandidates, SplitMix64, type Candidate, type ScoringParams, type Scores } from "./reference-scoring.ts";
import type { SeededRandom } from "../util/seeded-random.ts";
import { SchedulerHarness } from "./scheduler-harness.ts";
import type { FuzzTarget } from "./target.ts";

export interface SchedulerInput {
  candidates: Candidate[];
  chainLength: number;
  params: ScoringParams;
  seed: string;
}

const I32_MAX = 2147483647;
const I32_MIN = -2147483648;

function real(rng: SeededRandom, typical: () => number): number {
  return rng.chance(0.85) ? typical() : rng.pick([NaN, Infinity, -Infinity, -1, -0, 0, 1e308, 5e-324, 1e-9, 2 ** 53]);
}

function int32(rng: SeededRandom, typical: () => number): number {
  return rng.chance(0.9) ? typical() : rng.pick([I32_MAX, I32_MIN, -1, 0, 1 << 30]);
}

function weight(rng: SeededRandom, typical: number): number {
  return rng.chance(0.6) ? typical : rng.pick([0, 0, 1, 3, 1000, 0.001, -1, NaN, Infinity]);
}

function candidate(rng: SeededRandom, chainLength: number, spread: boolean): Candidate {
  // Small integer ranges make exact ties common, which exercises the tie-breaking.
  const small = (n: number) => () => rng.int(n);
  return {
    healthy: rng.chance(0.85),
    hasMetrics: rng.chance(0.85),
    waiting: real(rng, spread ? () => rng.next() * 50 : small(3)),
    running: real(rng, spread ? () => rng.next() * 80 : small(3)),
    kvUsage: real(rng, spread ? () => rng.next() : () => rng.pick([0, 0.5, 1])),
    hasKv: rng.chance(0.85),
    inflight: int32(rng, small(spread ? 20 : 3)),
    prefixMatched: int32(rng, () => rng.int(Math.max(1, Math.min(chainLength, 1 << 20)) + 2)),
    loraState: rng.pick([-1, 0, 1, 2, 3, 4, 5, 6, 7]),
    failureEwma: real(rng, () => rng.next()),
    sessionMatch: rng.chance(0.1),
  };
}

export class SchedulerTarget implements FuzzTarget<SchedulerInput> {
  readonly name = "scheduler";
  compared = 0;
  ties = 0;

  private constructor(private readonly harness: SchedulerHarness) {}

  static async create(): Promise<SchedulerTarget> {
    return new SchedulerTarget(await SchedulerHarness.compile());
  }

  generate(rng: SeededRandom): SchedulerInput {
    const chainLength = rng.pick([0, 0, 1, 8, 100, 2048, -1, I32_MAX]);
    const n = rng.chance(0.05) ? rng.range(60, 70) : rng.range(0, 8);
    const spread = rng.chance(0.5);
    const candidates = Array.from({ length: n }, () => candidate(rng, chainLength, spread));
    const params: ScoringParams = {
      weights: {
        queue: weight(rng, 2), kvCache: weight(rng, 2), prefixCache: weight(rng, 3), inflight: weight(rng, 1),
        loraAffinity: weight(rng, 0), failure: weight(rng, 0), session: weight(rng, 0),
      },
      lambda: real(rng, () => rng.pick([0, 0.5, 1, rng.next()])),
      lengthCreditChars: real(rng, () => rng.pick([1, 8192, 1e9])),
      creditOfBestMatch: real(rng, () => rng.pick([0, 0, 0.5, 2, 1e9])),
      chunkChars: int32(rng, () => rng.pick([16, 256, 65536])),
      guardFactor: real(rng, () => rng.pick([0, 1, 1.5, 100])),
      guardSlack: real(rng, () => rng.pick([0, 2, 1e6])),
      queueSpan: real(rng, () => rng.pick([0, 1, 4, 1e6, rng.next() * 10])),
      inflightSpan: real(rng, () => rng.pick([0, 1, 4, 1e6, rng.next() * 10])),
      queueRelativeSpan: real(rng, () => rng.pick([0, 1, 4, 16, rng.next() * 10])),
      inflightRelativeSpan: real(rng, () => rng.pick([0, 1, 4, 16, rng.next() * 10])),
    };
    return { candidates, chainLength, params, seed: String(BigInt(rng.u32()) << 32n | BigInt(rng.u32())) };
  }

  run(input: SchedulerInput): string[] {
    const seed = BigInt(input.seed);
    const got = this.harness.run(input.candidates, input.chainLength, input.params, seed);
    // The scheduler scores at most its capacity; the rest are ignored.
    const c = input.candidates.slice(0, this.harness.capacity);
    const want = scoreCandidates(c, input.chainLength, input.params);
    const wantPick = pickCandidate(c, want.total, new SplitMix64(seed));
    this.compared++;
    if (bestCandidates(c, want.total).length > 1) this.ties++;
    const v: string[] = [];
    if (got.pick !== wantPick) v.push(`pick ${got.pick}, model ${wantPick}`);
    const signals: Array<keyof Scores> = ["queue", "kv", "prefix", "inflight", "lora", "failure", "session", "total"];
    for (const s of signals) {
      const a = got.scores[s] as number[];
      const b = want[s] as number[];
      for (let i = 0; i < c.length; i++) {
        if (!(a[i] === b[i] || (Number.isNaN(a[i]) && Number.isNaN(b[i])))) v.push(`${s}[${i}] = ${a[i]}, model ${b[i]}`);
        // Whatever the inputs, every signal is normalized to 0..1 and so is the weighted total (an ulp of rounding over).
        if (!(a[i] >= 0 && a[i] <= 1 + 1e-12)) v.push(`${s}[${i}] = ${a[i]}, outside 0..1`);
      }
    }
    for (let i = 0; i < c.length; i++) if (got.scores.guarded[i] !== want.guarded[i]) v.push(`guarded[${i}] = ${got.scores.guarded[i]}, model ${want.guarded[i]}`);
    return v.slice(0, 8);
  }

  toJson(i: SchedulerInput): unknown {
    // JSON has no NaN or infinities: write every number as a string.
    return JSON.parse(JSON.stringify(i, (_k, v) => (typeof v === "number" ? `n:${Object.is(v, -0) ? "-0" : String(v)}` : v)));
  }

  fromJson(j: unknown): SchedulerInput {
    return JSON.parse(JSON.stringify(j), (_k, v) => (typeof v === "string" && v.startsWith("n:") ? Number(v.slice(2)) : v)) as SchedulerInput;
  }

  memoryBytes(): null {
    return null;
  }

  close(): void {}
}
