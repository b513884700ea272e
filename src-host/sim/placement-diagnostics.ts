// Where a policy placed requests, judged against the pods' real caches at the pick, for every policy (the index
// diagnostics need a policy that explains its beliefs; these need only the choice). Compares how well policies
// keep a group, document or conversation (the request's session key) together: how often a request went to
// another pod than its key's previous request, over how many pods each key spread, and how much of the prompt
// the chosen pod and the best pod held when the request was placed.
import type { DecisionTruth } from "./index-diagnostics.ts";

export interface PlacementSummary {
  decisions: number;
  /** Share of prompt tokens the chosen pod held at the pick, and the pod holding the most. */
  cached_chosen: number;
  cached_best: number;
  /** Decisions no pod held at least COLD_MAX_TOKENS of the prompt for. */
  cold_share: number;
  /** Of the decisions whose key was placed before: sent to another pod than the key's previous request. */
  moved_share: number;
  /** Of those moves: the key's previous pod held at least MOVE_MIN_TOKENS more of the prompt than the chosen one. */
  moved_off_cache_share: number;
  /** Distinct pods a key's requests went to, mean over keys with at least two requests. */
  pods_per_key: number;
}

/** Below this many cached tokens on every pod, a decision counts as cold (nobody held the prompt). */
export const COLD_MAX_TOKENS = 128;
/** A move leaves the cache behind when the previous pod held this many more prompt tokens than the chosen one. */
export const MOVE_MIN_TOKENS = 128;

interface KeyPlacement {
  lastPod: string;
  pods: Set<string>;
  requests: number;
}

export class PlacementDiagnostics {
  private decisions = 0;
  private promptTokens = 0;
  private chosenTokens = 0;
  private bestTokens = 0;
  private cold = 0;
  private repeats = 0;
  private moves = 0;
  private movesOffCache = 0;
  private readonly keys = new Map<string, KeyPlacement>();

  add(key: string, chosen: string, truth: DecisionTruth): void {
    const len = truth.promptTokens;
    if (len <= 0) return;
    this.decisions++;
    this.promptTokens += len;
    const chosenCached = truth.cachedByPod.get(chosen) ?? 0;
    this.chosenTokens += chosenCached;
    let best = 0;
    for (const cached of truth.cachedByPod.values()) if (cached > best) best = cached;
    this.bestTokens += best;
    if (best < COLD_MAX_TOKENS) this.cold++;
    const k = this.keys.get(key);
    if (k === undefined) {
      this.keys.set(key, { lastPod: chosen, pods: new Set([chosen]), requests: 1 });
      return;
    }
    this.repeats++;
    if (k.lastPod !== chosen) {
      this.moves++;
      if ((truth.cachedByPod.get(k.lastPod) ?? 0) - chosenCached >= MOVE_MIN_TOKENS) this.movesOffCache++;
    }
    k.lastPod = chosen;
    k.pods.add(chosen);
    k.requests++;
  }

  summary(): PlacementSummary {
    const share = (a: number, b: number) => (b > 0 ? a / b : 0);
    let spreadKeys = 0;
    let spreadPods = 0;
    for (const k of this.keys.values()) {
      if (k.requests < 2) continue;
      spreadKeys++;
      spreadPods += k.pods.size;
    }
    return {
      decisions: this.decisions,
      cached_chosen: share(this.chosenTokens, this.promptTokens),
      cached_best: share(this.bestTokens, this.promptTokens),
      cold_share: share(this.cold, this.decisions),
      moved_share: share(this.moves, this.repeats),
      moved_off_cache_share: share(this.movesOffCache, this.moves),
      pods_per_key: share(spreadPods, spreadKeys),
    };
  }
}

/** The placement figures as one indented text line. */
export function placementText(policy: string, p: PlacementSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return `${policy} placement: ${p.decisions} decisions; share of prompt cached at the pick on chosen ${pct(p.cached_chosen)}, ` +
    `on best pod ${pct(p.cached_best)}; cold ${pct(p.cold_share)}; moved off its key's previous pod ${pct(p.moved_share)} ` +
    `(${pct(p.moved_off_cache_share)} of them leaving >= ${MOVE_MIN_TOKENS} cached tokens behind); ${p.pods_per_key.toFixed(2)} pods per key`;
}
