// The decision for one request body: extract → chain → snapshot → candidates → filter → score → pick.
// It reads host state only through the platform's snapshot and changes nothing but the decision record;
// the override and the bookkeeping that follows it happen in the stream once the override succeeded.
import { SharedPrefixHints } from "../prefix/shared-hints";
import { chainSeed, chunksEndingBy } from "../prefix/chain";
import { conversationKey } from "../prefix/conversation-tail";
import { creditPreviousAnswer } from "../prefix/answer-credit";
import { spreadHotPreamble } from "../prefix/hot-preamble";
import { ExtractStatus } from "../request/extract";
import { MetricPolicy } from "../config/picker-config";
import { Platform } from "../core/platform";
import { Fallback } from "../core/fallback";
import { PickerState } from "../core/picker-state";
import { PrefixSkip } from "../request/prefix-skip";
import { Stage, stageEnter, stageLeave } from "../abi/stage-profile";
import { fillCandidates } from "./candidate-fill";

/** The outcome of `decide`, reused for every request of the worker. */
export class Decision {
  fallback: i32 = Fallback.None;
  prefixSkip: i32 = PrefixSkip.None;
  /** Chosen registry slot and its generation, when fallback is None. */
  slot: i32 = -1;
  generation: u32 = 0;
  /** The candidate index the scheduler picked (for the debug header). */
  candidate: i32 = -1;
  chainLength: i32 = 0;
  /** Chunks the chosen endpoint holds as far as the worker knows (its index, hints, answer credit), not counting a
   *  hot preamble credited to every endpoint: what the counters and the debug header report. */
  matchedChunks: i32 = 0;
  /** The request's hot preamble was credited to every endpoint (hot-preamble.ts). */
  spreadPreamble: bool = false;
  /** The conversation this request belongs to (conversation-tail.ts conversationKey), 0 when none or unused. */
  conversationKey: u64 = 0;
  /** Something follows the first user message: an earlier turn of the conversation may have been routed. */
  continuesConversation: bool = false;
  /** The registry slot that served the conversation's previous turn, from its cross-worker hint; -1 when not known. */
  previousTurnSlot: i32 = -1;
  /** Whole chunks of the chain before its last assistant message (the previous turn's prompt), 0 when none. */
  previousPromptChunks: i32 = 0;

  reset(): void {
    this.fallback = Fallback.None;
    this.prefixSkip = PrefixSkip.None;
    this.slot = -1;
    this.generation = 0;
    this.candidate = -1;
    this.chainLength = 0;
    this.matchedChunks = 0;
    this.spreadPreamble = false;
    this.conversationKey = 0;
    this.continuesConversation = false;
    this.previousTurnSlot = -1;
    this.previousPromptChunks = 0;
  }
}

// BudgetNoModel leaves the extractor's reason at None; it has always been counted as no_prompt.
@inline function skipOf(extractorSkip: i32): i32 {
  return extractorSkip == PrefixSkip.None ? PrefixSkip.NoPrompt : extractorSkip;
}

export function decide(
  state: PickerState, platform: Platform, d: Decision, bodyPtr: usize, bodyLen: usize, nowMs: f64,
  saltPtr: usize, saltLen: usize, sessionHash: u64,
): void {
  d.reset();
  const cfg = state.config;
  const ex = state.extractor;
  stageEnter(Stage.Extract);
  const status = ex.extract(bodyPtr, bodyLen, cfg.maxScanSteps);
  stageLeave();
  if (status == ExtractStatus.InvalidJson || status == ExtractStatus.NotObject) {
    d.fallback = Fallback.InvalidJson;
    return;
  }
  if (status == ExtractStatus.MissingModel) {
    d.fallback = Fallback.MissingModel;
    return;
  }
  // BudgetNoModel: the body was too costly to read to the end; load signals still decide.
  state.modelHash = ex.modelLen > 0 ? state.modelNameHash.of(ex.modelPtr, <usize>ex.modelLen) : 0;

  let chainLength = 0;
  if (!ex.prefixUsable) {
    d.prefixSkip = skipOf(ex.prefixSkip);
  } else {
    stageEnter(Stage.ChunkHash);
    const seed = chainSeed(ex.modelPtr, <usize>ex.modelLen, saltPtr, saltLen);
    chainLength = state.chain.build(ex.streamPtr, <usize>ex.streamLen, cfg.chunkChars, seed);
    if (state.hints !== null && chainLength > 0) {
      const chain = state.chain;
      d.conversationKey = conversationKey(ex.streamPtr, ex.firstUserEnd, chain.ends, chain.hashes, chainLength, seed);
      d.continuesConversation = ex.firstUserEnd < ex.streamLen;
    }
    stageLeave();
    if (chainLength == 0) d.prefixSkip = PrefixSkip.ShortPrompt;
    if (ex.lastAssistantStart > 0) d.previousPromptChunks = chunksEndingBy(state.chain.ends, chainLength, ex.lastAssistantStart);
  }
  d.chainLength = chainLength;

  if (!refreshEndpoints(state, platform, d, nowMs)) return;
  const registry = state.registry;
  const active = registry.activeCount;
  const slots = registry.activeSlots;
  const matched = state.matched;
  stageEnter(Stage.IndexLookup);
  if (chainLength > 0) {
    // Writes every active endpoint's match: no clearing first.
    const since = state.ownEntriesSince(nowMs);
    const longest = registry.activeInOrder
      ? state.index.matchFirstSlots(state.chain.hashes, chainLength, active, matched, since)
      : state.index.match(state.chain.hashes, chainLength, slots, active, matched, since);
    const hints = state.hints;
    if (hints !== null) {
      stageEnter(Stage.SharedHints);
      applySharedHint(state, hints, d, longest, nowMs);
      stageLeave();
    }
    if (cfg.creditAnswers && ex.lastAssistantEnd > 0 &&
        creditPreviousAnswer(
          matched, slots, active, state.chain.ends, chainLength, ex.lastAssistantStart, ex.lastAssistantEnd, cfg.chunkChars,
          d.previousTurnSlot,
        ) >= 0) {
      state.telemetry.add(state.telemetry.answerCredits, 1);
    }
    if (cfg.spreadHotPreambles && spreadHotPreamble(
      state.preambleHeat, matched, slots, active, state.chain.ends, state.chain.hashes, chainLength, ex.firstUserStart,
      d.previousTurnSlot >= 0, state.matchedBeforeSpread,
    )) {
      d.spreadPreamble = true;
      state.telemetry.add(state.telemetry.hotPreambleSpreads, 1);
    }
  } else {
    clearMatched(state);
  }
  stageLeave();

  if (state.load !== null) state.loadView.read(state.load!, state.registry, nowMs);

  stageEnter(Stage.Scoring);
  scoreAndPick(state, d, chainLength, sessionHash, nowMs);
  stageLeave();
}

/**
 * The snapshot of endpoints; false (fallback set) when there is none to pick from. The prefix matches
 * (state.matched) are the caller's to write for every active endpoint.
 */
export function refreshEndpoints(state: PickerState, platform: Platform, d: Decision, nowMs: f64): bool {
  stageEnter(Stage.Snapshot);
  const refreshed = platform.refresh(state, nowMs);
  stageLeave();
  if (!refreshed) {
    d.fallback = Fallback.HostsUnavailable;
    return false;
  }
  if (platform.balancerDecides()) {
    d.fallback = Fallback.DegradedShare;
    return false;
  }
  if (state.registry.activeCount == 0) {
    d.fallback = Fallback.NoEndpoints;
    return false;
  }
  return true;
}

/** No prefix match on any active endpoint. */
function clearMatched(state: PickerState): void {
  const registry = state.registry;
  const slots = registry.activeSlots;
  const matched = state.matched;
  for (let i = 0; i < registry.activeCount; i++) unchecked((matched[unchecked(slots[i])] = 0));
}

/** Candidates from the active endpoints, the configured filters, the scheduler's pick. */
export function scoreAndPick(state: PickerState, d: Decision, chainLength: i32, sessionHash: u64, nowMs: f64): void {
  const cfg = state.config;
  const registry = state.registry;
  const c = state.candidates;
  const healthy = fillCandidates(state, sessionHash, nowMs);
  if (healthy == 0) {
    d.fallback = Fallback.NoHealthyEndpoint;
    return;
  }
  if (cfg.metricPolicy != MetricPolicy.Default) keepBestByTargetMetric(state);
  if (cfg.rateLimit < 1.0) skipOverShare(state);

  const pick = state.scheduler.pick(c, chainLength);
  if (pick < 0) {
    d.fallback = Fallback.NoHealthyEndpoint;
    return;
  }
  d.candidate = pick;
  d.slot = unchecked(c.slot[pick]);
  d.generation = registry.generation(d.slot);
  d.matchedChunks = d.spreadPreamble && <u32>d.slot < <u32>state.matchedBeforeSpread.length
    ? unchecked(state.matchedBeforeSpread[d.slot])
    : unchecked(c.prefixMatched[pick]);
}

/** Lets a longer match that another worker published count for its endpoint. */
// best: the longest match the worker's own index found.
function applySharedHint(state: PickerState, hints: SharedPrefixHints, d: Decision, best: i32, nowMs: f64): void {
  const registry = state.registry;
  const chainLength = d.chainLength;
  const hashes = state.chain.hashes;
  if (best >= chainLength) return;
  // A later turn first asks where its conversation's previous turn went (one read), then the landmarks.
  const check = state.hintCheck;
  let found = false;
  let passOverTail: u64 = 0;
  if (d.continuesConversation) {
    found = hints.lookupConversation(d.conversationKey, hashes, chainLength, best, nowMs, check);
    passOverTail = hints.refusedTail;
    if (hints.previousTurnAccepted) {
      // The previous turn's endpoint holds that turn, even when other endpoints match as far.
      d.previousTurnSlot = check.slot;
      if (!found && hints.matchedChunks > unchecked(state.matched[check.slot])) unchecked((state.matched[check.slot] = hints.matchedChunks));
    }
  }
  if (!found) found = hints.lookup(hashes, chainLength, best, nowMs, check, passOverTail);
  if (!found) return;
  const slot = check.slot;
  if (hints.matchedChunks > unchecked(state.matched[slot])) {
    unchecked((state.matched[slot] = hints.matchedChunks));
    state.telemetry.add(state.telemetry.sharedHintHits, 1);
  }
}

/** Higress metric_policy least/most: keep endpoints within (max - min) / n of the best target value. */
function keepBestByTargetMetric(state: PickerState): void {
  const c = state.candidates;
  const registry = state.registry;
  let lo = f64.MAX_VALUE;
  let hi = -f64.MAX_VALUE;
  let n = 0;
  for (let i = 0; i < c.count; i++) {
    if (!unchecked(c.healthy[i])) continue;
    const m = unchecked(registry.metricsBySlot[unchecked(c.slot[i])]); // a read: writableMetrics() counts as a change
    if (!m.hasTarget) continue;
    lo = min(lo, m.targetValue);
    hi = max(hi, m.targetValue);
    n++;
  }
  if (n == 0) return;
  const band = (hi - lo) / <f64>n;
  const least = state.config.metricPolicy == MetricPolicy.Least;
  for (let i = 0; i < c.count; i++) {
    if (!unchecked(c.healthy[i])) continue;
    const m = unchecked(registry.metricsBySlot[unchecked(c.slot[i])]); // a read: writableMetrics() counts as a change
    if (!m.hasTarget) continue;
    const keep = least ? m.targetValue <= lo + band : m.targetValue >= hi - band;
    if (!keep) c.exclude(i);
  }
}

/** Higress rate_limit: skip endpoints above their share of recent picks while another candidate remains. */
function skipOverShare(state: PickerState): void {
  const c = state.candidates;
  const limit = state.config.rateLimit;
  let remaining = 0;
  for (let i = 0; i < c.count; i++) {
    if (unchecked(c.healthy[i]) && state.rateWindow.share(unchecked(c.slot[i])) <= limit) remaining++;
  }
  if (remaining == 0) return;
  for (let i = 0; i < c.count; i++) {
    if (unchecked(c.healthy[i]) && state.rateWindow.share(unchecked(c.slot[i])) > limit) c.exclude(i);
  }
}
