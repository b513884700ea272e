// A safety net for stock Envoy without `allow_on_headers_stop_iteration: true` (or older than 1.35): there a
// StopIteration from the headers callback becomes StopAllIteration and the body never reaches the filter, so the
// request would hang until its route timeout. Streams that paused for their body are tracked; if no body
// callback came within the wait, the root context resumes them on its timer and counts the fail-open.
import { StreamSlots } from "./stream-slots";

export class BodyWatchdog extends StreamSlots {
  private readonly since: StaticArray<f64>;

  constructor(capacity: i32) {
    super(capacity);
    this.since = new StaticArray<f64>(capacity);
  }

  /** Starts watching a stream; returns its handle, or -1 when full (the stream is then not watched). */
  watch(contextId: u32, nowMs: f64): i32 {
    const i = this.take(contextId);
    if (i >= 0) unchecked((this.since[i] = nowMs));
    return i;
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
