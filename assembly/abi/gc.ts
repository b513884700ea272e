// Garbage collection under AssemblyScript's "minimal" runtime: a two-color mark & sweep that never runs by
// itself and keeps no shadow stack (so the hot path pays no GC bookkeeping). It must only run when no
// AssemblyScript frame holds a managed reference, i.e. at the very start of a callback the host made; the
// exports call `collectAtEntry` there. Most request-path code allocates nothing (a stream's own context object and
// its map entry are most of what a stream leaves), so a collection every 256 streams keeps the heap flat; a
// collection marks the whole live heap (about 17 us at 8 endpoints), so collecting 4x less often than every 64
// cut about 1% (8 endpoints) to 3% (256) of a 1 KiB decision.
import { Stage, stageEnter, stageLeave } from "./stage-profile";

const STREAMS_PER_COLLECTION: i32 = 256;
// Process-wide on purpose: the heap it paces is the module's, shared by every root and stream.
let streamsSinceCollection: i32 = 0;

export function collectAtEntry(newStream: bool): void {
  if (newStream && ++streamsSinceCollection < STREAMS_PER_COLLECTION) return;
  streamsSinceCollection = 0;
  stageEnter(Stage.Gc);
  __collect();
  stageLeave();
}
