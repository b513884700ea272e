// The wall clock every layer reads, in milliseconds (the host's proxy_get_current_time_nanoseconds).
import { currentTimeNanos } from "../abi/host";

export function nowMs(): f64 {
  return <f64>(currentTimeNanos() / 1_000_000);
}
