// How well an approximate prefix index knew the pods' caches, decision by decision. For each request the
// simulator measures, at the moment of the pick, how many prompt tokens every candidate pod really holds
// (the truth); the policy says what it believed (its predicted share of the prompt per pod) and how each
// signal scored. From these: the index's precision (how much of what it claimed was really cached) and
// recall (how much of what was cached it knew), and, for the decisions where another pod held a longer
// prefix than the chosen one, why that pod lost: the index did not know (it under-knew the better pod, or
// over-claimed a stale entry on the chosen one), the load guard stripped its credit, or it knew and a load
// signal outvoted the prefix signal.

/** What a policy believed about one candidate when it decided. */
export interface PodBelief {
  /** Share of the prompt the policy believed the pod holds (0..1). */
  predictedFraction: number;
  /** Weighted contribution of each signal to the pod's total (weight × score), by signal name. */
  contributions: Record<string, number>;
  guarded: boolean;
}

export interface DecisionExplanation {
  /** Address of the chosen pod. */
  chosen: string;
  pods: Map<string, PodBelief>;
}

/** The truth at the pick: tokens of the prompt each candidate pod held, by address. */
export interface DecisionTruth {
  promptTokens: number;
  cachedByPod: Map<string, number>;
}

export interface IndexDiagnosticsSummary {
  decisions: number;
  /** Chosen pod: Σ min(predicted, true) / Σ predicted, and / Σ true. */
  precision_chosen: number;
  recall_chosen: number;
  /** The same over every candidate of every decision. */
  precision_all: number;
  recall_all: number;
  /** Decisions where a pod held at least LOST_MIN_TOKENS more of the prompt than the chosen one. */
  lost_share: number;
  /** Prompt tokens the best pod held beyond the chosen one, over all prompt tokens. */
  lost_token_share: number;
  /** Mean predicted and true share of the prompt on the chosen pod, and the best pod's true share. */
  predicted_chosen: number;
  true_chosen: number;
  true_best: number;
  /** Lost decisions by cause, as shares of all decisions (they sum to lost_share). */
  causes: Record<string, number>;
  /** The prompt tokens those decisions left on a better pod, by cause, as shares of all prompt tokens. */
  cause_tokens: Record<string, number>;
  /** Lost decisions where the index knew the better pod but its prefix score was within 0.01 of the chosen's. */
  prefix_flat_share: number;
}

/** A pod must hold this many more prompt tokens than the chosen one for the decision to count as lost. */
export const LOST_MIN_TOKENS = 128;
const LOAD_SIGNALS = ["queue", "kvCache", "inflight"] as const;

export class IndexDiagnostics {
  private decisions = 0;
  private predictedChosen = 0;
  private trueChosen = 0;
  private overlapChosen = 0;
  private predictedAll = 0;
  private trueAll = 0;
  private overlapAll = 0;
  private promptTokens = 0;
  private bestTokens = 0;
  private lost = 0;
  private lostTokens = 0;
  private prefixFlat = 0;
  private readonly causes = new Map<string, number>();
  private readonly causeTokens = new Map<string, number>();

  add(truth: DecisionTruth, belief: DecisionExplanation): void {
    const len = truth.promptTokens;
    if (len <= 0) return;
    const chosenBelief = belief.pods.get(belief.chosen);
    const chosenTrue = truth.cachedByPod.get(belief.chosen);
    if (chosenBelief === undefined || chosenTrue === undefined) return;
    this.decisions++;
    this.promptTokens += len;
    let best = belief.chosen;
    let bestTrue = chosenTrue;
    for (const [address, cached] of truth.cachedByPod) {
      const b = belief.pods.get(address);
      if (b === undefined) continue;
      const predicted = b.predictedFraction * len;
      this.predictedAll += predicted;
      this.trueAll += cached;
      this.overlapAll += Math.min(predicted, cached);
      if (cached > bestTrue) {
        bestTrue = cached;
        best = address;
      }
    }
    const predicted = chosenBelief.predictedFraction * len;
    this.predictedChosen += predicted;
    this.trueChosen += chosenTrue;
    this.overlapChosen += Math.min(predicted, chosenTrue);
    this.bestTokens += bestTrue;
    this.lostTokens += bestTrue - chosenTrue;
    if (bestTrue - chosenTrue < LOST_MIN_TOKENS) return;
    this.lost++;
    const cause = this.cause(chosenBelief, belief.pods.get(best)!, len, chosenTrue);
    this.causes.set(cause, (this.causes.get(cause) ?? 0) + 1);
    this.causeTokens.set(cause, (this.causeTokens.get(cause) ?? 0) + bestTrue - chosenTrue);
  }

  private cause(chosen: PodBelief, best: PodBelief, len: number, chosenTrue: number): string {
    if (best.guarded) return "load guard";
    if (best.predictedFraction <= chosen.predictedFraction) {
      // The index did not rank the better pod above the chosen one.
      return chosen.predictedFraction * len > chosenTrue + LOST_MIN_TOKENS ? "index stale (chosen over-claimed)" : "index unaware (best under-known)";
    }
    if (Math.abs((best.contributions.prefix ?? 0) - (chosen.contributions.prefix ?? 0)) < 0.01) this.prefixFlat++;
    let outvoter = "tie";
    let largest = 0;
    for (const s of LOAD_SIGNALS) {
      const d = (chosen.contributions[s] ?? 0) - (best.contributions[s] ?? 0);
      if (d > largest) {
        largest = d;
        outvoter = s;
      }
    }
    return `outvoted by ${outvoter}`;
  }

  summary(): IndexDiagnosticsSummary {
    const n = this.decisions;
    const share = (x: number) => (n > 0 ? x / n : 0);
    const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
    const causes: Record<string, number> = {};
    const causeTokens: Record<string, number> = {};
    for (const [k, v] of [...this.causes].sort((a, b) => b[1] - a[1])) {
      causes[k] = share(v);
      causeTokens[k] = ratio(this.causeTokens.get(k)!, this.promptTokens);
    }
    return {
      decisions: n,
      precision_chosen: ratio(this.overlapChosen, this.predictedChosen),
      recall_chosen: ratio(this.overlapChosen, this.trueChosen),
      precision_all: ratio(this.overlapAll, this.predictedAll),
      recall_all: ratio(this.overlapAll, this.trueAll),
      lost_share: share(this.lost),
      lost_token_share: ratio(this.lostTokens, this.promptTokens),
      predicted_chosen: ratio(this.predictedChosen, this.promptTokens),
      true_chosen: ratio(this.trueChosen, this.promptTokens),
      true_best: ratio(this.bestTokens, this.promptTokens),
      causes,
      cause_tokens: causeTokens,
      prefix_flat_share: share(this.prefixFlat),
    };
  }
}

/** The diagnostics as indented text lines. */
export function diagnosticsText(policy: string, d: IndexDiagnosticsSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `${policy} index: ${d.decisions} decisions; precision ${pct(d.precision_chosen)} / recall ${pct(d.recall_chosen)} on the chosen pod, ` +
      `${pct(d.precision_all)} / ${pct(d.recall_all)} over all pods`,
    `  share of prompt: predicted on chosen ${pct(d.predicted_chosen)}, cached on chosen ${pct(d.true_chosen)}, cached on best pod ${pct(d.true_best)}`,
    `  a pod with >= ${LOST_MIN_TOKENS} more cached tokens lost in ${pct(d.lost_share)} of decisions (${pct(d.lost_token_share)} of prompt tokens); ` +
      `prefix score flat in ${pct(d.prefix_flat_share)}`,
  ];
  const causes = Object.entries(d.causes);
  if (causes.length > 0) {
    lines.push(`  why (share of decisions / of prompt tokens): ${causes.map(([k, v]) => `${k} ${pct(v)} / ${pct(d.cause_tokens[k])}`).join(", ")}`);
  }
  return lines.join("\n");
}
