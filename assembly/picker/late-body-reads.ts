// Higress before 2.2 runs on higress-group/envoy branch envoy-1.27, whose context.cc Context::decodeData calls a
// buffering filter's body callback before the chunk joins the buffer (envoy#35884): at the end of the stream the
// plugin reads the body without its last chunk. A stream whose body is shorter than its Content-Length stays paused
// and is read again on the root context's next tick, once the filter manager moved the chunk into the buffer
// (filter_manager.cc commonHandleAfterDataCallback → commonHandleBufferData). From the tick, with the stream the
// effective context (cpp-host exports.cc contextOrEffectiveContext: get_buffer_bytes, set_upstream_override_host),
// Context::getBuffer returns that buffer: buffering_request_body_ stays set after StopIterationAndBuffer, so it is
// modifyDecodingBuffer's buffered_request_data_. Preallocated and bounded, like BodyWatchdog.
import { StreamSlots } from "./stream-slots";

export const LATE_READ_TICK_MS: u32 = 1;

export class LateBodyReads extends StreamSlots {
  /** One warning per VM names the cause. */
  static warned: bool = false;

  /** Queues a stream's late read; returns its handle, or -1 when full. */
  add(contextId: u32): i32 {
    return this.take(contextId);
  }

  /** Takes every queued read and calls `read` for its stream; returns how many. */
  drain(read: (contextId: u32) => void): i32 {
    let n = 0;
    for (let i = 0; i < this.capacity && this.freeCount < this.capacity; i++) {
      const id = unchecked(this.ids[i]);
      if (id == 0) continue;
      this.release(i, id);
      read(id);
      n++;
    }
    return n;
  }
}
