// One HTTP stream through the Wasm filter, with Envoy's semantics: the callback order (request headers,
// body per chunk, response callbacks, then on_log before on_done, then delete), header StopIteration
// mapping, cumulative body buffering with the 413 limit, local replies and the failure policy on a trap.
//
// A failed VM (proxy-wasm-cpp-host src/context.cc CHECK_FAIL, run before and after every HTTP callback):
// with the plugin's fail_open_ (Envoy sets it only from the deprecated PluginConfig.fail_open, plugin.h
// Plugin) the callback returns Continue; otherwise the stream is failed once (envoy context.cc
// Context::failStream: a local 503 "wasm_fail_stream") and the filter stops iterating. That holds for the
// stream whose callback trapped and for every other stream in flight on that VM at its next callback;
// a stream that gets no further callback (paused waiting for continue_stream) waits for Envoy's timeouts.
// on_log, on_done and on_delete are skipped on a failed VM (ContextBase::onLog/onDone/onDelete).
import { BufferType, DataStatus, HeadersStatus, LogLevel, Status, StreamType } from "./abi.ts";
import type { HeaderList } from "./header-map.ts";
import type { WasmVm } from "./vm.ts";
import { HeaderMap, StreamState, normalizeHeaders, type LocalReply, type StreamInfo } from "./stream.ts";
import type { PluginStreamCalls, StreamWorker } from "./stream-worker.ts";

const enc = new TextEncoder();

// What a callback's i32 result means to Envoy. cpp-host reads it as an unsigned word (so -1 is 0xffffffff)
// and context.cc convertVmCallResultToFilter{Headers,Data,Trailers}Status maps values past the last one it
// knows to the strongest stop; envoy context.cc convertFilterHeadersStatus has no case for
// ContinueAndEndStream (2), so its default branch makes it Continue.
const CONTINUE_AND_END_STREAM = 2;

/** stopIteration: whether StopIteration stays itself (allow_on_headers_stop_iteration_) rather than
 *  becoming StopAllIterationAndWatermark. */
function headersStatus(result: number, stopIteration: boolean): number {
  const r = result >>> 0;
  if (r > HeadersStatus.StopAllIterationAndWatermark) return HeadersStatus.StopAllIterationAndWatermark;
  if (r === HeadersStatus.StopIteration && !stopIteration) return HeadersStatus.StopAllIterationAndWatermark;
  return r === CONTINUE_AND_END_STREAM ? HeadersStatus.Continue : r;
}

function dataStatus(result: number): number {
  const r = result >>> 0;
  return r > DataStatus.StopIterationNoBuffer ? DataStatus.StopIterationNoBuffer : r;
}

function trailersStatus(result: number): number {
  const r = result >>> 0;
  return r > HeadersStatus.StopIteration ? HeadersStatus.StopIteration : r;
}

/** filter_manager.cc ActiveStreamDecoderFilter::requestDataTooLarge: Code::PayloadTooLarge, its text,
 *  no gRPC status, details ResponseCodeDetails RequestPayloadTooLarge. */
function payloadTooLarge(): LocalReply {
  return { status: 413, details: "request_payload_too_large", body: enc.encode("Payload Too Large"), headers: [], grpcStatus: -1 };
}

/**
 * Request side:
 * - "headers": nothing decoded yet;
 * - "paused": the filter holds the request (headers and any body) and gets each body chunk;
 * - "stalled": stock Envoy mapped a headers StopIteration to StopAllIteration: the body and trailers are
 *   buffered without reaching the filter until the plugin calls continue_stream, which delivers them to it;
 * - "forwarded": headers (and body released so far) may go upstream; a body callback that stops holds the rest of
 *   the body until a Continue or continue_stream (requestBodyHeld);
 * - "local-reply": the stream is answered locally (plugin reply, 413, or a failure policy's 503);
 * - "reset": the stream was reset.
 */
export type RequestState = "headers" | "paused" | "stalled" | "forwarded" | "local-reply" | "reset";

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export class FilterStream implements PluginStreamCalls {
  readonly state: StreamState;
  readonly contextId: number;
  requestState: RequestState = "headers";
  /** Names of the module callbacks invoked for this stream, in order. */
  readonly calls: string[] = [];
  /** True when the filter is out of the way: not added to a new stream (FAIL_OPEN on a failed VM), or
   *  continuing after a failure with the legacy fail_open. The stream goes on untouched. */
  bypass = false;
  /** The stream got Context::failStream's 503 (stream_failed_ / failure_local_reply_sent_). */
  private streamFailed = false;
  /** Called when the request becomes forwardable or is answered outside a decode call (continue_stream). */
  onChange: (() => void) | null = null;
  private released: Uint8Array[] = [];
  /** While stalled: the body Envoy buffers for the filter, whether any data frame came (bufferedData()),
   *  and whether the trailers came. */
  private pendingBody: Uint8Array = new Uint8Array(0);
  private pendingData = false;
  private pendingTrailers = false;
  /** The request's end was seen (an end-of-stream data frame or trailers: FilterManager complete()). */
  private requestComplete = false;
  /** The last body callback returned StopIterationAndBuffer (context.cc buffering_request_body_). */
  private bufferingBody = false;
  /** The last body callback stopped: the body is held (a forwarded request's too) until a Continue or continue_stream. */
  private requestBodyStopped = false;
  /** A 413 decided while a body callback runs, sent when it returns (FilterManager prepared_local_reply_). */
  private preparedReply: LocalReply | null = null;
  /** Stalled by StopAllIterationAndBuffer rather than ...AndWatermark: the buffer is not streaming. */
  private stalledBuffering = false;
  /** The buffered request body went over the limit (WatermarkBuffer above_high_watermark_called_): the
   *  filter manager reacts to the first crossing only, with a 413 unless the buffer is streaming. */
  private aboveLimit = false;
  /** The response headers have not gone past the filter (ActiveStreamFilterBase headers_continued_ false). */
  private responseHeld = false;
  /** The filter stopped the response's iteration: its headers or last body callback did not return Continue
   *  (IterationState StopSingleIteration); the response's end waits for continue_stream. */
  private responseStopped = false;
  /** Response body continue_stream let go (commonContinue → doData), not yet taken by the gateway. */
  private releasedResponse: Uint8Array = new Uint8Array(0);
  /** Stock Envoy turned the response headers' StopIteration into StopAllIteration: body frames are buffered without
   *  reaching the filter until continue_stream (...AndBuffer: the buffer is not streaming); whether any came, and
   *  the end of the stream among them. */
  private responseStalled = false;
  private responseStalledBuffering = false;
  private responseStalledData = false;
  private responseStalledEnd = false;
  /** The response body buffered for the filter went over the limit (the encoder's WatermarkBuffer crossed it). */
  private responseAboveLimit = false;
  /** That crossing was on a non-streaming buffer: ActiveStreamEncoderFilter::responseDataTooLarge's 500. */
  private responseTooLarge = false;
  private inCallback = 0;
  private finished = false;
  /** A local reply the plugin asked for during a callback, sent when the callback returns. */
  private deferredReply: LocalReply | null = null;
  // The VM this stream started on; a FAIL_RELOAD may give the worker a new one meanwhile.
  private readonly vm: WasmVm;
  /** envoy context.h in_vm_context_created_. */
  private createdInVm = false;

  constructor(
    private readonly worker: StreamWorker,
    info: StreamInfo,
  ) {
    const vm = (this.vm = worker.vm);
    const host = worker.host;
    this.contextId = vm.failed ? 0 : vm.allocateContextId();
    this.state = new StreamState(this.contextId, info, host.clock.nowMs(), worker.rootContextId);
    if (vm.failed) {
      // envoy source/extensions/common/wasm/wasm.cc PluginConfig::createContext on a failed VM: FAIL_OPEN
      // adds no filter; otherwise an empty Context, whose first callback fails the stream (503).
      if (host.failurePolicy === "FAIL_OPEN") this.bypass = true;
      return;
    }
    vm.streams.set(this.contextId, this.state);
    worker.streams.set(this.contextId, this);
  }

  /** envoy context.cc: the VM learns of the stream when it reaches the filter (Context::decodeHeaders calls onCreate)
   *  or, for a stream that never did, when it is logged (Context::log). cpp-host ContextBase::onCreate: no CHECK_FAIL;
   *  a failure shows at the next HTTP callback. */
  private createInVm(): void {
    if (this.createdInVm) return;
    this.createdInVm = true;
    this.invoke("proxy_on_context_create", [this.contextId, this.state.rootId], [], false);
  }

  get localReply(): LocalReply | null {
    return this.state.localReply;
  }
  /** The Higress override host, if the plugin set one. */
  get overrideHost(): string | null {
    return this.state.overrideHost;
  }
  /** Request headers as they would go upstream (after the plugin's changes). */
  get requestHeaders(): HeaderList {
    return this.state.requestHeaders.pairs;
  }

  /** The request headers went on but the filter holds the body (and its end) until it continues. */
  get requestBodyHeld(): boolean {
    return this.requestState === "forwarded" && this.requestBodyStopped;
  }

  /** The filter holds a request body buffer that went past the limit: Envoy stops reading the client until the filter
   *  lets it go (filter_manager.cc ActiveStreamDecoderFilter::requestDataTooLarge on a streaming buffer →
   *  onDecoderFilterAboveWriteBufferHighWatermark; a drained buffer's low watermark reads again). */
  get requestBufferAboveLimit(): boolean {
    return this.aboveLimit && (this.requestState === "paused" || this.requestState === "stalled" || this.requestBodyHeld);
  }

  /** Body bytes released for the upstream since the last call. */
  takeReleasedBody(): Uint8Array {
    const out = this.released.reduce(concat, new Uint8Array(0));
    this.released = [];
    return out;
  }

  decodeHeaders(headers: HeaderList, endOfStream: boolean): void {
    if (this.requestState !== "headers") return;
    this.state.requestHeaders.set(headers, true);
    if (this.bypass) {
      this.requestState = "forwarded";
      return;
    }
    this.createInVm();
    const r = this.invoke("proxy_on_request_headers", [this.contextId, headers.length, endOfStream ? 1 : 0]);
    if (r === null || this.settled()) return;
    const status = headersStatus(r, this.stopIterationAllowed());
    if (status === HeadersStatus.Continue) {
      // context.cc Context::decodeHeaders: after Continue the filter no longer holds the header map.
      this.state.requestHeadersHeld = false;
      this.requestState = "forwarded";
    } else if (status === HeadersStatus.StopIteration) {
      this.requestState = "paused";
    } else {
      // StopAllIteration: stock Envoy without allow_on_headers_stop_iteration turns StopIteration into it.
      this.requestState = "stalled";
      this.stalledBuffering = status === HeadersStatus.StopAllIterationAndBuffer;
    }
  }

  // Whether a headers StopIteration stays itself. Stock Envoy: with allow_on_headers_stop_iteration (cpp-host
  // context.cc convertVmCallResultToFilterHeadersStatus). Higress: for a module of its ABI 0.2.100 only (its cpp-host
  // converts it for the 0.1 and 0.2 request-headers callbacks, on_request_headers_abi_01_ / _abi_02_).
  private stopIterationAllowed(): boolean {
    const host = this.worker.host;
    return host.flavor === "higress" ? this.worker.vm.abiVersion === "0.2.100" : host.allowOnHeadersStopIteration;
  }

  /** The buffered request body grew to `size`: whether that is the limit's first crossing, where a
   *  non-streaming buffer gets the 413 (ActiveStreamDecoderFilter::requestDataTooLarge). */
  private crossesLimit(size: number): boolean {
    if (this.aboveLimit || size <= this.worker.host.bufferLimitBytes) return false;
    this.aboveLimit = true;
    return true;
  }

  decodeData(chunk: Uint8Array, endOfStream: boolean): void {
    this.state.requestBodySize += chunk.length;
    if (endOfStream) this.requestComplete = true;
    switch (this.requestState) {
      case "forwarded": {
        if (this.bypass) {
          this.released.push(chunk);
          return;
        }
        // The headers went on, each chunk still reaches the filter, and a body callback that stops holds the body from
        // then on (filter_manager.cc commonHandleAfterDataCallback: StopSingleIteration), as while paused.
        break;
      }
      case "stalled":
        // filter_manager.cc FilterManager::decodeData, handleDataIfStopAll: buffered, not delivered; the
        // buffer streams (no 413, reading just pauses) only under StopAllIterationAndWatermark.
        this.pendingBody = concat(this.pendingBody, chunk);
        this.pendingData = true;
        if (this.crossesLimit(this.pendingBody.length) && this.stalledBuffering) this.sendLocal(payloadTooLarge());
        return;
      case "paused":
        break;
      default:
        return;
    }
    this.state.requestBody = concat(this.state.requestBody, chunk);
    // context.cc Context::decodeData: while buffering, the chunk joins the buffered body (addDecodedData)
    // before the VM is called. Over the limit that is requestDataTooLarge's 413, which the filter manager
    // only prepares during a decoder callback (DownstreamFilterManager::sendLocalReply; runtime guard
    // http_filter_avoid_reentrant_local_reply, on by default): the VM still gets the chunk, and the 413
    // goes out when it returns, whatever it returned (FilterManager::decodeData, executeLocalReplyIfPrepared).
    // That is upstream Envoy's order; higress-group/envoy's envoy-1.27 Context::decodeData calls the VM first and
    // leaves buffering to the filter manager (a 413 only after StopIterationAndBuffer). Not modelled per flavor.
    if (this.bufferingBody && this.crossesLimit(this.state.requestBody.length)) this.preparedReply = payloadTooLarge();
    this.deliverBody(endOfStream);
  }

  /** A body callback while the filter holds the request; the body it holds is state.requestBody. */
  private deliverBody(endOfStream: boolean): void {
    const r = this.invoke("proxy_on_request_body", [this.contextId, this.state.requestBody.length, endOfStream ? 1 : 0], [BufferType.HttpRequestBody]);
    this.bufferingBody = false;
    const prepared = this.preparedReply;
    if (prepared) {
      this.preparedReply = null;
      if (this.requestState !== "reset" && !this.state.localReply) this.sendLocal(prepared);
      return;
    }
    if (r === null || this.settled()) return;
    const status = dataStatus(r);
    if (status === DataStatus.Continue) {
      this.forward();
      return;
    }
    this.requestBodyStopped = true;
    if (status === DataStatus.StopIterationAndBuffer) {
      this.bufferingBody = true;
      // commonHandleAfterDataCallback buffers the chunk (not streaming): over the limit, a 413 now.
      if (this.crossesLimit(this.state.requestBody.length)) this.sendLocal(payloadTooLarge());
    } else if (status === DataStatus.StopIterationAndWatermark) {
      // A streaming buffer: crossing the limit only pauses reading (no 413).
      this.crossesLimit(this.state.requestBody.length);
    } else {
      this.state.requestBody = new Uint8Array(0);
    }
  }

  decodeTrailers(trailers: HeaderList): void {
    this.state.requestTrailers = new HeaderMap(normalizeHeaders(trailers));
    this.requestComplete = true;
    if (this.bypass || this.requestState === "local-reply" || this.requestState === "reset") return;
    // filter_manager.cc FilterManager::decodeTrailers returns at a filter that stoppedAll().
    if (this.requestState === "stalled") {
      this.pendingTrailers = true;
      return;
    }
    this.deliverTrailers();
  }

  private deliverTrailers(): void {
    // The buffered body stays readable while the request is paused (spec "Buffers").
    const readable = this.requestState === "paused" || this.requestBodyHeld ? [BufferType.HttpRequestBody] : [];
    const count = this.state.requestTrailers?.pairs.length ?? 0;
    const r = this.invoke("proxy_on_request_trailers", [this.contextId, count], readable);
    if (r !== null && trailersStatus(r) === HeadersStatus.Continue && (this.requestState === "paused" || this.requestBodyHeld)) this.forward();
  }

  encodeHeaders(headers: HeaderList, endOfStream: boolean): void {
    // Serialized when a module first reads its pairs, not on arrival (the picker reads only :status here).
    this.state.responseHeaders = new HeaderMap(normalizeHeaders(headers));
    // context.cc Context::encodeHeaders / encodeData / encodeTrailers: Continue, without the VM, for a stream the VM
    // does not know (an earlier filter answered it before it reached this one).
    if (this.bypass || !this.createdInVm) return;
    this.state.responseHeadersHeld = true;
    const r = this.invoke("proxy_on_response_headers", [this.contextId, headers.length, endOfStream ? 1 : 0]);
    const status = r === null ? HeadersStatus.Continue : headersStatus(r, this.stopIterationAllowed());
    this.responseHeld = status !== HeadersStatus.Continue;
    this.responseStopped = this.responseHeld;
    this.responseStalled = status !== HeadersStatus.Continue && status !== HeadersStatus.StopIteration;
    this.responseStalledBuffering = status === HeadersStatus.StopAllIterationAndBuffer;
    // context.cc Context::encodeHeaders: after Continue the filter no longer holds the header map.
    if (!this.responseHeld) this.state.responseHeadersHeld = false;
  }

  /** Whether the response headers may be sent downstream now. */
  get responseHeadersReleased(): boolean {
    return !this.responseHeld;
  }

  /** Whether the filter holds the response (headers, body or its end) until it calls continue_stream. */
  get responseStoppedByFilter(): boolean {
    return this.responseStopped;
  }

  /** Response body bytes continue_stream let go since the last call. */
  takeReleasedResponseBody(): Uint8Array {
    const out = this.releasedResponse;
    this.releasedResponse = new Uint8Array(0);
    return out;
  }

  /** Runs the response body callback and returns the bytes to send downstream now. */
  encodeData(chunk: Uint8Array, endOfStream: boolean): Uint8Array {
    this.state.responseBodySize += chunk.length;
    if (this.bypass || !this.createdInVm) return chunk;
    this.state.responseBody = concat(this.state.responseBody, chunk);
    if (this.responseStalled) {
      // filter_manager.cc FilterManager::encodeData, handleDataIfStopAll: buffered for the filter, not delivered; the
      // buffer streams only under StopAllIterationAndWatermark.
      this.responseStalledData = true;
      if (endOfStream) this.responseStalledEnd = true;
      this.checkResponseLimit(this.responseStalledBuffering);
      return new Uint8Array(0);
    }
    return this.deliverResponseBody(endOfStream);
  }

  /** A response body callback with the body buffered so far (state.responseBody); returns the bytes let go. */
  private deliverResponseBody(endOfStream: boolean): Uint8Array {
    const r = this.invoke("proxy_on_response_body", [this.contextId, this.state.responseBody.length, endOfStream ? 1 : 0], [BufferType.HttpResponseBody]);
    const status = r === null ? DataStatus.Continue : dataStatus(r);
    if (status === DataStatus.Continue) {
      const out = this.state.responseBody;
      this.state.responseBody = new Uint8Array(0);
      this.responseHeld = false;
      this.responseStopped = false;
      this.responseAboveLimit = false;
      return out;
    }
    this.responseStopped = true;
    if (status === DataStatus.StopIterationNoBuffer) this.state.responseBody = new Uint8Array(0);
    // commonHandleAfterDataCallback buffers the chunk; a StopIterationAndWatermark buffer streams.
    else this.checkResponseLimit(status === DataStatus.StopIterationAndBuffer);
    return new Uint8Array(0);
  }

  /** The encoder's WatermarkBuffer: past the limit (its first crossing), a buffer that is not streaming is too large
   *  (filter_manager.cc ActiveStreamEncoderFilter::responseDataTooLarge). */
  private checkResponseLimit(notStreaming: boolean): void {
    if (this.responseAboveLimit || this.state.responseBody.length <= this.worker.host.bufferLimitBytes) return;
    this.responseAboveLimit = true;
    this.responseTooLarge = notStreaming;
  }

  /** The filter holds a response body buffer that went past the limit: Envoy stops reading the upstream until the
   *  filter lets it go (ActiveStreamEncoderFilter::responseDataTooLarge on a streaming buffer →
   *  onEncoderFilterAboveWriteBufferHighWatermark). */
  get responseBufferAboveLimit(): boolean {
    return this.responseAboveLimit && this.responseStopped;
  }

  /** The filter buffered more response body than the buffer limit allows: Envoy answers 500 (or resets). */
  get responsePayloadTooLarge(): boolean {
    return this.responseTooLarge;
  }

  /** The stream is over (response sent, or reset): on_log, then on_done, then on_delete, as Envoy does.
   *  on_done's return value is ignored for a stream (context.cc Context::onDestroy calls onDone() then
   *  onDelete()); only a root context's false defers its deletion, until proxy_done (cpp-host wasm.cc
   *  WasmBase::startShutdown keeps it in pending_done_; WasmBase::done releases it). */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.contextId === 0) return;
    // conn_manager_impl.cc doDeferredStreamDestroy: HTTP/3 streams are logged later, once the response is acknowledged
    // (deferHeadersAndTrailers, QuicStatsGatherer::maybeDoDeferredLog), after destroyFilters; the access-log handler
    // keeps the Context alive for that. Others, and a stream the client reset (sawDownstreamReset), are logged before
    // their filters go.
    if (this.state.info.protocol === "HTTP/3" && this.requestState !== "reset") {
      this.destroy();
      this.log();
    } else {
      this.log();
      this.destroy();
    }
    this.forget();
  }

  /** context.cc Context::log: creates the stream in the VM if it never reached the filter, then on_log in the
   *  access-log phase (reads see the access log's request and response headers). */
  private log(): void {
    if (this.vm.failed) return;
    this.createInVm();
    this.state.accessLogPhase = true;
    this.invoke("proxy_on_log", [this.contextId], [], false);
    this.state.accessLogPhase = false;
  }

  /** context.cc Context::onDestroy: on_done then on_delete (cpp-host ContextBase::onDone, onDelete), only for a stream
   *  the VM knows. */
  private destroy(): void {
    if (!this.createdInVm || this.vm.failed) return;
    this.invoke("proxy_on_done", [this.contextId], [], false);
    this.invoke("proxy_on_delete", [this.contextId], [], false);
  }

  /** A downstream or upstream reset: Envoy still writes the access log, so the teardown is the same. */
  reset(): void {
    if (this.requestState !== "local-reply") this.requestState = "reset";
    this.finish();
  }

  // ---- called by host functions through the worker's hooks ----

  /** context.cc Context::sendLocalResponse: always Ok; the reply is sent after the current VM call
   *  returns (addAfterVmCallAction), so this filter's own response callbacks never run re-entrantly; a
   *  second reply while one is pending or sent changes nothing. */
  setLocalReply(reply: LocalReply): number {
    // A prepared 413 stands (DownstreamFilterManager::prepareLocalReplyViaFilterChain keeps the first).
    if (this.state.localReply || this.deferredReply || this.preparedReply || this.requestState === "reset") return Status.Ok;
    // StringUtil::replaceAllEmptySpace on the details.
    const details = reply.details.replace(/\s/g, "_");
    this.deferredReply = { ...reply, details };
    // Asked from another context's callback (set_effective_context): sent once that callback returns.
    if (this.inCallback === 0) this.vm.addAfterVmCallAction(() => this.sendDeferredReply());
    return Status.Ok;
  }

  private sendDeferredReply(): void {
    const reply = this.deferredReply;
    this.deferredReply = null;
    if (reply && this.requestState !== "reset" && !this.state.localReply) this.sendLocal(reply);
  }

  continueFromPlugin(type: number): number {
    // context.cc Context::continueStream: for either type it drops the filter's request header map, never
    // response_headers_. continueDecoding runs after the VM call (addAfterVmCallAction); of the states here
    // only a stalled request's calls this filter again, so only that one has to wait for it.
    this.state.requestHeadersHeld = false;
    if (type === StreamType.HttpRequest && this.requestState === "stalled") {
      this.vm.addAfterVmCallAction(() => this.resumeStalled());
    } else if (type === StreamType.HttpRequest && (this.requestState === "paused" || this.requestBodyHeld)) {
      this.forward();
      this.notify();
    } else if (type === StreamType.HttpResponse) {
      this.vm.addAfterVmCallAction(() => this.resumeResponse());
    }
    return Status.Ok;
  }

  closeFromPlugin(_type: number): number {
    this.state.closedByPlugin = true;
    this.requestState = "reset";
    this.notify();
    return Status.Ok;
  }

  /** cpp-host wasm.cc WasmBase::done: only a root context being shut down is pending; a stream gets NotFound. */
  doneFromPlugin(): number {
    return Status.NotFound;
  }

  // ---- internals ----

  /** filter_manager.cc ActiveStreamFilterBase::commonContinue on a filter that stoppedAll(): the headers go
   *  on, and iterate_from_current_filter_ makes the body buffered meanwhile (doData, end of stream unless
   *  trailers follow), then the trailers (doTrailers), reach this filter itself. */
  private resumeStalled(): void {
    if (this.requestState !== "stalled") return;
    this.requestState = "forwarded";
    if (this.pendingData) {
      this.requestState = "paused";
      this.state.requestBody = this.pendingBody;
      this.pendingBody = new Uint8Array(0);
      this.pendingData = false;
      this.deliverBody(this.requestComplete && !this.pendingTrailers);
    }
    if (this.pendingTrailers && !this.settled()) {
      this.pendingTrailers = false;
      this.deliverTrailers();
    }
    this.notify();
  }

  /** filter_manager.cc ActiveStreamFilterBase::commonContinue on the encoder side (continueEncoding): held headers
   *  go on (doHeaders), then the body buffered so far (doData). */
  private resumeResponse(): void {
    if (!this.responseStopped || this.requestState === "reset") return;
    if (this.responseStalled) {
      // stoppedAll(): iterate_from_current_filter_, so the body buffered meanwhile reaches this filter (doData).
      this.responseStalled = false;
      this.responseHeld = false;
      this.responseStopped = false;
      if (this.responseStalledData) {
        this.responseStalledData = false;
        this.releasedResponse = concat(this.releasedResponse, this.deliverResponseBody(this.responseStalledEnd));
      }
      this.notify();
      return;
    }
    this.responseHeld = false;
    this.responseStopped = false;
    this.responseAboveLimit = false;
    this.releasedResponse = concat(this.releasedResponse, this.state.responseBody);
    this.state.responseBody = new Uint8Array(0);
    this.notify();
  }

  private forward(): void {
    this.requestState = "forwarded";
    this.requestBodyStopped = false;
    // The buffer drains: its next crossing counts again (WatermarkBuffer below the low watermark).
    this.aboveLimit = false;
    this.released.push(this.state.requestBody);
    this.state.requestBody = new Uint8Array(0);
  }

  private settled(): boolean {
    return this.requestState === "local-reply" || this.requestState === "reset" || this.bypass;
  }

  private sendLocal(reply: LocalReply): void {
    const headers = normalizeHeaders(reply.headers).filter(([k]) => k !== ":status");
    this.state.localReply = { ...reply, headers };
    this.requestState = "local-reply";
    this.released = [];
    // Envoy runs the local reply through the encoder filters, this one included.
    const responseHeaders: HeaderList = [[":status", String(reply.status)], ...headers];
    if (reply.body.length) responseHeaders.push(["content-length", String(reply.body.length)]);
    // The body the filter lets go is the reply's (takeReleasedResponseBody); it may hold the reply until continue_stream.
    this.releasedResponse = new Uint8Array(0);
    if (!this.vm.failed && this.contextId !== 0 && !this.bypass) {
      this.encodeHeaders(responseHeaders, reply.body.length === 0);
      if (reply.body.length) {
        // Read after the body callback: a continue_stream it called may have let the body go meanwhile.
        const sent = this.encodeData(reply.body, true);
        this.releasedResponse = concat(this.releasedResponse, sent);
      }
    } else {
      this.state.responseHeaders = new HeaderMap(responseHeaders);
      this.releasedResponse = reply.body;
    }
    this.notify();
  }

  private notify(): void {
    if (this.inCallback === 0) this.onChange?.();
  }

  /** Calls a stream callback. An HTTP callback (httpCallback) on a failed VM, or one that traps, goes
   *  through CHECK_FAIL and returns null. */
  private invoke(name: string, args: number[], readable: number[] = [], httpCallback = true): number | null {
    if (this.contextId === 0 || this.vm.failed) {
      if (httpCallback) this.checkFail(name);
      return null;
    }
    this.calls.push(name);
    this.inCallback++;
    const r = this.worker.safeCallOn(this.vm, name, args, this.contextId, readable);
    this.inCallback--;
    // cpp-host DeferAfterCallActions: actions the callback queued run when it returns.
    if (this.inCallback === 0) this.sendDeferredReply();
    if (!r.ok) {
      if (httpCallback) this.checkFail(name);
      return null;
    }
    return r.value;
  }

  /** cpp-host context.cc CHECK_FAIL for a callback of this stream on a failed VM. */
  private checkFail(where: string): void {
    const host = this.worker.host;
    if (this.bypass || this.finished) return;
    if (host.legacyFailOpen) {
      // plugin_->fail_open_: every callback returns Continue from now on.
      this.bypass = true;
      if (this.requestState === "paused" || this.requestBodyHeld) this.forward();
      else if (this.requestState === "headers") this.requestState = "forwarded";
      this.responseHeld = false;
      this.responseStopped = false;
      host.log(LogLevel.Warn, `fail_open: continuing the stream after a VM failure in ${where}`, this.vm);
      return;
    }
    if (this.streamFailed) return;
    this.streamFailed = true;
    // Context::failStream(Request): one local 503, unless the stream already has a reply (or a prepared one).
    if (this.requestState === "local-reply" || this.state.localReply || this.preparedReply) return;
    this.sendLocal({ status: 503, details: "wasm_fail_stream", body: new Uint8Array(0), headers: [], grpcStatus: 14 });
  }

  /** The host's own record of the stream goes (Envoy's Context object goes with its last holder). */
  private forget(): void {
    const vm = this.vm;
    vm.streams.delete(this.contextId);
    this.worker.streams.delete(this.contextId);
    this.worker.streamDeleted(vm, this.state.rootId);
  }
}

