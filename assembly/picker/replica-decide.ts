// The second half of a decision that waited for Redis: the worker's index and hints knew nothing of the
// chain (that is why Redis was asked), so the prefix signal is what Redis said, for one endpoint, or nothing.
import { Decision, refreshEndpoints, scoreAndPick } from "./decide";
import { PickerState } from "./picker-state";
import { Platform } from "../route/platform";

export function decideWithReplicaHint(
  state: PickerState, platform: Platform, d: Decision, chainLength: i32, sessionHash: u64, modelHash: u64,
  hintSlot: i32, hintChunks: i32, nowMs: f64,
): void {
  d.reset();
  d.chainLength = chainLength;
  state.modelHash = modelHash;
  if (!refreshEndpoints(state, platform, d, nowMs)) return;
  const registry = state.registry;
  if (hintSlot >= 0 && registry.isActive(hintSlot)) unchecked((state.matched[hintSlot] = min(hintChunks, chainLength)));
  scoreAndPick(state, d, chainLength, sessionHash);
}

/** The longest match the worker's own index and hints found for the current decision. */
export function bestLocalMatch(state: PickerState): i32 {
  const registry = state.registry;
  const slots = registry.activeSlots;
  let best = 0;
  for (let i = 0; i < registry.activeCount; i++) best = max(best, unchecked(state.matched[unchecked(slots[i])]));
  return best;
}
