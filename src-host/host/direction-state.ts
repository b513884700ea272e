// The filter's state for one direction of a stream, what Envoy keeps per filter in ActiveStreamFilterBase
// (source/common/http/filter_manager.h), shared by ActiveStreamDecoderFilter (the request) and
// ActiveStreamEncoderFilter (the response), with its buffered body and the part of it the wasm filter shows the
// module (envoy context.cc Context::getBuffer). What the two directions do differently with it (the request's
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
  /** envoy context.cc buffering_request_body_ / buffering_response_body_: the last body callback returned
   *  StopIterationAndBuffer, so the next chunk joins the filter manager's buffer before the VM call and the module
   *  reads that buffer (Context::getBuffer → modifyDecodingBuffer / modifyEncodingBuffer). Only a body callback
   *  resets it (Context::decodeData / encodeData): it stays set after continue_stream (Context::continueStream). */
  private buffering = false;
  /** The filter manager's buffer for this filter (buffered_request_data_ / buffered_response_data_): what goes on when
   *  it continues. It lives in `body` while the module's body is that buffer (bufferedIsBody), here otherwise. */
  private bufferedApart: Uint8Array = NO_BYTES;
  private bufferedIsBody = false;
  /** The data of this body callback is the buffer itself (commonContinue → doData(buffered data)), not a new chunk. */
  private providedIsBuffered = false;
  /** envoy-1.27 order (chunkJoinsAfterCall): the chunk of the body callback under way while buffering, which joins the
   *  buffer only when the callback returns; null otherwise. */
  private lateChunk: Uint8Array | null = null;

  /** chunkJoinsAfterCall: higress-group/envoy branch envoy-1.27 (Higress before 2.2), context.cc Context::decodeData /
   *  encodeData: the VM is called before the chunk joins the buffer, so while buffering the module reads the buffer
   *  without it (getBuffer → modifyDecodingBuffer) and gets its size without it; the filter manager moves the chunk
   *  into the buffer after the callback (filter_manager.cc commonHandleAfterDataCallback → commonHandleBufferData).
   *  Upstream Envoy adds it first (envoy#36411, #37079). */
  constructor(
    readonly direction: Direction,
    private readonly stream: StreamState,
    private readonly chunkJoinsAfterCall = false,
  ) {}

  /** The body the module reads and writes (get_buffer_bytes): state.requestBody or state.responseBody. */
  get body(): Uint8Array {
    return this.direction === "request" ? this.stream.requestBody : this.stream.responseBody;
  }
  set body(bytes: Uint8Array) {
    if (this.direction === "request") this.stream.requestBody = bytes;
    else this.stream.responseBody = bytes;
  }

  /** Envoy has a buffer behind the module's body (StreamState.requestBodyPresent / responseBodyPresent). */
  private set present(on: boolean) {
    if (this.direction === "request") this.stream.requestBodyPresent = on;
    else this.stream.responseBodyPresent = on;
  }

  /** The filter manager's buffered data. */
  private get buffered(): Uint8Array {
    return this.bufferedIsBody ? this.body : this.bufferedApart;
  }

  private keepBuffered(bytes: Uint8Array, asBody: boolean): void {
    this.bufferedIsBody = asBody;
    if (asBody) {
      this.body = bytes;
      this.bufferedApart = NO_BYTES;
    } else {
      this.bufferedApart = bytes;
    }
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

  /** envoy context.cc Context::decodeData / encodeData before the VM call. While buffering, the chunk joins the
   *  buffer (addDecodedData / addEncodedData, not streaming: its crossing of the limit is too large) and the module
   *  reads all of it; otherwise the module reads this chunk alone (request_body_buffer_ = &data). In envoy-1.27's
   *  order the chunk waits for afterData and the module reads the buffer as it was. */
  beginData(chunk: Uint8Array, limit: number): LimitCrossing {
    this.providedIsBuffered = false;
    this.present = true;
    this.lateChunk = null;
    if (this.buffering && this.chunkJoinsAfterCall) {
      this.lateChunk = chunk;
      return "none";
    }
    if (this.buffering) {
      this.keepBuffered(concatBytes(this.buffered, chunk), true);
      return this.crossLimit(this.body.length, limit, true);
    }
    // Bytes the module wrote into the last chunk after its callback stopped lead this one: that chunk is the codec's
    // body buffer, which gets the next chunk's bytes (http1 codec_impl.cc ConnectionImpl::dispatchBufferedBody
    // buffered_body_, http2 codec_impl.cc ConnectionImpl::StreamImpl::decodeData pending_recv_data_).
    const written = this.bufferedIsBody ? NO_BYTES : this.body;
    this.keepBuffered(this.buffered, false);
    this.body = concatBytes(written, chunk);
    return "none";
  }

  /** filter_manager.cc commonContinue → doData on a filter that stoppedAll(): the data buffered meanwhile is itself the
   *  data of the body callback, which the module reads (request_body_buffer_ = &data). */
  beginBufferedData(): void {
    this.providedIsBuffered = true;
    this.present = true;
    this.keepBuffered(this.buffered, true);
  }

  /** filter_manager.cc commonHandleAfterDataCallback after the body callback begun by beginData or beginBufferedData.
   *  Continue lets the buffer and the chunk go (commonHandleBufferData, commonContinue → doData; returned, as
   *  continueWithBody). A stop is StopSingleIteration: ...AndBuffer and ...AndWatermark move the chunk into the buffer
   *  (commonHandleBufferData; Buffer::move drains the chunk), ...AndWatermark as a streaming one; ...NoBuffer leaves
   *  the chunk where it is, which the codec then drains (http1 codec_impl.cc ConnectionImpl::dispatchBufferedBody,
   *  http2 codec_impl.cc ConnectionImpl::StreamImpl::decodeData). A chunk already in the buffer
   *  (while buffering, or the buffer itself) stays. */
  afterData(status: number, limit: number): { out: Uint8Array | null; crossing: LimitCrossing } {
    const late = this.lateChunk;
    this.lateChunk = null;
    const chunk = late ?? (this.bufferedIsBody ? NO_BYTES : this.body);
    const buffered = this.buffered;
    // context.cc Context::decodeData / encodeData: after the call buffering follows this result alone.
    this.buffering = status === DataStatus.StopIterationAndBuffer;
    if (status === DataStatus.Continue && !this.stopped && !this.providedIsBuffered) {
      // commonHandleAfterDataCallback on a filter that was not stopped: the chunk goes on as it is and the buffer
      // keeps what it holds. After continue_stream left buffering set, the chunk moved into the (drained) buffer
      // before the call, so an empty chunk goes on and its bytes stay behind in the buffer.
      this.keepBuffered(buffered, false);
      this.body = NO_BYTES;
      this.present = false;
      this.providedIsBuffered = false;
      return { out: chunk, crossing: "none" };
    }
    if (status === DataStatus.Continue) {
      this.keepBuffered(concatBytes(buffered, chunk), false);
      this.body = NO_BYTES;
      // context.cc Context::decodeData / encodeData: Continue drops request_body_buffer_ / response_body_buffer_.
      // (Higress's envoy-1.27 encodeData drops request_body_buffer_ there instead and keeps the response's chunk;
      // modelled as upstream.)
      this.present = false;
      // envoy-1.27: the late chunk moves into the buffer, not streaming since the last StopIterationAndBuffer
      // (decoder_filters_streaming_ false), before commonContinue lets it go: over the limit that is too large.
      const crossing = late ? this.crossLimit(this.buffered.length, limit, true) : "none";
      return { out: this.continueWithBody(), crossing };
    }
    this.iteration = "stop-single";
    const held = status === DataStatus.StopIterationNoBuffer ? buffered : concatBytes(buffered, chunk);
    const crossing = status === DataStatus.StopIterationNoBuffer ? "none" : this.crossLimit(held.length, limit, status === DataStatus.StopIterationAndBuffer);
    // After the call the module's body is the buffer while buffering, or when the chunk was the buffer itself;
    // otherwise the chunk, moved out or drained (context.cc Context::getBuffer).
    const asBody = this.buffering || this.providedIsBuffered;
    this.keepBuffered(held, asBody);
    if (!asBody) this.body = NO_BYTES;
    return { out: null, crossing };
  }

  /** filter_manager.cc handleDataIfStopAll: a data frame that came while stoppedAll() is buffered, not delivered;
   *  the buffer streams only under StopAllIterationAndWatermark. */
  bufferWhileStoppedAll(chunk: Uint8Array, endOfStream: boolean, limit: number): LimitCrossing {
    this.dataWhileStoppedAll = true;
    if (endOfStream) this.endWhileStoppedAll = true;
    this.keepBuffered(concatBytes(this.buffered, chunk), this.bufferedIsBody);
    return this.crossLimit(this.buffered.length, limit, this.iteration === "stop-all-buffer");
  }

  /** The buffer grew to `size`: its first crossing of the limit, and what that means for a buffer that is
   *  (notStreaming) or is not streaming. */
  crossLimit(size: number, limit: number, notStreaming: boolean): LimitCrossing {
    if (this.aboveLimit || size <= limit) return "none";
    this.aboveLimit = true;
    return notStreaming ? "too-large" : "watermark";
  }

  /** The filter continued (a Continue, or commonContinue on a filter that stopped one iteration): the headers
   *  and the buffered body go on, and the drained buffer's next crossing counts again (WatermarkBuffer below its low
   *  watermark). A module that reads the buffer finds it empty; one in the callback of a chunk not buffered yet
   *  (continue_stream from the callback) still reads the chunk, which goes on when the callback continues
   *  (commonContinue touches only the buffered data). Buffering stays as it was: while it is set the drained buffer is
   *  still the module's body (Context::getBuffer). Returns the body that goes on. */
  continueWithBody(): Uint8Array {
    const out = this.buffered;
    if (this.bufferedIsBody) this.body = NO_BYTES;
    this.keepBuffered(NO_BYTES, this.buffering);
    this.providedIsBuffered = false;
    this.headersHeld = false;
    this.iteration = "continue";
    this.aboveLimit = false;
    return out;
  }

  /** context.cc Context::continueStream, of either type, drops request_body_buffer_ at once (continueDecoding waits
   *  for the VM call to end): the module keeps a body only while buffering (the filter manager's). */
  dropChunkView(): void {
    if (!this.buffering) this.present = false;
  }

  /** A local reply replaces the response: the buffered upstream body is not sent (filter_manager.cc
   *  sendLocalReplyViaFilterChain). */
  dropBuffered(): void {
    this.keepBuffered(NO_BYTES, false);
    this.body = NO_BYTES;
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
