// Hints shared with the other gateway replicas through Redis, on the request path: whether to ask, asking
// (the request waits), the second half of a decision that waited (the worker's own matches from before the
// wait, with the endpoint Redis named credited with the longer match it reported, unless its engine restarted
// since or, for this gateway's own hint, its cache no longer keeps it), and publishing a pick.
import { Decision, refreshEndpoints, scoreAndPick } from "./decide";
import { PickerState } from "../core/picker-state";
import { Platform } from "../core/platform";
import { isOk } from "../abi/host";
import { HintVerdict } from "../core/hint-endpoint-check";
import { PendingCall, PendingCalls, keepPerSlot } from "../replica/pending-calls";
import { ReplicaHints } from "../replica/replica-hints";
import { TAIL_PROBES } from "../replica/replica-positions";
import { RespReply } from "../replica/resp";

/** Asks the other replicas' hints for this chain; true when the call went out and stream `streamId` waits. */
export function askRedis(
  pending: PendingCalls, replica: ReplicaHints, state: PickerState, streamId: u32, d: Decision, sessionHash: u64, now: f64,
): bool {
  const call = pendingCall(pending, replica, now);
  const hashes = state.chain.hashes;
  const n = d.chainLength;
  if (call === null) return false;
  const token = replica.lookup(hashes, n, d.previousPromptChunks);
  if (!isOk(token)) return false;
  pending.take(call, <u32>token, replica, streamId, now);
  call.keepChain(hashes, n);
  call.sessionHash = sessionHash;
  call.modelHash = state.modelHash;
  call.conversationKey = d.conversationKey;
  call.previousPromptChunks = d.previousPromptChunks;
  call.matched = keepPerSlot<i32>(call.matched, state.matched);
  call.generations = keepPerSlot<u32>(call.generations, state.registry.generationBySlot);
  call.spreadPreamble = d.spreadPreamble;
  if (d.spreadPreamble) call.matchedBeforeSpread = keepPerSlot<i32>(call.matchedBeforeSpread, state.matchedBeforeSpread);
  return true;
}

/** Fire and forget: the reply is only counted. */
export function publishToRedis(
  pending: PendingCalls, replica: ReplicaHints, state: PickerState, d: Decision, hashes: StaticArray<u64>, now: f64,
): void {
  const call = pendingCall(pending, replica, now);
  if (call === null) return;
  const r = state.registry;
  const token = replica.publish(
    hashes, d.chainLength, r.addressPtr(d.slot), r.addressLen(d.slot), now, state.horizon.expectedEndMs(d.slot, now),
  );
  if (!isOk(token)) return;
  pending.take(call, <u32>token, replica, 0, now);
  call.chainLength = 0;
}

function pendingCall(pending: PendingCalls, replica: ReplicaHints, now: f64): PendingCall | null {
  const call = pending.free();
  if (call === null) {
    replica.telemetry.count(replica.telemetry.busy);
    return null;
  }
  return replica.ready(now) ? call : null;
}

/** Decides a request that waited for Redis (reply null: failed or unusable, already counted). */
export function decideAfterRedis(
  state: PickerState, platform: Platform, d: Decision, call: PendingCall, reply: RespReply | null, now: f64,
): void {
  const replica = call.hints!;
  let hintSlot = -1;
  let hintChunks = 0;
  if (reply !== null) {
    const value = replica.value;
    const check = state.hintCheck;
    const ownGateway = replica.gateway.id(now);
    for (let i = 0; i < reply.count; i++) {
      const len = unchecked(reply.elementLen[i]);
      if (len <= 0 || !value.read(unchecked(reply.elementPtr[i]), len)) continue;
      if (value.gateway != ownGateway) state.otherReplicaSeenAtMs = now;
      let verdict = check.current(value.addressPtr, value.addressLen, value.publishedAtMs);
      // This gateway's own hint is judged as its shared-data copy was, by the endpoint's cache horizon; another
      // replica's is news the workers never judged, and the horizon applied to those refused hints whose endpoint
      // still held the prefix (docs/tuning.md, "Gateway replicas (Redis)").
      if (verdict == HintVerdict.Current && value.gateway == ownGateway && !check.withinHorizon(check.slot, value.heldUntilMs, now)) {
        verdict = HintVerdict.Expired;
      }
      if (verdict != HintVerdict.Current) {
        // A shorter position may name an endpoint that still holds its part.
        if (verdict != HintVerdict.UnknownEndpoint) replica.telemetry.count(replica.telemetry.stale);
        continue;
      }
      const slot = check.slot;
      const chunks = replica.lookupChunks(call.chainLength, i, call.previousPromptChunks);
      // Only a match longer than the worker's own is news.
      if (slot < call.matched.length && chunks <= unchecked(call.matched[slot])) continue;
      hintSlot = slot;
      hintChunks = chunks;
      break;
    }
    const t = replica.telemetry;
    t.count(hintSlot >= 0 ? t.hits : t.misses);
  }
  const heldBeforeSpread = call.spreadPreamble ? call.matchedBeforeSpread : null;
  decideWithReplicaHint(
    state, platform, d, call.chainLength, call.sessionHash, call.modelHash, call.matched, call.generations, heldBeforeSpread,
    hintSlot, hintChunks, now,
  );
  // The decision before the wait was reset (another request of the worker may have used it meanwhile).
  d.conversationKey = call.conversationKey;
}

/**
 * Scores again with the worker's matches from before the wait (localMatched, for the slots whose generation is still
 * localGenerations': an endpoint that took a freed slot meanwhile has none), the endpoint Redis named credited with
 * hintChunks. heldBeforeSpread: when a hot preamble was spread into localMatched, the matches from before that, which
 * the counters report (as for a decision that did not wait); null otherwise.
 */
export function decideWithReplicaHint(
  state: PickerState, platform: Platform, d: Decision, chainLength: i32, sessionHash: u64, modelHash: u64,
  localMatched: StaticArray<i32>, localGenerations: StaticArray<u32>, heldBeforeSpread: StaticArray<i32> | null,
  hintSlot: i32, hintChunks: i32, nowMs: f64,
): void {
  d.reset();
  d.chainLength = chainLength;
  state.modelHash = modelHash;
  if (!refreshEndpoints(state, platform, d, nowMs)) return;
  const registry = state.registry;
  const slots = registry.activeSlots;
  const matched = state.matched;
  const before = state.matchedBeforeSpread;
  d.spreadPreamble = heldBeforeSpread !== null;
  for (let i = 0; i < registry.activeCount; i++) {
    const slot = unchecked(slots[i]);
    const same = slot < localGenerations.length && unchecked(localGenerations[slot]) == registry.generation(slot);
    unchecked((matched[slot] = same && slot < localMatched.length ? unchecked(localMatched[slot]) : 0));
    if (heldBeforeSpread !== null) {
      unchecked((before[slot] = same && slot < heldBeforeSpread.length ? unchecked(heldBeforeSpread[slot]) : 0));
    }
  }
  if (hintSlot >= 0 && registry.isActive(hintSlot)) {
    const credited = min(hintChunks, chainLength);
    unchecked((matched[hintSlot] = max(unchecked(matched[hintSlot]), credited)));
    if (heldBeforeSpread !== null) unchecked((before[hintSlot] = max(unchecked(before[hintSlot]), credited)));
  }
  scoreAndPick(state, d, chainLength, sessionHash, nowMs);
}

/**
 * Whether Redis may know more than the worker: it knows nothing of the chain, its own index and hints stop short
 * of the chain's last TAIL_PROBES chunks, where a conversation's previous turn ended (a shared system prompt alone
 * is not enough), or they stop short of the previous turn's prompt itself (another replica routed that turn: a turn
 * that adds few chunks would otherwise pass for known on what the worker saw of the turn before).
 */
export function worthAskingRedis(state: PickerState, d: Decision): bool {
  const chainLength = d.chainLength;
  if (chainLength <= 0) return false;
  const best = bestLocalMatch(state);
  return best == 0 || best < chainLength - TAIL_PROBES || best < d.previousPromptChunks;
}

/** The longest match the worker's own index and hints found for the current decision. */
export function bestLocalMatch(state: PickerState): i32 {
  const registry = state.registry;
  const slots = registry.activeSlots;
  let best = 0;
  for (let i = 0; i < registry.activeCount; i++) best = max(best, unchecked(state.matched[unchecked(slots[i])]));
  return best;
}
