// Garbage collection under AssemblyScript's "minimal" runtime: a two-color mark & sweep that never runs by
// itself and keeps no shadow stack (so the hot path pays no GC bookkeeping). It must only run when no
// AssemblyScript frame holds a managed reference, i.e. at the very start of a callback the host made; the
// exports call `collectAtEntry` there. A collection marks the whole live heap (about 40 us at 8 endpoints, 100 us at
// 256), so it runs only once garbage may have piled up: every 1,024 streams (and every 16th tick) it is considered,
// and it runs when the objects made since the last collection reach MIN_GARBAGE_BYTES, or a root context went. A warm
// worker's request path allocates nothing (its roots reuse ended streams' contexts: stream-pool.ts), so it never
// collects; what allocates (the debug header, configuration, a poll's replies) is collected within those bounds.
import { BLOCK, BLOCK_OVERHEAD, OBJECT, TOTAL_OVERHEAD } from "~lib/rt/common";
import { Stage, stageEnter, stageLeave } from "./stage-profile";

const STREAMS_PER_COLLECTION: i32 = 1024;
const TICKS_PER_COLLECTION: i32 = 16;
/** Made since the last collection, in bytes, before one is worth its mark of the whole heap. */
export const MIN_GARBAGE_BYTES: usize = 64 * 1024;
/** Objects counted per check at most: past it, count the bytes as enough. */
const MAX_COUNTED_OBJECTS: i32 = 1 << 16;
// Process-wide on purpose: the heap they pace is the module's, shared by every root and stream.
let streamsSinceCollection: i32 = 0;
let ticksSinceCollection: i32 = 0;
let rootWent: bool = false;
// ~lib/rt/tcms.ts links every new object last in the list of unmarked objects (__new: linkTo(fromSpace)), which a
// collection leaves holding exactly the live ones. An object made right after a collection (the probe) is therefore
// followed by every object made since, up to the list's head; nothing else ever follows it (only a collection frees,
// marks or moves objects out of that list, and __pin, which the plugin never calls). 0: no collection yet.
let probe: usize = 0;
let head: usize = 0;

/** newStream: a stream's context is being created; otherwise a root's timer (or a root context) starts. */
export function collectAtEntry(newStream: bool): void {
  if (newStream) {
    if (++streamsSinceCollection < STREAMS_PER_COLLECTION) return;
  } else if (++ticksSinceCollection < TICKS_PER_COLLECTION) {
    return;
  }
  streamsSinceCollection = 0;
  ticksSinceCollection = 0;
  if (!rootWent && bytesMadeSinceCollection() < MIN_GARBAGE_BYTES) return;
  rootWent = false;
  stageEnter(Stage.Gc);
  __collect();
  probe = __new(0, idof<ArrayBuffer>()) - TOTAL_OVERHEAD;
  head = nextObject(probe);
  stageLeave();
}

/** A root context went: what it kept is garbage though nothing new was made. */
export function collectionOwed(): void {
  rootWent = true;
}

/** The bytes of the objects made since the last collection (all of the heap before the first one). */
export function bytesMadeSinceCollection(): usize {
  if (probe == 0) return usize.MAX_VALUE;
  let bytes: usize = 0;
  let o = nextObject(probe);
  for (let n = 0; o != head; n++) {
    if (n == MAX_COUNTED_OBJECTS) return usize.MAX_VALUE;
    bytes += BLOCK_OVERHEAD + (changetype<BLOCK>(o).mmInfo & ~3);
    o = nextObject(o);
  }
  return bytes;
}

// @ts-ignore: decorator
@inline function nextObject(o: usize): usize {
  return <usize>changetype<OBJECT>(o).gcInfo & ~3;
}
