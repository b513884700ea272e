// A scoring signal as one unit: its name (the `weights.<name>` config key), its debug-header column, its default
// weight, its own config keys with their defaults, and its scores in [0, 1] (higher is better) over the candidates
// in an array it owns, sized once. The scheduler runs every scorer whose weight is positive; scorer-list.ts says
// which scorers exist.
import { Candidates } from "./candidates";
import { CandidateRanges } from "./candidate-ranges";

/** One numeric config key a scorer reads, e.g. `scoring.queueSpan`. */
export class ScorerParam {
  constructor(
    readonly key: string,
    readonly defaultValue: f64,
    readonly min: f64,
    readonly max: f64,
    /** Its docs/config.md row's meaning. */
    readonly description: string,
  ) {}
}

/** What the scorers may read about the request besides the candidates. */
export class ScoringRequest {
  /** Chunks in the request's hash chain (0 when the prompt was not hashed). */
  chainLength: i32 = 0;
  /** Characters per chain chunk (the hashing's chunk size). */
  chunkChars: i32 = 512;
  /** The candidates' ranges, measured by the scheduler for the pick under way (null otherwise): the load and prefix
   *  scores start from them instead of a pass of their own. */
  ranges: CandidateRanges | null = null;
}

// Moves at every weight set on any scorer: a scheduler keeps what it derives from its scorers' weights until it does.
let weightsVersion: u32 = 0;

/** The number of weight sets so far, on every scorer (it wraps). */
export function scorerWeightsVersion(): u32 {
  return weightsVersion;
}

export abstract class Scorer {
  readonly score: StaticArray<f64>;
  private configuredWeight: f64 = 0;
  /** This scorer's config values, in the order of params (defaults until configured). */
  readonly values: StaticArray<f64>;
  /** After scoreAll: the score every healthy candidate got, where the scorer knows they all got the same; else NaN.
   *  Such a term cannot change the ranking, so the scheduler's fused four-term pass adds it as a constant. */
  uniformScore: f64 = NaN;

  /** Configured weight; the scheduler skips the scorer when it is not positive. */
  get weight(): f64 {
    return this.configuredWeight;
  }

  set weight(w: f64) {
    this.configuredWeight = w;
    weightsVersion++;
  }

  constructor(
    capacity: i32,
    /** The key under `weights` and the scorer's name. */
    readonly name: string,
    /** The debug header's column for the score. */
    readonly column: string,
    readonly defaultWeight: f64,
    /** Shown in the debug header even at weight 0. */
    readonly alwaysShown: bool,
    /** Its score is dropped for candidates the load guard marks overloaded (cache affinity, not load). */
    readonly yieldsToLoadGuard: bool,
    /** Its config keys besides the weight. */
    readonly params: Array<ScorerParam>,
    /** One line for docs/config.md's table: what the weight weighs. */
    readonly description: string,
  ) {
    this.score = new StaticArray<f64>(capacity > 0 ? capacity : 0);
    this.weight = defaultWeight;
    this.values = new StaticArray<f64>(params.length);
    for (let k = 0; k < params.length; k++) unchecked((this.values[k] = params[k].defaultValue));
  }

  /** Writes each candidate's score into score (candidates past its length are left out). */
  abstract scoreAll(c: Candidates, request: ScoringRequest): void;

  /** Sets the config value of key; false when the scorer has no such key. */
  setParam(key: string, value: f64): bool {
    for (let k = 0; k < this.params.length; k++) {
      if (this.params[k].key == key) {
        unchecked((this.values[k] = value));
        return true;
      }
    }
    return false;
  }

  param(key: string): f64 {
    for (let k = 0; k < this.params.length; k++) if (this.params[k].key == key) return unchecked(this.values[k]);
    return NaN;
  }
}
