// A safety net for stock Envoy without `allow_on_headers_stop_iteration: true` (or older than 1.35): there a
// StopIteration from the headers callback becomes StopAllIteration and the body never reaches the filter, so the
// request would hang until its route timeout. Streams that paused for their body are tracked; if no body
// callback came within the wait, the root context resumes them on its timer and counts the fail-open.
export class BodyWatchdog {
  private readonly ids: StaticArray<u32>;
  private readonly since: StaticArray<f64>;
  private readonly free: StaticArray<i32>;
  private freeCount: i32;

  constructor(readonly capacity: i32) {
    this.ids = new StaticArray<u32>(capacity);
    this.since = new StaticArray<f64>(capacity);
    this.free = new StaticArray<i32>(capacity);
    for (let i = 0; i < capacity; i++) unchecked((this.free[i] = capacity - 1 - i));
    this.freeCount = capacity;
  }

  /** Starts watching a stream; returns its handle, or -1 when full (the stream is then not watched). */
  watch(contextId: u32, nowMs: f64): i32 {
    if (this.freeCount == 0) return -1;
    const i = unchecked(this.free[--this.freeCount]);
    unchecked((this.ids[i] = contextId));
    unchecked((this.since[i] = nowMs));
    return i;
  }

  /** Stops watching (the body arrived, or the stream ended). */
  release(handle: i32, contextId: u32): void {
    if (handle < 0 || handle >= this.capacity || unchecked(this.ids[handle]) != contextId) return;
    unchecked((this.ids[handle] = 0));
    unchecked((this.free[this.freeCount++] = handle));
  }

  /** Calls `resume` for each stream waiting longer than waitMs, or watched since "later" than now (the wall clock
   *  stepped back: how long it waited is unknown), and stops watching it. */
  expire(nowMs: f64, waitMs: f64, resume: (contextId: u32) => void): i32 {
    let n = 0;
    for (let i = 0; i < this.capacity; i++) {
      const id = unchecked(this.ids[i]);
      if (id == 0) continue;
      const waited = nowMs - unchecked(this.since[i]);
      if (waited >= 0 && waited < waitMs) continue;
      this.release(i, id);
      resume(id);
      n++;
    }
    return n;
  }
}
