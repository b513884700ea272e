// The wall clock every layer reads, in milliseconds (the host's proxy_get_current_time_nanoseconds).
import { currentTimeNanos } from "../abi/host";

export function nowMs(): f64 {
  return <f64>(currentTimeNanos() / 1_000_000);
}

/** A wait that began at sinceMs has lasted limitMs by nowMs, or began "after" now: the wall clock stepped back, and
 *  how long it lasted is unknown, so it is over too. */
export function waitedPast(nowMs: f64, sinceMs: f64, limitMs: f64): bool {
  const waited = nowMs - sinceMs;
  return !(waited >= 0 && waited < limitMs);
}
