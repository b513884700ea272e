// The stock build's polling keys for a host that runs its health checks every `intervalMs`.
/** Polls at `intervalMs`, metrics going stale after ten polls missed (at least the default 10 s; the plugin refuses a
 *  staleness that is not longer than the interval). */
export function pollingAt(intervalMs: number): { pollIntervalMs: number; staleAfterMs: number } {
  return { pollIntervalMs: intervalMs, staleAfterMs: Math.min(3_600_000, Math.max(10_000, 10 * intervalMs)) };
}
