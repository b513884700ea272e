// The filter's state for one direction of a stream, what Envoy keeps per filter in ActiveStreamFilterBase
// (source/common/http/filter_manager.h), shared by ActiveStreamDecoderFilter (the request) and
// ActiveStreamEncoderFilter (the response). What the two directions do differently with it (the request's
// 413 and trailers, the response's 500, whose reading the watermark pauses) is FilterStream's.
import { DataStatus, HeadersStatus } from "./abi.ts";
import type { StreamState } from "./stream.ts";
import { concatBytes } from "./concat-bytes.ts";
import { NO_BYTES } from "./no-bytes.ts";

/** filter_manager.h ActiveStreamFilterBase::IterationState. */
export type IterationState = "continue" | "stop-single" | "stop-all-buffer" | "stop-all-watermark";

/** What buffering more body did to the WatermarkBuffer: nothing (under the limit, or already over it), its first
 *  crossing on a streaming buffer (the high watermark: reading pauses), or on one that is not streaming (too large:
 *  ActiveStreamDecoderFilter::requestDataTooLarge's 413, ActiveStreamEncoderFilter::responseDataTooLarge's 500). */
export type LimitCrossing = "none" | "watermark" | "too-large";

export type Direction = "request" | "response";

export class DirectionState {
  /** decode_headers_called_ / encode_headers_called_. */
  headersCalled = false;
  /** The filter stopped at the headers and has not let them go (headers_continued_ still false). */
  headersHeld = false;
  iteration: IterationState = "continue";
  /** While stoppedAll(): whether a data frame came (bufferedData()), and whether one ended the stream. */
  dataWhileStoppedAll = false;
  endWhileStoppedAll = false;
  /** The buffered body went over the limit (WatermarkBuffer above_high_watermark_called_): only the first
   *  crossing counts, until the buffer drains. */
  aboveLimit = false;
  /** Body bytes the filter let go, not yet taken by the gateway. */
  private released: Uint8Array[] = [];

  constructor(
    readonly direction: Direction,
    private readonly stream: StreamState,
  ) {}

  /** The body the filter holds and reads (get_buffer_bytes): state.requestBody or state.responseBody. */
  get body(): Uint8Array {
    return this.direction === "request" ? this.stream.requestBody : this.stream.responseBody;
  }
  set body(bytes: Uint8Array) {
    if (this.direction === "request") this.stream.requestBody = bytes;
    else this.stream.responseBody = bytes;
  }

  /** The filter did not return Continue to its last callback (canIterate() false). */
  get stopped(): boolean {
    return this.iteration !== "continue";
  }

  /** ActiveStreamFilterBase::stoppedAll(). */
  get stoppedAll(): boolean {
    return this.iteration === "stop-all-buffer" || this.iteration === "stop-all-watermark";
  }

  /** filter_manager.cc commonHandleAfterHeadersCallback, for a status already converted (headersStatus). */
  afterHeaders(status: number): void {
    this.headersCalled = true;
    this.headersHeld = status !== HeadersStatus.Continue;
    this.iteration =
      status === HeadersStatus.Continue ? "continue"
      : status === HeadersStatus.StopIteration ? "stop-single"
      : status === HeadersStatus.StopAllIterationAndBuffer ? "stop-all-buffer"
      : "stop-all-watermark";
  }

  /** filter_manager.cc commonHandleAfterDataCallback for a callback that stopped (StopSingleIteration):
   *  ...AndBuffer keeps the body buffered, ...AndWatermark as a streaming buffer, ...NoBuffer drops it. */
  stopAfterData(status: number, limit: number): LimitCrossing {
    this.iteration = "stop-single";
    if (status === DataStatus.StopIterationNoBuffer) {
      this.body = NO_BYTES;
      return "none";
    }
    return this.crossLimit(this.body.length, limit, status === DataStatus.StopIterationAndBuffer);
  }

  /** filter_manager.cc handleDataIfStopAll: a data frame that came while stoppedAll() is buffered, not delivered
   *  (the caller keeps the bytes); the buffer streams only under StopAllIterationAndWatermark. */
  bufferWhileStoppedAll(size: number, endOfStream: boolean, limit: number): LimitCrossing {
    this.dataWhileStoppedAll = true;
    if (endOfStream) this.endWhileStoppedAll = true;
    return this.crossLimit(size, limit, this.iteration === "stop-all-buffer");
  }

  /** The buffer grew to `size`: its first crossing of the limit, and what that means for a buffer that is
   *  (notStreaming) or is not streaming. */
  crossLimit(size: number, limit: number, notStreaming: boolean): LimitCrossing {
    if (this.aboveLimit || size <= limit) return "none";
    this.aboveLimit = true;
    return notStreaming ? "too-large" : "watermark";
  }

  /** The filter continued (a Continue, or commonContinue on a filter that stopped one iteration): the headers
   *  and the body held so far go on, and the drained buffer's next crossing counts again (WatermarkBuffer below
   *  its low watermark). Returns that body. */
  continueWithBody(): Uint8Array {
    const out = this.body;
    this.body = NO_BYTES;
    this.headersHeld = false;
    this.iteration = "continue";
    this.aboveLimit = false;
    return out;
  }

  /** filter_manager.cc commonContinue on a filter that stoppedAll(): allowIteration, the headers go on
   *  (headers_continued_), and iterate_from_current_filter_ makes the body buffered meanwhile reach this
   *  filter (doData). Returns whether there is any. */
  resumeFromStoppedAll(): boolean {
    this.headersHeld = false;
    this.iteration = "continue";
    const data = this.dataWhileStoppedAll;
    this.dataWhileStoppedAll = false;
    return data;
  }

  release(bytes: Uint8Array): void {
    if (bytes.length > 0) this.released.push(bytes);
  }

  takeReleased(): Uint8Array {
    const out = this.released.reduce(concatBytes, NO_BYTES);
    this.released = [];
    return out;
  }

  dropReleased(): void {
    this.released = [];
  }
}
