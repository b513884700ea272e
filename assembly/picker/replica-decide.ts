// The second half of a decision that waited for Redis: the worker's own matches from before the wait, with
// the endpoint Redis named credited with the longer match it reported.
import { Decision, refreshEndpoints, scoreAndPick } from "./decide";
import { PickerState } from "../core/picker-state";
import { Platform } from "../core/platform";
import { TAIL_PROBES } from "../replica/replica-positions";

export function decideWithReplicaHint(
  state: PickerState, platform: Platform, d: Decision, chainLength: i32, sessionHash: u64, modelHash: u64,
  localMatched: StaticArray<i32>, hintSlot: i32, hintChunks: i32, nowMs: f64,
): void {
  d.reset();
  d.chainLength = chainLength;
  state.modelHash = modelHash;
  if (!refreshEndpoints(state, platform, d, nowMs)) return;
  const registry = state.registry;
  const slots = registry.activeSlots;
  for (let i = 0; i < registry.activeCount; i++) {
    const slot = unchecked(slots[i]);
    if (slot < localMatched.length) unchecked((state.matched[slot] = unchecked(localMatched[slot])));
  }
  if (hintSlot >= 0 && registry.isActive(hintSlot)) unchecked((state.matched[hintSlot] = max(unchecked(state.matched[hintSlot]), min(hintChunks, chainLength))));
  scoreAndPick(state, d, chainLength, sessionHash);
}

/**
 * Whether Redis may know more than the worker: it knows nothing of the chain, or its own index and hints stop
 * short of the chain's last TAIL_PROBES chunks, where a conversation's previous turn ended (a shared system
 * prompt alone is not enough).
 */
export function worthAskingRedis(state: PickerState, chainLength: i32): bool {
  if (chainLength <= 0) return false;
  const best = bestLocalMatch(state);
  return best == 0 || best < chainLength - TAIL_PROBES;
}

/** The longest match the worker's own index and hints found for the current decision. */
export function bestLocalMatch(state: PickerState): i32 {
  const registry = state.registry;
  const slots = registry.activeSlots;
  let best = 0;
  for (let i = 0; i < registry.activeCount; i++) best = max(best, unchecked(state.matched[unchecked(slots[i])]));
  return best;
}
