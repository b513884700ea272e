// How well the picker's prefix index matches the pods' real caches, decision by decision. At the pick the
// simulator knows every pod's true cached prefix; the plugin's debug header says what the index believed
// (matched chunks per endpoint) and how each signal scored. From the two: the index's precision and recall on
// the chosen pod, and, for each decision where another pod held a clearly longer prefix, which signal made it
// lose (the one whose weighted difference favoured the chosen pod most; "index" when the index itself did not
// credit the better pod more).
import type { DebugEndpointScores, DebugScores } from "../fuzz/debug-header.ts";

export interface DiagnosticWeights {
  queue: number;
  kvCache: number;
  prefixCache: number;
  inflight: number;
}

export const DEFAULT_DIAGNOSTIC_WEIGHTS: DiagnosticWeights = Object.freeze({ queue: 2, kvCache: 2, prefixCache: 3, inflight: 1 });

/** A decision lost when another pod truly held more than this share of the prompt beyond the chosen one. */
export const LOST_MARGIN = 0.1;

export type LossCause = "index" | "queue" | "kvCache" | "inflight" | "guard" | "tie";

export interface DecisionTruth {
  promptTokens: number;
  /** True cached tokens per endpoint address, at the time of the pick. */
  cachedTokens: Map<string, number>;
}

export class IndexDiagnostics {
  decisions = 0;
  unparsed = 0;
  /** Tokens the index predicted on the chosen pod, the part of it that was really cached, and the real cache. */
  private predictedTokens = 0;
  private correctTokens = 0;
  private trueTokens = 0;
  /** Best true cached tokens summed over decisions, and what the chosen pods really had. */
  private bestTrueTokens = 0;
  lost = 0;
  readonly causes: Record<LossCause, number> = { index: 0, queue: 0, kvCache: 0, inflight: 0, guard: 0, tie: 0 };

  constructor(private readonly weights: DiagnosticWeights = DEFAULT_DIAGNOSTIC_WEIGHTS) {}

  record(truth: DecisionTruth, debug: DebugScores | null): void {
    if (debug === null || debug.chain <= 0) {
      this.unparsed++;
      return;
    }
    const chosen = debug.scores.get(debug.endpoint);
    if (chosen === undefined || chosen === "excluded") {
      this.unparsed++;
      return;
    }
    this.decisions++;
    const len = truth.promptTokens;
    const tokensOf = (s: DebugEndpointScores) => Math.min(len, (s.m / debug.chain) * len);
    const chosenTrue = truth.cachedTokens.get(debug.endpoint) ?? 0;
    const predicted = tokensOf(chosen);
    this.predictedTokens += predicted;
    this.correctTokens += Math.min(predicted, chosenTrue);
    this.trueTokens += chosenTrue;

    let bestAddr = debug.endpoint;
    let bestTrue = chosenTrue;
    for (const [addr, s] of debug.scores) {
      if (s === "excluded") continue;
      const t = truth.cachedTokens.get(addr) ?? 0;
      if (t > bestTrue) {
        bestTrue = t;
        bestAddr = addr;
      }
    }
    this.bestTrueTokens += bestTrue;
    if (bestTrue - chosenTrue <= LOST_MARGIN * len) return;
    this.lost++;
    this.causes[lossCause(chosen, debug.scores.get(bestAddr) as DebugEndpointScores, this.weights)]++;
  }

  summary(): Record<string, number> {
    const share = (x: number, of: number) => (of > 0 ? Math.round((x / of) * 1000) / 1000 : 0);
    const out: Record<string, number> = {
      diag_decisions: this.decisions,
      diag_index_precision: share(this.correctTokens, this.predictedTokens),
      diag_index_recall: share(this.correctTokens, this.trueTokens),
      diag_chosen_vs_best_cached: share(this.trueTokens, this.bestTrueTokens),
      diag_lost_share: share(this.lost, this.decisions),
    };
    for (const [cause, n] of Object.entries(this.causes)) out[`diag_lost_by_${cause}`] = n;
    if (this.unparsed > 0) out.diag_unparsed = this.unparsed;
    return out;
  }
}

/** Which signal made `best` (a pod truly holding more) lose to `chosen`. */
export function lossCause(chosen: DebugEndpointScores, best: DebugEndpointScores, w: DiagnosticWeights): LossCause {
  if (best.p <= chosen.p) return best.guarded && best.m > chosen.m ? "guard" : "index";
  const gains: Array<[LossCause, number]> = [
    ["queue", w.queue * (chosen.q - best.q)],
    ["kvCache", w.kvCache * (chosen.kv - best.kv)],
    ["inflight", w.inflight * (chosen.i - best.i)],
  ];
  let cause: LossCause = "tie";
  let most = 0;
  for (const [name, gain] of gains) {
    if (gain > most) {
      most = gain;
      cause = name;
    }
  }
  return cause;
}
