// Scores the candidate endpoints of one request and picks one: (filters ran before) → the candidates' ranges
// (candidate-ranges.ts, one pass for the load and prefix scores and the guard) → each weighted scorer (the queue,
// in-flight and prefix scores together, normalize.ts normalizeLoadAndPrefix) →
// load guard's limit → guard marks, totals and best total (score.ts) → pick. All arrays are sized once
// (maxEndpoints), so a decision allocates nothing. After
// pick() every scorer's scores, the totals and the guard flags of the last decision stay readable (indexed by
// candidate) for the debug header; a scorer with weight 0 is skipped (its scores are stale) unless alwaysShown
// or scoreUnweighted. With deferScores set, pick() may leave the queue, in-flight and prefix scores unwritten
// (scoresPending) when its one pass sums the totals without them: fillScores() writes them.
import { Candidates } from "./candidates";
import { Rng } from "./rng";
import { Scorer, ScoringRequest, scorerWeightsVersion } from "./scorer";
import { createScorers } from "./scorer-list";
import { ScoringSettings, effectiveWeight } from "./scoring-settings";
import { DEFAULT_GUARD_FACTOR, DEFAULT_GUARD_SLACK, dropGuardedScores, overloadLimit } from "./load-guard";
import { totalScores } from "./score";
import { TotalsSummary } from "./rank-totals";
import { CandidateRanges, measureRanges } from "./candidate-ranges";
import { LoadChanges } from "./load-ranges";
import { FourTermTotals, normalizeLoadAndPrefix } from "./normalize";
import { KvCacheScorer } from "./scorers/kv-cache-scorer";
import { QueueScorer } from "./scorers/queue-scorer";
import { InflightScorer } from "./scorers/inflight-scorer";
import { PrefixCacheScorer } from "./scorers/prefix-cache-scorer";
import { TIE_EPSILON, pickAmongBest } from "./pick";

export const DEFAULT_RNG_SEED: u64 = 0x2545f4914f6cdd1d;

export class Scheduler {
  readonly maxEndpoints: i32;
  /** In scorer-list order, which is the order of the terms of every total. */
  readonly scorers: Array<Scorer>;
  readonly request: ScoringRequest = new ScoringRequest();
  // Load guard: load > guardFactor * mean + guardSlack loses the scores that yield to it; 0 disables.
  guardFactor: f64 = DEFAULT_GUARD_FACTOR;
  guardSlack: f64 = DEFAULT_GUARD_SLACK;
  /** Also score the scorers with weight 0 (they add nothing to the totals): for tests comparing every score. */
  scoreUnweighted: bool = false;
  /** Let pick() leave the queue, in-flight and prefix scores unwritten when nothing reads them: set scoresPending
   *  instead, and fillScores() writes them. Unset, every run scorer's scores are readable after pick(). */
  deferScores: bool = false;
  /** Whether the last pick left the queue, in-flight and prefix scores unwritten (deferScores). */
  scoresPending: bool = false;
  readonly rng: Rng = new Rng(DEFAULT_RNG_SEED);

  readonly total: StaticArray<f64>;
  readonly guarded: StaticArray<bool>;
  // Scratch of the load guard (overloadLimit), one load per candidate.
  private readonly guardLoads: StaticArray<f64>;
  // Scratch of totalScores: the weighted scorers' score arrays, weights and whether they yield to the guard.
  private readonly termScores: StaticArray<usize>;
  private readonly termWeights: StaticArray<f64>;
  private readonly termYields: StaticArray<bool>;
  private readonly totals: TotalsSummary = new TotalsSummary();
  private readonly ranges: CandidateRanges = new CandidateRanges();
  /** The load ranges the candidate fill carried from the snapshot (used while they hold for the candidates). */
  readonly loadChanges: LoadChanges = new LoadChanges();
  // The scorers whose scores pick() computes in one pass (normalizeLoadAndPrefix) when all three run.
  private queue: QueueScorer | null = null;
  private inflight: InflightScorer | null = null;
  private prefix: PrefixCacheScorer | null = null;
  private kv: KvCacheScorer | null = null;
  private readonly fourTerms: FourTermTotals = new FourTermTotals();
  // What pick() derives from the weights and scoreUnweighted alone, kept until one of them changes (refreshPlan): the
  // scorers run one by one (list indices, in list order), whether the queue, in-flight and prefix scores run in one
  // pass, whether fourTerms holds the four default terms' weights, and the weight sum.
  private planBuilt: bool = false;
  private planVersion: u32 = 0;
  private planUnweighted: bool = false;
  private readonly separate: StaticArray<i32>;
  private separateCount: i32 = 0;
  private together: bool = false;
  private fourTermsApply: bool = false;
  // The planned constant terms' scorers (list indices) and weights; fourTerms.constantCount of them.
  private readonly constantScorers: StaticArray<i32>;
  private readonly constantWeights: StaticArray<f64>;
  private plannedWeightSum: f64 = 0;
  // Candidates scored by the last pick (entries past it are stale) and its result.
  scoredCount: i32 = 0;
  /** Whether the last pick summed and ranked the totals in the fused load-and-prefix pass (SIMD build). */
  summedInPass: bool = false;
  lastPick: i32 = -1;

  constructor(maxEndpoints: i32) {
    const n = maxEndpoints > 0 ? maxEndpoints : 0;
    this.maxEndpoints = n;
    const scorers = createScorers(n);
    this.scorers = scorers;
    this.total = new StaticArray<f64>(n);
    this.guarded = new StaticArray<bool>(n);
    this.guardLoads = new StaticArray<f64>(n);
    this.termScores = new StaticArray<usize>(scorers.length);
    this.termWeights = new StaticArray<f64>(scorers.length);
    this.termYields = new StaticArray<bool>(scorers.length);
    this.separate = new StaticArray<i32>(scorers.length);
    this.constantScorers = new StaticArray<i32>(scorers.length);
    this.constantWeights = new StaticArray<f64>(scorers.length);
    for (let k = 0; k < scorers.length; k++) {
      const scorer = scorers[k];
      if (scorer instanceof QueueScorer) this.queue = changetype<QueueScorer>(scorer);
      else if (scorer instanceof InflightScorer) this.inflight = changetype<InflightScorer>(scorer);
      else if (scorer instanceof PrefixCacheScorer) this.prefix = changetype<PrefixCacheScorer>(scorer);
      else if (scorer instanceof KvCacheScorer) this.kv = changetype<KvCacheScorer>(scorer);
    }
    const kv = this.kv;
    if (kv !== null) this.fourTerms.kvScores = kv.score;
    this.fourTerms.constantTerms = new StaticArray<f64>(scorers.length);
    this.fourTerms.total = this.total;
    this.fourTerms.summary = this.totals;
  }

  // Sets fourTerms' weights when the weighted scorers are the queue, KV, prefix and in-flight ones, in that order (the
  // totals' terms), then only scorers that may become constant terms (constantScorers: a pick takes them as such when
  // their scores are the same on every healthy candidate, as the LoRA score where no endpoint reports adapters);
  // returns whether they are. Depends on the weights alone. Its weight sum is weightSum()'s (the same additions in
  // the same order).
  private planFourTerms(): bool {
    const scorers = this.scorers;
    const t = this.fourTerms;
    let sum: f64 = 0;
    let terms = 0;
    let constantCount = 0;
    for (let k = 0; k < scorers.length; k++) {
      const scorer = unchecked(scorers[k]);
      const w = effectiveWeight(scorer.weight);
      sum += w;
      if (!(w > 0)) continue;
      if (terms == 0 && scorer === this.queue) t.queueWeight = w;
      else if (terms == 1 && scorer === this.kv) t.kvWeight = w;
      else if (terms == 2 && scorer === this.prefix) t.prefixWeight = w;
      else if (terms == 3 && scorer === this.inflight) t.inflightWeight = w;
      else if (terms >= 4 && constantCount < this.constantScorers.length) {
        unchecked((this.constantScorers[constantCount] = k));
        unchecked((this.constantWeights[constantCount++] = w));
      } else return false;
      terms++;
    }
    if (terms != 4 + constantCount) return false;
    t.constantCount = constantCount;
    t.inverseSum = 1 / sum;
    return true;
  }

  // fourTerms for this pick (after the scorers ran), or null when a planned constant scorer's scores differ between
  // candidates this pick.
  private fourTermsThisPick(): FourTermTotals | null {
    const t = this.fourTerms;
    const constants = t.constantTerms;
    for (let j = 0; j < t.constantCount; j++) {
      const uniform = unchecked(this.scorers[unchecked(this.constantScorers[j])]).uniformScore;
      if (uniform != uniform) return null;
      unchecked((constants[j] = unchecked(this.constantWeights[j]) * uniform));
    }
    return t;
  }

  // Rebuilds the plan when a scorer's weight was set or scoreUnweighted changed since it was built.
  private refreshPlan(): void {
    if (this.planBuilt && this.planVersion == scorerWeightsVersion() && this.planUnweighted == this.scoreUnweighted) return;
    const scorers = this.scorers;
    const queue = this.queue;
    const inflight = this.inflight;
    const prefix = this.prefix;
    // The queue, in-flight and prefix scores in one pass when all three run (they are always shown).
    let together = false;
    if (queue !== null && inflight !== null && prefix !== null) {
      together = this.runs(queue) && this.runs(inflight) && this.runs(prefix);
    }
    let n = 0;
    for (let k = 0; k < scorers.length; k++) {
      const scorer = unchecked(scorers[k]);
      if (together && (scorer === queue || scorer === inflight || scorer === prefix)) continue;
      if (this.runs(scorer)) unchecked((this.separate[n++] = k));
    }
    this.separateCount = n;
    this.together = together;
    this.fourTermsApply = this.planFourTerms();
    this.plannedWeightSum = this.weightSum();
    this.planBuilt = true;
    this.planVersion = scorerWeightsVersion();
    this.planUnweighted = this.scoreUnweighted;
  }

  // Whether pick() runs the scorer.
  private runs(scorer: Scorer): bool {
    return effectiveWeight(scorer.weight) > 0 || scorer.alwaysShown || this.scoreUnweighted;
  }

  // normalizeLoadAndPrefix over the candidates of the pick under way (or the last one), from its ranges.
  private loadAndPrefixPass(c: Candidates, chainLength: i32, fourTerms: FourTermTotals | null): bool {
    const queue = this.queue!;
    const inflight = this.inflight!;
    const prefix = this.prefix!;
    return normalizeLoadAndPrefix(c, this.ranges,
      queue.score, unchecked(queue.values[0]), unchecked(queue.values[1]),
      inflight.score, unchecked(inflight.values[0]), unchecked(inflight.values[1]),
      chainLength, this.request.chunkChars, unchecked(prefix.values[0]), unchecked(prefix.values[1]), prefix.score,
      fourTerms, unchecked(prefix.values[2]));
  }

  /** Writes the queue, in-flight and prefix scores the last pick left unwritten (scoresPending), the same to the bit
   *  as pick() writes them; c must be the candidates of that pick, unchanged since. */
  fillScores(c: Candidates): void {
    if (!this.scoresPending) return;
    this.scoresPending = false;
    this.loadAndPrefixPass(c, this.ranges.chainLength, null);
  }

  seed(s: u64): void {
    this.rng.seed(s);
  }

  /** Takes the weights and scorer config values of settings. */
  configure(settings: ScoringSettings): void {
    let v = 0;
    for (let k = 0; k < this.scorers.length; k++) {
      const scorer = this.scorers[k];
      scorer.weight = settings.weights[k];
      for (let p = 0; p < scorer.values.length; p++) scorer.values[p] = settings.values[v++];
    }
  }

  /** The scorer called name; null when there is none. */
  scorer(name: string): Scorer | null {
    for (let k = 0; k < this.scorers.length; k++) if (this.scorers[k].name == name) return this.scorers[k];
    return null;
  }

  /** Summed in list order, as the totals are. */
  weightSum(): f64 {
    let sum: f64 = 0;
    for (let k = 0; k < this.scorers.length; k++) sum += effectiveWeight(unchecked(this.scorers[k]).weight);
    return sum;
  }

  // Returns the chosen candidate index (not the slot), or -1 when no candidate is healthy.
  // chainLength: chunks in the request's hash chain (0 when the prompt was not hashed).
  // Candidates past maxEndpoints are ignored.
  pick(c: Candidates, chainLength: i32): i32 {
    const n = c.boundedCount(this.maxEndpoints);
    this.scoredCount = n;
    const request = this.request;
    request.chainLength = chainLength;
    const ranges = this.ranges;
    measureRanges(c, n, chainLength, ranges, this.loadChanges);
    request.ranges = ranges;
    const scorers = this.scorers;
    this.refreshPlan();
    const separate = this.separate;
    for (let j = 0; j < this.separateCount; j++) unchecked(scorers[unchecked(separate[j])]).scoreAll(c, request);
    const limit = overloadLimit(c, n, this.guardFactor, this.guardSlack, this.guardLoads, ranges);
    let summed = false;
    if (this.together) {
      // With no candidate over the guard's limit and the default terms, the pass sums and ranks the totals instead.
      let fourTerms: FourTermTotals | null = null;
      if (limit == Infinity && this.fourTermsApply) fourTerms = this.fourTermsThisPick();
      summed = this.loadAndPrefixPass(c, chainLength, fourTerms);
    }
    this.summedInPass = summed;
    this.scoresPending = summed;
    if (summed && !this.deferScores) this.fillScores(c);
    request.ranges = null; // a scorer run outside a pick measures its own
    const totals = this.totals;
    if (summed) {
      memory.fill(changetype<usize>(this.guarded), 0, <usize>n);
    } else {
      totalScores(c, scorers, this.plannedWeightSum, this.total, limit, this.guarded,
        this.termScores, this.termWeights, this.termYields, totals);
    }
    if (totals.anyGuarded) {
      // The totals left the guarded candidates' yielding terms out; their scores drop too, for the debug header.
      for (let k = 0; k < scorers.length; k++) {
        const scorer = unchecked(scorers[k]);
        if (scorer.yieldsToLoadGuard) dropGuardedScores(n, this.guarded, scorer.score);
      }
    }
    // A best total without a tie is the pick (pickAmongBest would find it alone and draw nothing).
    this.lastPick = totals.secondBest < totals.best - TIE_EPSILON
      ? totals.bestIndex
      : pickAmongBest(c, this.total, totals.best, this.rng);
    c.lanesCurrent = false; // the flags may be written directly before the next pick
    return this.lastPick;
  }
}
