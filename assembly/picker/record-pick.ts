// What the worker remembers once a request's override stands (the stream takes the lease itself): the
// decision's counters, where this prefix went (index and shared hints), the session, and the pick in the
// rate-limit window.
import { Stage, stageEnter, stageLeave } from "../abi/stage-profile";
import { PickerState } from "../core/picker-state";
import { Decision } from "./decide";

/** Returns when the request is expected to release its blocks (the time its hints carry), or NaN when none were published. */
export function recordPick(state: PickerState, d: Decision, hashes: StaticArray<u64>, sessionHash: u64, now: f64): f64 {
  const cfg = state.config;
  const t = state.telemetry;
  t.add(t.inflight, 1);
  t.add(t.decisions, 1);
  if (d.chainLength > 0) {
    state.index.record(d.slot, hashes, d.chainLength, now);
    t.add(t.prefixTotalChars, <i64>d.chainLength * <i64>cfg.chunkChars);
    t.add(t.prefixMatchedChars, <i64>d.matchedChunks * <i64>cfg.chunkChars);
    if (d.matchedChunks > 0) t.add(t.prefixHits, 1);
  }
  let heldUntil: f64 = NaN;
  const hints = state.hints;
  if (hints !== null && d.chainLength > 0) {
    const r = state.registry;
    stageEnter(Stage.SharedHints);
    // The engine holds the request's blocks until it ends, expected after the endpoint's usual duration.
    heldUntil = state.horizon.expectedEndMs(d.slot, now);
    hints.publish(
      hashes, d.chainLength, r.addressPtr(d.slot), r.addressLen(d.slot), r.addressHashOf(d.slot), now, heldUntil, d.conversationKey,
    );
    stageLeave();
  }
  state.sessions.remember(sessionHash, d.slot, d.generation);
  if (cfg.rateLimit < 1.0) state.rateWindow.push(d.slot);
  return heldUntil;
}
