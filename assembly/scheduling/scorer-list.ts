// The scoring signals, in the order their weighted scores are summed (the order is part of every total's
// rounding, so keep it). A new signal is one file under scorers/ and one line here: its weight key, config keys,
// defaults, debug-header column and docs/config.md row all come from its Scorer.
import { Scorer } from "./scorer";
import { newQueueScorer } from "./scorers/queue-scorer";
import { newKvCacheScorer } from "./scorers/kv-cache-scorer";
import { newPrefixCacheScorer } from "./scorers/prefix-cache-scorer";
import { newInflightScorer } from "./scorers/inflight-scorer";
import { newLoraAffinityScorer } from "./scorers/lora-affinity-scorer";
import { newFailureScorer } from "./scorers/failure-scorer";
import { newSessionScorer } from "./scorers/session-scorer";

export type ScorerFactory = (capacity: i32) => Scorer;

export const SCORER_FACTORIES: Array<ScorerFactory> = [
  newQueueScorer,
  newKvCacheScorer,
  newPrefixCacheScorer,
  newInflightScorer,
  newLoraAffinityScorer,
  newFailureScorer,
  newSessionScorer,
];

/** A new scorer of every kind, each with room for capacity candidates. */
export function createScorers(capacity: i32): Array<Scorer> {
  const list = new Array<Scorer>(SCORER_FACTORIES.length);
  for (let k = 0; k < SCORER_FACTORIES.length; k++) unchecked((list[k] = SCORER_FACTORIES[k](capacity)));
  return list;
}

let kinds: Array<Scorer> | null = null;

/** The scorers as descriptions (names, defaults, config keys), without room for candidates. Built on first use,
 *  so a spec may add a factory first. */
export function scorerKinds(): Array<Scorer> {
  let list = kinds;
  if (list === null) {
    list = createScorers(0);
    kinds = list;
  }
  return list;
}
