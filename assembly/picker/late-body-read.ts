// Queues one stream's late body read (see late-body-reads.ts): the root's timer goes to a short period until the
// read is done, the read is counted, and the first one on this VM logs the cause.
import { log, setTickPeriodMs } from "../abi/host";
import { LogLevel } from "../abi/types";
import { Telemetry } from "../core/telemetry";
import { LATE_READ_TICK_MS, LateBodyReads } from "./late-body-reads";

/** Returns the stream's handle, or -1 when it cannot wait (no table: stock build; or the table is full). */
export function readBodyLater(reads: LateBodyReads | null, contextId: u32, telemetry: Telemetry): i32 {
  if (reads === null) return -1;
  const first = reads.pending == 0;
  const handle = reads.add(contextId);
  if (handle < 0) return -1;
  // From a stream, the timer set is its root context's (cpp-host context.cc ContextBase::setTimerPeriod). Only the
  // first: each set re-arms the timer (envoy wasm.cc Wasm::setTimerPeriod), so reads queued faster than the short
  // period would keep putting the tick off.
  if (first) setTickPeriodMs(LATE_READ_TICK_MS);
  telemetry.add(telemetry.lateBodyReads, 1);
  if (!LateBodyReads.warned) {
    LateBodyReads.warned = true;
    log(LogLevel.Warn, "endpoint-picker: the gateway delivered a body shorter than its Content-Length: Higress before 2.2 (Envoy 1.27) reads a buffered body without its last chunk (envoy#35884); reading it on the next tick");
  }
  return handle;
}
