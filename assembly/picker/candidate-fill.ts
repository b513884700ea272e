// The candidates of one request, in the registry's active order: the snapshot's part of each (endpoints/endpoint-
// signals.ts, kept between snapshots) copied whole, then what changes with every request: the prefix match, the
// load (this gateway's, process-wide, or this worker's leases), the failure EWMA while it is fed, the session match.
// At hundreds of endpoints the per-request part is copies where it can be: the matches whole when slots are in list
// order, the process-wide load only at the few endpoints with requests outstanding.
import { PickerState } from "../core/picker-state";
import { decayedEwma } from "../scheduling/failure-ewma";
import { countOrZero } from "../scheduling/lane-masks";

/** Copies the first n elements of from into to (both sized for all endpoints). */
// @ts-ignore: decorator
@inline
function copyInto<T>(to: StaticArray<T>, from: StaticArray<T>, n: i32): void {
  const k = min<i32>(n, min<i32>(to.length, from.length));
  memory.copy(changetype<usize>(to), changetype<usize>(from), <usize>k * sizeof<T>());
}

/** Zeroes the first n elements of a. */
// @ts-ignore: decorator
@inline
function clearFirst<T>(a: StaticArray<T>, n: i32): void {
  memory.fill(changetype<usize>(a), 0, <usize>min<i32>(n, a.length) * sizeof<T>());
}

/** Fills state.candidates for this request; returns how many endpoints are healthy (0: nothing to pick from). */
export function fillCandidates(state: PickerState, sessionHash: u64, nowMs: f64): i32 {
  const registry = state.registry;
  const matched = state.matched;
  const sessionSlot = state.sessions.slotFor(sessionHash);
  const sessionGeneration = sessionSlot >= 0 ? state.sessions.generationFor(sessionHash) : 0;
  const c = state.candidates;
  const shared = state.load !== null;
  // The snapshot's part of every candidate (with its lane masks) is copied whole once per rebuilt list: nothing but
  // this fill writes those fields, except health, which the filters (decide.ts) clear, so it is copied again after
  // they did. What changes per request is written below.
  const signals = state.endpointSignals;
  signals.update(registry, state.modelHash, c.capacity);
  const listed = signals.listed;
  const count = listed.count;
  const healthy = signals.healthyCount;
  const rebuilt = state.candidatesBuild != signals.builds;
  if (rebuilt || c.excludedAny) {
    c.excludedAny = false;
    copyInto(c.healthy, listed.healthy, count);
    copyInto(c.healthyLanes, listed.healthyLanes, count);
    copyInto(c.healthyLanes32, listed.healthyLanes32, count);
  }
  if (rebuilt) {
    state.candidatesBuild = signals.builds;
    copyInto(c.slot, listed.slot, count);
    copyInto(c.hasMetrics, listed.hasMetrics, count);
    copyInto(c.hasMetricsLanes, listed.hasMetricsLanes, count);
    copyInto(c.running, listed.running, count);
    copyInto(c.kvUsage, listed.kvUsage, count);
    copyInto(c.hasKv, listed.hasKv, count);
    copyInto(c.hasKvLanes, listed.hasKvLanes, count);
    copyInto(c.loraState, listed.loraState, count);
    if (!shared) copyInto(c.waiting, listed.waiting, count);
    if (!state.tracksFailures) clearFirst(c.failureEwma, count); // never fed
  }
  if (c.snapshotId == 0 || rebuilt) c.markSnapshot();
  c.lanesCurrent = listed.lanesCurrent;
  // Every array read once, and the candidate arrays written directly: a store could alias any field as far as
  // the compiler knows, so each would otherwise be reloaded for every endpoint (hundreds of them per request).
  const signalSlots = listed.slot;
  const signalGenerations = signals.generation;
  const signalWaiting = listed.waiting;
  const leaseCounts = state.leases.countBySlot;
  const leaseGenerations = state.leases.generationBySlot;
  const failureEwmas = state.failures.ewmaBySlot;
  const failureGenerations = state.failures.generationBySlot;
  const failureUpdatedMs = state.failures.updatedMsBySlot;
  const failureHalfLifeMs = <f64>state.config.failureHalfLifeMs;
  const leaseSlots = <u32>min<i32>(leaseCounts.length, leaseGenerations.length);
  const failureSlots = <u32>min<i32>(failureEwmas.length, min<i32>(failureGenerations.length, failureUpdatedMs.length));
  const matchedSlots = <u32>matched.length;
  const loadView = state.loadView;
  const sharedPending = loadView.pending;
  const sharedInflight = loadView.inflight;
  const sharedSlots = <u32>min<i32>(sharedPending.length, sharedInflight.length);
  const cWaiting = c.waiting;
  const cInflight = c.inflight;
  const cPrefixMatched = c.prefixMatched;
  const cFailureEwma = c.failureEwma;
  const cSessionMatch = c.sessionMatch;
  // One loop per kind of per-request field, each only where it can differ from its default.
  if (signals.slotsInOrder && count <= matched.length) {
    copyInto(cPrefixMatched, matched, count);
  } else {
    for (let i = 0; i < count; i++) {
      const slot = unchecked(signalSlots[i]);
      unchecked((cPrefixMatched[i] = <u32>slot < matchedSlots ? unchecked(matched[slot]) : 0));
    }
  }
  if (shared) {
    // Process-wide load: an endpoint at a slot the load view did not write has no requests outstanding, so its
    // snapshot's queue (at least 0) and none in flight. Requests awaiting their first byte are queued or in prefill
    // right now: the queue is at least that long, however old the metrics are.
    copyInto(cWaiting, signals.waitingOrZero, count);
    clearFirst(cInflight, count);
    const written = loadView.written;
    const indexBySlot = signals.indexBySlot;
    const indexSlots = <u32>indexBySlot.length;
    const writtenCount = min<i32>(loadView.writtenCount, written.length);
    // The pick's load ranges: the snapshot's, with the few changed candidates taken one by one (each slot is written
    // once, so each candidate changes once).
    const changes = state.scheduler.loadChanges;
    changes.begin(signals.snapshotLoad);
    const cHealthy = c.healthy;
    const cHasMetrics = c.hasMetrics;
    const waitingOrZero = signals.waitingOrZero;
    for (let k = 0; k < writtenCount; k++) {
      const slot = unchecked(written[k]);
      if (<u32>slot >= indexSlots || <u32>slot >= sharedSlots) continue;
      const i = unchecked(indexBySlot[slot]);
      if (<u32>i >= <u32>count) continue;
      let waiting = unchecked(signalWaiting[i]);
      const pending = <f64>unchecked(sharedPending[slot]);
      if (!(waiting >= pending)) waiting = pending;
      unchecked((cWaiting[i] = waiting));
      const inflight = unchecked(sharedInflight[slot]);
      unchecked((cInflight[i] = inflight));
      if (unchecked(cHealthy[i])) {
        changes.change(unchecked(cHasMetrics[i]), countOrZero(unchecked(waitingOrZero[i])), countOrZero(waiting),
          <f64>max<i32>(inflight, 0));
      }
    }
    changes.finish(count, c.markLoad());
  } else {
    c.loadEpoch = 0; // every candidate's in-flight count is this worker's: the pick measures the ranges
    for (let i = 0; i < count; i++) {
      const slot = unchecked(signalSlots[i]);
      // A lease of the slot's previous occupant (another generation) does not count.
      const gen = unchecked(signalGenerations[i]);
      unchecked((cInflight[i] = <u32>slot < leaseSlots && unchecked(leaseGenerations[slot]) == gen ? unchecked(leaseCounts[slot]) : 0));
    }
  }
  c.noFailureRates = !state.tracksFailures || !state.failures.anyRate(nowMs, failureHalfLifeMs);
  if (!state.tracksFailures) {
    // never fed: cleared with the snapshot's part above
  } else if (c.noFailureRates) {
    // No failure recorded, or every rate faded: all 0, so the failure score is the same on every endpoint.
    clearFirst(cFailureEwma, count);
  } else {
    for (let i = 0; i < count; i++) {
      const slot = unchecked(signalSlots[i]);
      const gen = unchecked(signalGenerations[i]);
      const current = <u32>slot < failureSlots && unchecked(failureGenerations[slot]) == gen;
      unchecked((cFailureEwma[i] = current
        ? decayedEwma(unchecked(failureEwmas[slot]), nowMs - unchecked(failureUpdatedMs[slot]), failureHalfLifeMs)
        : 0));
    }
  }
  clearFirst(cSessionMatch, count);
  if (sessionSlot >= 0) {
    for (let i = 0; i < count; i++) {
      if (unchecked(signalSlots[i]) == sessionSlot) unchecked((cSessionMatch[i] = unchecked(signalGenerations[i]) == sessionGeneration));
    }
  }
  c.count = count;
  return healthy;
}
