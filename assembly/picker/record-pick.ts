// What the worker remembers once a request's override stands (the stream takes the lease itself): the
// decision's counters, where this prefix went (index and shared hints), the session, and the pick in the
// rate-limit window.
import { Stage, stageEnter, stageLeave } from "../abi/stage-profile";
import { PickerState } from "../core/picker-state";
import { Decision } from "./decide";

export function recordPick(state: PickerState, d: Decision, hashes: StaticArray<u64>, sessionHash: u64, now: f64): void {
  const cfg = state.config;
  const t = state.telemetry;
  t.add(t.inflight, 1);
  t.add(t.decisions, 1);
  if (d.chainLength > 0) {
    state.index.record(d.slot, hashes, d.chainLength);
    t.add(t.prefixTotalChars, <i64>d.chainLength * <i64>cfg.chunkChars);
    t.add(t.prefixMatchedChars, <i64>d.matchedChunks * <i64>cfg.chunkChars);
    if (d.matchedChunks > 0) t.add(t.prefixHits, 1);
  }
  const hints = state.hints;
  if (hints !== null && d.chainLength > 0) {
    const r = state.registry;
    stageEnter(Stage.SharedHints);
    hints.publish(hashes, d.chainLength, r.addressPtr(d.slot), r.addressLen(d.slot), now, d.conversationKey);
    stageLeave();
  }
  state.sessions.remember(sessionHash, d.slot, d.generation);
  if (cfg.rateLimit < 1.0) state.rateWindow.push(d.slot);
}
