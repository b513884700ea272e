// Scores the candidate endpoints of one request and picks one. All arrays are sized once (maxEndpoints), so a
// decision allocates nothing. After pick() the per-signal scores, totals and guard flags of the last decision
// stay readable (indexed by candidate) for the debug header.
import { Candidates } from "./candidates";
import { Weights } from "./weights";
import { Rng } from "./rng";
import {
  normalizeFailure,
  normalizeInflight,
  normalizeKv,
  normalizeLora,
  normalizePrefix,
  normalizeQueue,
  normalizeSession,
} from "./normalize";
import { applyLoadGuard } from "./load-guard";
import { totalScores } from "./score";
import { pickBest } from "./pick";

export const DEFAULT_RNG_SEED: u64 = 0x2545f4914f6cdd1d;

export class Scheduler {
  readonly maxEndpoints: i32;
  readonly weights: Weights = new Weights();
  // Share of the prefix score given to the matched fraction of the chain (the rest rewards matched length).
  lambda: f64 = 0.5;
  /** Spreads of queue and in-flight counts below these are scored in proportion, not in full (0: plain min-max). */
  queueSpan: f64 = 0;
  inflightSpan: f64 = 0;
  // Matched characters that earn the full length credit.
  lengthCreditChars: f64 = 8192;
  // Characters per chain chunk; must equal the chunk size used to hash requests.
  chunkChars: i32 = 256;
  // Load guard: load > guardFactor * mean + guardSlack loses prefix and session scores; 0 disables.
  guardFactor: f64 = 1.5;
  guardSlack: f64 = 2;
  readonly rng: Rng = new Rng(DEFAULT_RNG_SEED);

  readonly queueScore: StaticArray<f64>;
  readonly kvScore: StaticArray<f64>;
  readonly prefixScore: StaticArray<f64>;
  readonly inflightScore: StaticArray<f64>;
  readonly loraScore: StaticArray<f64>;
  readonly failureScore: StaticArray<f64>;
  readonly sessionScore: StaticArray<f64>;
  readonly total: StaticArray<f64>;
  readonly guarded: StaticArray<bool>;
  // Candidates scored by the last pick (entries past it are stale) and its result.
  scoredCount: i32 = 0;
  lastPick: i32 = -1;

  constructor(maxEndpoints: i32) {
    const n = maxEndpoints > 0 ? maxEndpoints : 0;
    this.maxEndpoints = n;
    this.queueScore = new StaticArray<f64>(n);
    this.kvScore = new StaticArray<f64>(n);
    this.prefixScore = new StaticArray<f64>(n);
    this.inflightScore = new StaticArray<f64>(n);
    this.loraScore = new StaticArray<f64>(n);
    this.failureScore = new StaticArray<f64>(n);
    this.sessionScore = new StaticArray<f64>(n);
    this.total = new StaticArray<f64>(n);
    this.guarded = new StaticArray<bool>(n);
  }

  seed(s: u64): void {
    this.rng.seed(s);
  }

  // Returns the chosen candidate index (not the slot), or -1 when no candidate is healthy.
  // chainLength: chunks in the request's hash chain (0 when the prompt was not hashed).
  // Candidates past maxEndpoints are ignored.
  pick(c: Candidates, chainLength: i32): i32 {
    this.scoredCount = c.boundedCount(this.maxEndpoints);
    normalizeQueue(c, this.queueScore, this.queueSpan);
    normalizeKv(c, this.kvScore);
    normalizePrefix(c, chainLength, this.chunkChars, this.lambda, this.lengthCreditChars, this.prefixScore);
    normalizeInflight(c, this.inflightScore, this.inflightSpan);
    normalizeLora(c, this.loraScore);
    normalizeFailure(c, this.failureScore);
    normalizeSession(c, this.sessionScore);
    applyLoadGuard(c, this.guardFactor, this.guardSlack, this.prefixScore, this.sessionScore, this.guarded);
    totalScores(
      c,
      this.weights,
      this.queueScore,
      this.kvScore,
      this.prefixScore,
      this.inflightScore,
      this.loraScore,
      this.failureScore,
      this.sessionScore,
      this.total,
    );
    this.lastPick = pickBest(c, this.total, this.rng);
    return this.lastPick;
  }
}
