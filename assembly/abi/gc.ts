// Garbage collection under AssemblyScript's "minimal" runtime: a two-color mark & sweep that never runs by
// itself and keeps no shadow stack (so the hot path pays no GC bookkeeping). It must only run when no
// AssemblyScript frame holds a managed reference, i.e. at the very start of a callback the host made; the
// exports call `collectAtEntry` there. The request path allocates nothing once a worker is warm (its roots reuse
// ended streams' contexts: stream-pool.ts); what is left to collect comes from the debug header, configuration and
// streams beyond the reused ones, so a collection every 1,024 streams keeps the heap flat. A collection marks the whole live heap (about 40 us at 8 endpoints, 100 us at 256), so
// every 1,024 rather than every 256 streams took 0.1 us (8 endpoints) to 0.3 us (256) off each 1 KiB decision.
// A tick leaves little (a poll's replies, on the stock build), so only every 16th collects: collecting on every
// 20 ms tick cost a worker 2 to 5 ms a second, busy or idle.
import { Stage, stageEnter, stageLeave } from "./stage-profile";

const STREAMS_PER_COLLECTION: i32 = 1024;
const TICKS_PER_COLLECTION: i32 = 16;
// Process-wide on purpose: the heap they pace is the module's, shared by every root and stream.
let streamsSinceCollection: i32 = 0;
let ticksSinceCollection: i32 = 0;

/** newStream: a stream's context is being created; otherwise a root's timer (or a root context) starts. */
export function collectAtEntry(newStream: bool): void {
  if (newStream) {
    if (++streamsSinceCollection < STREAMS_PER_COLLECTION) return;
  } else if (++ticksSinceCollection < TICKS_PER_COLLECTION) {
    return;
  }
  streamsSinceCollection = 0;
  ticksSinceCollection = 0;
  stageEnter(Stage.Gc);
  __collect();
  stageLeave();
}
