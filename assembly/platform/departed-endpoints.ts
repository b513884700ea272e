// When the stock build takes a configured endpoint for gone: its published record has said unhealthy (its polls
// fail) since a successful poll more than departAfterMs ago. Stock Envoy's static cluster never says a pod left, so
// failed polls are all the build learns; the Higress build evicts a host when it leaves the gateway's host list
// (higress-platform.ts refresh). A gone endpoint is evicted from the registry as such a host is, and everything kept
// on it forgotten (PickerState.forget): its index entries, and with its slot its leases, session affinities and
// failure record. Left tracked (unhealthy), its index entries still counted it as a holder of the prefixes it had
// cached and kept a hot preamble from being spread over the live endpoints (hot-preamble.ts), which then queued on
// the one live holder (held-out-diurnal-ramp, docs/tuning.md). A restarting endpoint is taken for gone alike: its
// engine comes back with an empty cache, which is what forgetting it assumes.

/** Consecutive failed polls after which an endpoint is taken for gone (the first one marks it unhealthy). */
export const DEPART_AFTER_FAILED_POLLS: i32 = 2;

/** How long after its last successful poll an endpoint whose record says unhealthy is taken for gone: by then
 *  DEPART_AFTER_FAILED_POLLS polls after that success have been answered or timed out, all failed. The first starts
 *  at the next tick (within an interval); each next one at the first tick after the previous ended (metrics-poller.ts
 *  onTick: one call per endpoint at a time), so a poll timeout past the interval delays it by whole intervals. */
export function departAfterMs(pollIntervalMs: i32, pollTimeoutMs: i32): f64 {
  const interval = <f64>max<i32>(pollIntervalMs, 1);
  const timeout = <f64>max<i32>(pollTimeoutMs, 0);
  const spacing = interval * (Math.floor(timeout / interval) + 1);
  return interval + <f64>(DEPART_AFTER_FAILED_POLLS - 1) * spacing + timeout;
}

/** Whether an endpoint whose record says `healthy`, from a poll that last succeeded at lastSuccessMs (0: never), is
 *  gone. One never polled successfully is not: it holds nothing to forget, and stays an unhealthy endpoint. */
export function departed(healthy: bool, lastSuccessMs: f64, nowMs: f64, afterMs: f64): bool {
  return !healthy && lastSuccessMs > 0 && nowMs - lastSuccessMs > afterMs;
}
