// Applies a freshly fetched metrics text to an endpoint: parse it (vLLM or SGLang names), clear the endpoint's
// metrics when the text is unusable (it then scores as unknown, and the parse error is counted), and size the
// endpoint's index share from its KV cache when known.
import { EndpointMetrics } from "../endpoints/endpoint-metrics";
import { PickerState } from "../core/picker-state";
import { fillInConfiguredCacheSize } from "../core/known-cache-sizes";

const MAX_LINES: i32 = 20000;

export function applyEndpointMetrics(state: PickerState, slot: i32, ptr: usize, len: i32, truncated: bool, nowMs: f64): void {
  const target = state.targetMetric;
  const scratch = state.parsedMetrics;
  const ok = state.metricsParser.parseWithTarget(ptr, <usize>len, truncated, scratch, MAX_LINES, changetype<usize>(target), <usize>target.byteLength);
  const m = state.registry.writableMetrics(slot);
  if (ok) {
    m.copyFrom(scratch);
  } else {
    m.reset();
    if (len > 0) state.telemetry.add(state.telemetry.metricsParseErrors, 1);
  }
  state.registry.setUpdatedMs(slot, nowMs);
  if (ok) {
    state.cacheSizes.fillIn(slot, m, !state.metricsParser.readWhole);
    applyEngineState(state, slot, m, nowMs);
  } else if (unchecked(state.appliedCapacity[slot]) == 0) {
    // An error page says nothing of the engine: its restart state, cache horizon and index share stay as the last
    // good page left them (the stock build skips a record it cannot decode alike). A new endpoint still gets one.
    applyCapacity(state, slot, m);
  }
}

/**
 * What an endpoint's metrics read at `atMs` say of its engine: counters going back (a restart) drop its index
 * entries, the cache horizon follows its counters, and its index share its cache size.
 */
export function applyEngineState(state: PickerState, slot: i32, m: EndpointMetrics, atMs: f64): void {
  fillInConfiguredCacheSize(m, state.config.kvCacheTokens);
  // A restarted engine holds nothing the index remembers. (Cleared metrics carry no counters: no restart.)
  if (state.restarts.restarted(slot, m, atMs)) state.index.purge(slot);
  state.horizon.observe(slot, m, atMs);
  applyCapacity(state, slot, m);
}

export function applyCapacity(state: PickerState, slot: i32, m: EndpointMetrics): void {
  fillInConfiguredCacheSize(m, state.config.kvCacheTokens); // an error page's cleared metrics too
  const cap = m.hasCacheConfig ? state.derivedCapacity(m.numGpuBlocks, m.blockSize) : state.config.capacityPerEndpoint;
  if (unchecked(state.appliedCapacity[slot]) != cap) {
    state.index.setCapacity(slot, cap);
    unchecked((state.appliedCapacity[slot] = cap));
  }
}
