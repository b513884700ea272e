// A preallocated, bounded table of streams (by context id) waiting for the root context's timer: a slot is taken when
// a stream starts waiting and given back when it is served or ends first. Shared by BodyWatchdog and LateBodyReads.
export class StreamSlots {
  protected readonly ids: StaticArray<u32>;
  private readonly free: StaticArray<i32>;
  protected freeCount: i32;

  constructor(readonly capacity: i32) {
    this.ids = new StaticArray<u32>(capacity);
    this.free = new StaticArray<i32>(capacity);
    for (let i = 0; i < capacity; i++) unchecked((this.free[i] = capacity - 1 - i));
    this.freeCount = capacity;
  }

  /** Streams waiting now. */
  get pending(): i32 {
    return this.capacity - this.freeCount;
  }

  /** Takes a slot for the stream; returns its handle, or -1 when full. */
  protected take(contextId: u32): i32 {
    if (this.freeCount == 0) return -1;
    const i = unchecked(this.free[--this.freeCount]);
    unchecked((this.ids[i] = contextId));
    return i;
  }

  /** Gives the slot back (the stream was served, or ended first); a stale handle is ignored. */
  release(handle: i32, contextId: u32): void {
    if (handle < 0 || handle >= this.capacity || unchecked(this.ids[handle]) != contextId) return;
    unchecked((this.ids[handle] = 0));
    unchecked((this.free[this.freeCount++] = handle));
  }
}
