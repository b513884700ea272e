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
import { DataStatus, HeadersStatus, LogLevel, Status, StreamType } from "./abi.ts";
import type { HeaderList } from "./header-map.ts";
import type { WasmVm } from "./vm.ts";
import { HeaderMap, StreamState, normalizeHeaders, type LocalReply, type StreamInfo } from "./stream.ts";
import type { PluginStreamCalls, StreamWorker } from "./stream-worker.ts";
import { DirectionState, type LimitCrossing } from "./direction-state.ts";
import { concatBytes } from "./concat-bytes.ts";
import { NO_BYTES } from "./no-bytes.ts";
import { RESPONSE_HEADERS_INLINE, RESPONSE_TRAILERS_INLINE } from "./inline-headers.ts";
import { localReplyHeaders } from "./local-reply-headers.ts";
import { HTTP1_CODEC_ERROR, http1RequestHeadersError, type Http1CodecRefusal } from "./http1-codec-error.ts";
import { RESPONSE_FLAG_BITS } from "./response-flags.ts";

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

/** Where the request is; see FilterStream.requestState. */
export type RequestState = "headers" | "paused" | "stalled" | "forwarded" | "local-reply" | "reset";

export class FilterStream implements PluginStreamCalls {
  readonly state: StreamState;
  readonly contextId: number;
  /** Names of the module callbacks invoked for this stream, in order. */
  readonly calls: string[] = [];
  /** True when the filter is out of the way: not added to a new stream (FAIL_OPEN on a failed VM), or
   *  continuing after a failure with the legacy fail_open. The stream goes on untouched. */
  bypass = false;
  /** The stream got Context::failStream's 503 (stream_failed_ / failure_local_reply_sent_). */
  private streamFailed = false;
  /** Called when the request becomes forwardable or is answered outside a decode call (continue_stream). */
  onChange: (() => void) | null = null;
  /** The filter's state on the request side (ActiveStreamDecoderFilter) and on the response side
   *  (ActiveStreamEncoderFilter). */
  private readonly request: DirectionState;
  private readonly response: DirectionState;
  /** How the stream ended early, if it did: answered locally (plugin reply, 413, a failure policy's 503) or reset. */
  private fate: "local-reply" | "reset" | null = null;
  /** While the request is stalled: whether the trailers came. */
  private pendingTrailers = false;
  /** While the response is stopped for all frames: whether its trailers came (held from the filter until it goes on). */
  private pendingResponseTrailers = false;
  /** The response trailers came from upstream and have not gone past the filter yet (it stopped at them, or it
   *  stopped for all frames before they came). */
  private responseTrailersWaiting = false;
  /** A 413 decided while a body callback runs, sent when it returns (FilterManager prepared_local_reply_). */
  private preparedReply: LocalReply | null = null;
  /** The response buffer's last crossing of the limit was on a non-streaming buffer:
   *  ActiveStreamEncoderFilter::responseDataTooLarge's 500. */
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
    this.request = new DirectionState("request", this.state, host.envoy127BodyOrder);
    this.response = new DirectionState("response", this.state, host.envoy127BodyOrder);
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
    this.invokeLifecycle("proxy_on_context_create", this.state.rootId);
  }

  get localReply(): LocalReply | null {
    return this.state.localReply;
  }
  /** The Higress override host, if the plugin set one. */
  get overrideHost(): string | null {
    return this.state.overrideHost;
  }
  /** Request trailers as they would go upstream: the client's, or those the plugin added in the last body callback
   *  (filter_manager.cc FilterManager::addDecodedTrailers; the body then goes on without end_stream and they follow,
   *  from the next filter on). This gateway sends no request trailers upstream. */
  get requestTrailers(): HeaderList | null {
    return this.state.requestTrailers?.pairs ?? null;
  }
  /** Request headers as they would go upstream (after the plugin's changes). */
  get requestHeaders(): HeaderList {
    return this.state.requestHeaders.pairs;
  }

  /** Request side:
   * - "headers": nothing decoded yet;
   * - "paused": the filter holds the request (headers and any body) and gets each body chunk;
   * - "stalled": stock Envoy mapped a headers StopIteration to StopAllIteration: the body and trailers are
   *   buffered without reaching the filter until the plugin calls continue_stream, which delivers them to it;
   * - "forwarded": headers (and body released so far) may go upstream; a body callback that stops holds the rest of
   *   the body until a Continue or continue_stream (requestBodyHeld);
   * - "local-reply": the stream is answered locally (plugin reply, 413, or a failure policy's 503);
   * - "reset": the stream was reset. */
  get requestState(): RequestState {
    if (this.fate !== null) return this.fate;
    if (!this.request.headersCalled) return "headers";
    if (!this.request.headersHeld) return "forwarded";
    return this.request.stoppedAll ? "stalled" : "paused";
  }

  /** The request headers went on but the filter holds the body (and its end) until it continues. */
  get requestBodyHeld(): boolean {
    return this.requestState === "forwarded" && this.request.stopped;
  }

  /** The filter holds the request body it reads: paused, or its body held after the headers went on. */
  private get requestBodyWithFilter(): boolean {
    return this.requestState === "paused" || this.requestBodyHeld;
  }

  /** The filter holds a request body buffer that went past the limit: Envoy stops reading the client until the filter
   *  lets it go (filter_manager.cc ActiveStreamDecoderFilter::requestDataTooLarge on a streaming buffer →
   *  onDecoderFilterAboveWriteBufferHighWatermark; a drained buffer's low watermark reads again). */
  get requestBufferAboveLimit(): boolean {
    return this.request.aboveLimit && (this.requestState === "stalled" || this.requestBodyWithFilter);
  }

  /** Body bytes released for the upstream since the last call. */
  takeReleasedBody(): Uint8Array {
    return this.request.takeReleased();
  }

  decodeHeaders(headers: HeaderList, endOfStream: boolean): void {
    if (this.requestState !== "headers") return;
    // Headers Envoy's HTTP/1 codec refuses never reach the filter: the codec answers them (http1-codec-error.ts).
    if (!this.state.info.protocol?.startsWith("HTTP/2") && !this.state.info.protocol?.startsWith("HTTP/3")) {
      const refusal = http1RequestHeadersError(headers);
      if (refusal !== null) {
        this.rejectByCodec(refusal);
        return;
      }
    }
    this.state.requestHeaders.set(headers, true);
    if (this.bypass) {
      this.request.afterHeaders(HeadersStatus.Continue);
      return;
    }
    this.createInVm();
    // context.cc Context::decodeHeaders: the map's size, after the codec joined repeated inline headers.
    const count = this.state.requestHeaders.pairs.length;
    const r = this.invoke("proxy_on_request_headers", count, endOfStream ? 1 : 0);
    if (r === null || this.settled()) return;
    // StopAllIteration ("stalled"): stock Envoy without allow_on_headers_stop_iteration turns StopIteration into it.
    const status = headersStatus(r, this.stopIterationAllowed());
    // context.cc Context::decodeHeaders: after Continue the filter no longer holds the header map.
    if (status === HeadersStatus.Continue) this.state.requestHeadersHeld = false;
    this.request.afterHeaders(status);
  }

  // Whether a headers StopIteration stays itself. Stock Envoy: with allow_on_headers_stop_iteration (cpp-host
  // context.cc convertVmCallResultToFilterHeadersStatus). Higress: for a module of its ABI 0.2.100 only (its cpp-host
  // converts it for the 0.1 and 0.2 request-headers callbacks, on_request_headers_abi_01_ / _abi_02_).
  private stopIterationAllowed(): boolean {
    const host = this.worker.host;
    return host.flavor === "higress" ? this.worker.vm.abiVersion === "0.2.100" : host.allowOnHeadersStopIteration;
  }

  decodeData(chunk: Uint8Array, endOfStream: boolean): void {
    this.state.requestBodySize += chunk.length;
    const limit = this.worker.host.bufferLimitBytes;
    switch (this.requestState) {
      case "forwarded": {
        if (this.bypass) {
          this.request.release(chunk);
          return;
        }
        // The headers went on, each chunk still reaches the filter, and a body callback that stops holds the body from
        // then on (filter_manager.cc commonHandleAfterDataCallback: StopSingleIteration), as while paused.
        break;
      }
      case "stalled":
        // filter_manager.cc FilterManager::decodeData, handleDataIfStopAll: buffered, not delivered; over the limit
        // a non-streaming buffer gets requestDataTooLarge's 413, a streaming one just pauses reading.
        if (this.request.bufferWhileStoppedAll(chunk, endOfStream, limit) === "too-large") this.sendLocal(payloadTooLarge());
        return;
      case "paused":
        break;
      default:
        return;
    }
    // context.cc Context::decodeData: while buffering, the chunk joins the buffered body (addDecodedData)
    // before the VM is called. Over the limit that is requestDataTooLarge's 413, which the filter manager
    // only prepares during a decoder callback (DownstreamFilterManager::sendLocalReply; runtime guard
    // http_filter_avoid_reentrant_local_reply, on by default): the VM still gets the chunk, and the 413
    // goes out when it returns, whatever it returned (FilterManager::decodeData, executeLocalReplyIfPrepared).
    // That is upstream Envoy's order; with envoy127BodyOrder, higress-group/envoy's envoy-1.27 Context::decodeData
    // calls the VM first and leaves buffering to the filter manager: while buffering the module reads the body without
    // this chunk (getBuffer → modifyDecodingBuffer), and the 413 comes when the chunk joins the buffer after the call
    // (commonHandleAfterDataCallback → commonHandleBufferData → requestDataTooLarge; DirectionState.afterData).
    if (this.request.beginData(chunk, limit) === "too-large") this.preparedReply = payloadTooLarge();
    this.deliverBody(endOfStream);
  }

  /** A body callback begun by DirectionState.beginData or beginBufferedData; the module reads state.requestBody. */
  private deliverBody(endOfStream: boolean): void {
    // context.cc Context::decodeData: getBuffer(HttpRequestBody) before the call points the context's buffer_ at it.
    this.state.callData = "request-body";
    this.state.lastBodyCallback = endOfStream ? "request" : null;
    const r = this.invoke("proxy_on_request_body", this.state.requestBody.length, endOfStream ? 1 : 0);
    this.state.lastBodyCallback = null;
    const prepared = this.preparedReply;
    if (prepared) {
      this.preparedReply = null;
      if (this.fate !== "reset" && !this.state.localReply) this.sendLocal(prepared);
      return;
    }
    // cpp-host context.cc ContextBase::onRequestBody CHECK_FAIL_HTTP: a failed VM under fail_open_ (bypass) returns
    // Continue, which lets this chunk go; otherwise the stream got its 503.
    if (this.fate !== null || (r === null && !this.bypass)) return;
    const status = r === null ? DataStatus.Continue : dataStatus(r);
    const { out, crossing } = this.request.afterData(status, this.worker.host.bufferLimitBytes);
    if (out) this.request.release(out);
    // A non-streaming buffer (StopIterationAndBuffer) over the limit: the 413 now; a streaming one only pauses reading.
    if (crossing === "too-large") this.sendLocal(payloadTooLarge());
  }

  decodeTrailers(trailers: HeaderList): void {
    this.state.requestTrailers = new HeaderMap(normalizeHeaders(trailers));
    if (this.bypass || this.fate !== null) return;
    // filter_manager.cc FilterManager::decodeTrailers returns at a filter that stoppedAll().
    if (this.requestState === "stalled") {
      this.pendingTrailers = true;
      return;
    }
    this.deliverTrailers();
  }

  private deliverTrailers(): void {
    const count = this.state.requestTrailers?.pairs.length ?? 0;
    // context.cc Context::decodeTrailers: request_trailers_ from the call until a Continue.
    this.state.requestTrailersHeld = true;
    const r = this.invoke("proxy_on_request_trailers", count);
    if (r === null || trailersStatus(r) === HeadersStatus.Continue) this.state.requestTrailersHeld = false;
    if (r !== null && trailersStatus(r) === HeadersStatus.Continue && this.requestBodyWithFilter) this.forward();
  }

  encodeHeaders(headers: HeaderList, endOfStream: boolean): void {
    // Serialized when a module first reads its pairs, not on arrival (the picker reads only :status here).
    this.state.responseHeaders = new HeaderMap(normalizeHeaders(headers, RESPONSE_HEADERS_INLINE), RESPONSE_HEADERS_INLINE);
    // context.cc Context::encodeHeaders / encodeData / encodeTrailers: Continue, without the VM, for a stream the VM
    // does not know (an earlier filter answered it before it reached this one).
    if (this.bypass || !this.createdInVm) return;
    this.state.responseHeadersHeld = true;
    const r = this.invoke("proxy_on_response_headers", this.state.responseHeaders.pairs.length, endOfStream ? 1 : 0);
    const status = r === null ? HeadersStatus.Continue : headersStatus(r, this.stopIterationAllowed());
    this.response.afterHeaders(status);
    // context.cc Context::encodeHeaders: after Continue the filter no longer holds the header map.
    if (!this.response.headersHeld) this.state.responseHeadersHeld = false;
  }

  /** filter_manager.cc DownstreamFilterManager::sendDirectLocalReply: a local reply once this filter saw the response
   *  headers but before any went downstream (non_100_response_headers_encoded_ false) goes straight to the codec, past
   *  the encoder filters; its headers replace the response's (setResponseHeaders, for the access log: on_log's map and
   *  `response.code`), and what the filter held never goes out. */
  replaceWithDirectLocalReply(headers: HeaderList): void {
    this.state.responseHeaders = new HeaderMap(normalizeHeaders(headers, RESPONSE_HEADERS_INLINE), RESPONSE_HEADERS_INLINE);
    this.state.responseHeadersHeld = false;
    this.response.dropReleased();
  }

  /** Whether the response headers may be sent downstream now. */
  get responseHeadersReleased(): boolean {
    return !this.response.headersHeld;
  }

  /** Whether the filter holds the response (headers, body or its end) until it calls continue_stream. */
  get responseStoppedByFilter(): boolean {
    return this.response.stopped;
  }

  /** Response body bytes continue_stream let go since the last call. */
  takeReleasedResponseBody(): Uint8Array {
    return this.response.takeReleased();
  }

  /** Runs the response body callback and returns the bytes to send downstream now. */
  encodeData(chunk: Uint8Array, endOfStream: boolean): Uint8Array {
    this.state.responseBodySize += chunk.length;
    if (this.bypass || !this.createdInVm) return chunk;
    const limit = this.worker.host.bufferLimitBytes;
    if (this.response.stoppedAll) {
      // filter_manager.cc FilterManager::encodeData, handleDataIfStopAll: buffered for the filter, not delivered; the
      // buffer streams only under StopAllIterationAndWatermark.
      this.responseCrossedLimit(this.response.bufferWhileStoppedAll(chunk, endOfStream, limit));
      return NO_BYTES;
    }
    // context.cc Context::encodeData: while buffering, the chunk joins the buffer (addEncodedData, not streaming)
    // before the VM is called; past the limit that is responseDataTooLarge, whatever the module then returns.
    this.responseCrossedLimit(this.response.beginData(chunk, limit));
    return this.deliverResponseBody(endOfStream);
  }

  /** A response body callback begun by DirectionState.beginData or beginBufferedData; the module reads
   *  state.responseBody. Returns the bytes let go. */
  private deliverResponseBody(endOfStream: boolean): Uint8Array {
    const fateBefore = this.fate;
    // context.cc Context::encodeData: getBuffer(HttpResponseBody) before the call, as decodeData.
    this.state.callData = "response-body";
    this.state.lastBodyCallback = endOfStream ? "response" : null;
    const r = this.invoke("proxy_on_response_body", this.state.responseBody.length, endOfStream ? 1 : 0);
    this.state.lastBodyCallback = null;
    const status = r === null ? DataStatus.Continue : dataStatus(r);
    const { out, crossing } = this.response.afterData(status, this.worker.host.bufferLimitBytes);
    this.responseCrossedLimit(crossing);
    // A local reply from the callback replaced the response; its body is what sendLocal released.
    if (this.fate !== fateBefore) return out ?? NO_BYTES;
    // continue_stream from the callback sent the held body when the VM call returned (continueEncoding →
    // commonContinue → doData), ahead of the chunk this Continue lets go.
    const releasedInCall = this.response.takeReleased();
    return out ? concatBytes(releasedInCall, out) : releasedInCall;
  }

  /** The upstream response ends with trailers (router.cc Filter::onUpstreamTrailers → encodeTrailers): the body's last
   *  callback had end_of_stream false, and the trailers end the stream. Returns the body bytes let go with them (a
   *  filter that held the body and continues at its trailers); the trailers themselves follow once
   *  responseTrailersReleased. */
  encodeTrailers(trailers: HeaderList): Uint8Array {
    this.state.responseTrailers = new HeaderMap(normalizeHeaders(trailers, RESPONSE_TRAILERS_INLINE), RESPONSE_TRAILERS_INLINE);
    // context.cc Context::encodeTrailers: Continue, without the VM, for a stream the VM does not know or that failed
    // (failure_local_reply_sent_).
    if (this.bypass || !this.createdInVm || this.fate !== null || this.streamFailed) return NO_BYTES;
    this.responseTrailersWaiting = true;
    // filter_manager.cc FilterManager::encodeTrailers returns at a filter that stoppedAll(): commonContinue brings them.
    if (this.response.stoppedAll) {
      this.pendingResponseTrailers = true;
      return NO_BYTES;
    }
    this.deliverResponseTrailers();
    return this.response.takeReleased();
  }

  /** The response trailers have gone past the filter (or never reached it): the gateway may send them and end. */
  get responseTrailersReleased(): boolean {
    return this.state.responseTrailers !== null && !this.responseTrailersWaiting;
  }

  /** context.cc Context::encodeTrailers, then filter_manager.cc commonHandleAfterTrailersCallback: Continue on a filter
   *  that had stopped (its body held) is commonContinue, which sends the held headers and body, then the trailers;
   *  StopIteration holds them (StopSingleIteration) until continue_stream. The body let go is released. */
  private deliverResponseTrailers(): void {
    const fateBefore = this.fate;
    const count = this.state.responseTrailers?.pairs.length ?? 0;
    this.state.responseTrailersHeld = true;
    const r = this.invoke("proxy_on_response_trailers", count);
    // A local reply from the callback replaced the response (its body is what sendLocal released).
    if (this.fate !== fateBefore) return;
    // cpp-host CHECK_FAIL_HTTP under fail_open_ (bypass) continues; without it the stream got its 503 above.
    const status = r === null ? HeadersStatus.Continue : trailersStatus(r);
    if (status !== HeadersStatus.Continue) {
      if (!this.response.stopped) this.response.iteration = "stop-single";
      return;
    }
    this.state.responseTrailersHeld = false;
    this.responseTrailersWaiting = false;
    if (this.response.stopped) this.response.release(this.response.continueWithBody());
  }

  /** The encoder's WatermarkBuffer crossed the limit: a buffer that is not streaming is too large
   *  (filter_manager.cc ActiveStreamEncoderFilter::responseDataTooLarge). */
  private responseCrossedLimit(crossing: LimitCrossing): void {
    if (crossing !== "none") this.responseTooLarge = crossing === "too-large";
  }

  /** The filter holds a response body buffer that went past the limit: Envoy stops reading the upstream until the
   *  filter lets it go (ActiveStreamEncoderFilter::responseDataTooLarge on a streaming buffer →
   *  onEncoderFilterAboveWriteBufferHighWatermark). */
  get responseBufferAboveLimit(): boolean {
    return this.response.aboveLimit && this.response.stopped;
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
    this.state.completedMs = this.worker.host.clock.nowMs();
    if (this.contextId === 0) return;
    // conn_manager_impl.cc doDeferredStreamDestroy: HTTP/3 streams are logged later, once the response is acknowledged
    // (deferHeadersAndTrailers, QuicStatsGatherer::maybeDoDeferredLog), after destroyFilters; the access-log handler
    // keeps the Context alive for that. Others, and a stream the client reset (sawDownstreamReset), are logged before
    // their filters go.
    if (this.state.info.protocol === "HTTP/3" && this.fate !== "reset") {
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
    this.invokeLifecycle("proxy_on_log");
    this.state.accessLogPhase = false;
  }

  /** context.cc Context::onDestroy: on_done then on_delete (cpp-host ContextBase::onDone, onDelete), only for a stream
   *  the VM knows. */
  private destroy(): void {
    if (!this.createdInVm || this.vm.failed) return;
    this.invokeLifecycle("proxy_on_done");
    this.invokeLifecycle("proxy_on_delete");
  }

  /** The HTTP/1 codec refused the request before its headers reached the filter (http1-codec-error.ts): its reply (400
   *  "Bad Request" for a parse error) runs through the filter chain created for it, whose encoder callbacks this filter
   *  passes without the VM (Context::encodeHeaders / encodeData on a stream not created in it), with the refusal's
   *  details and the flag DownstreamProtocolError; the VM learns of the stream only when it is logged (finish:
   *  Context::log). The reply is the stream's localReply. */
  rejectByCodec(refusal: Http1CodecRefusal = HTTP1_CODEC_ERROR): void {
    if (this.requestState !== "headers") return;
    this.sendLocal({ status: refusal.status, details: refusal.details, body: enc.encode(refusal.text), headers: [], grpcStatus: -1 });
    this.state.responseFlags |= RESPONSE_FLAG_BITS.DPE;
  }

  /** A downstream or upstream reset: Envoy still writes the access log, so the teardown is the same. */
  reset(): void {
    if (this.fate !== "local-reply") this.fate = "reset";
    this.finish();
  }

  // ---- called by host functions through the worker's hooks ----

  /** context.cc Context::sendLocalResponse: always Ok; the reply is sent after the current VM call
   *  returns (addAfterVmCallAction), so this filter's own response callbacks never run re-entrantly; a
   *  second reply while one is pending or sent changes nothing. */
  setLocalReply(reply: LocalReply): number {
    // A prepared 413 stands (DownstreamFilterManager::prepareLocalReplyViaFilterChain keeps the first).
    if (this.state.localReply || this.deferredReply || this.preparedReply || this.fate === "reset") return Status.Ok;
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
    if (reply && this.fate !== "reset" && !this.state.localReply) this.sendLocal(reply);
  }

  continueFromPlugin(type: number): number {
    // context.cc Context::continueStream: for either type it drops the filter's request header and trailer maps, never
    // response_headers_. continueDecoding runs after the VM call (addAfterVmCallAction): from a body callback,
    // once it returns, so until then a buffering module still reads the buffer. It drops request_body_buffer_ at once,
    // also for either type: unless buffering, the module then has no request body (DirectionState.dropChunkView).
    this.state.requestHeadersHeld = false;
    this.state.requestTrailersHeld = false;
    this.request.dropChunkView();
    if (type === StreamType.HttpRequest && this.requestState === "stalled") {
      this.vm.addAfterVmCallAction(() => this.resumeStalled());
    } else if (type === StreamType.HttpRequest && this.requestBodyWithFilter) {
      this.vm.addAfterVmCallAction(() => this.resumeHeld());
    } else if (type === StreamType.HttpResponse) {
      this.vm.addAfterVmCallAction(() => this.resumeResponse());
    }
    return Status.Ok;
  }

  closeFromPlugin(_type: number): number {
    this.state.closedByPlugin = true;
    this.fate = "reset";
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
    if (this.request.resumeFromStoppedAll()) {
      // The headers have gone on; a body callback that stops holds only the body (requestBodyHeld).
      this.request.beginBufferedData();
      // The end of the stream, unless trailers follow.
      this.deliverBody(this.request.endWhileStoppedAll && !this.pendingTrailers);
    }
    if (this.pendingTrailers && !this.settled()) {
      this.pendingTrailers = false;
      this.deliverTrailers();
    }
    this.notify();
  }

  /** filter_manager.cc ActiveStreamFilterBase::commonContinue on a request the filter holds (paused, or its body held):
   *  the headers and the buffered body go on, unless the stream was answered meanwhile (canContinue). */
  private resumeHeld(): void {
    if (!this.requestBodyWithFilter) return;
    this.forward();
    this.notify();
  }

  /** filter_manager.cc ActiveStreamFilterBase::commonContinue on the encoder side (continueEncoding): held headers
   *  go on (doHeaders), then the body buffered so far (doData). */
  private resumeResponse(): void {
    if (!this.response.stopped || this.fate === "reset") return;
    if (this.response.stoppedAll) {
      // iterate_from_current_filter_: the body buffered meanwhile reaches this filter (doData).
      if (this.response.resumeFromStoppedAll()) {
        this.response.beginBufferedData();
        const fateBefore = this.fate;
        // The end of the stream, unless trailers follow.
        const sent = this.deliverResponseBody(this.response.endWhileStoppedAll && !this.pendingResponseTrailers);
        // A local reply the callback sent replaced the response, body included (sendLocal); otherwise what the
        // callback let go replaces what was released meanwhile.
        if (this.fate === fateBefore) {
          this.response.dropReleased();
          this.response.release(sent);
        }
      }
      // Then the trailers that came meanwhile reach this filter (doTrailers from the current filter), whatever its body
      // callback returned.
      if (this.pendingResponseTrailers && this.fate === null) {
        this.pendingResponseTrailers = false;
        this.deliverResponseTrailers();
      }
    } else {
      this.response.release(this.response.continueWithBody());
      // commonContinue → doTrailers: trailers the filter stopped at (or that came while it held the body) go on.
      this.responseTrailersWaiting = false;
    }
    this.notify();
  }

  /** The filter lets the request go: headers, and the body it held. */
  private forward(): void {
    this.request.release(this.request.continueWithBody());
  }

  private settled(): boolean {
    return this.fate !== null || this.bypass;
  }

  private sendLocal(reply: LocalReply): void {
    const headers = normalizeHeaders(reply.headers).filter(([k]) => k !== ":status");
    this.state.localReply = { ...reply, headers };
    // filter_manager.cc FilterManager::sendLocalReply: streamInfo().setResponseCodeDetails(details).
    this.state.responseCodeDetails = reply.details;
    this.fate = "local-reply";
    this.request.dropReleased();
    // Envoy runs the local reply through the encoder filters, this one included.
    const responseHeaders = localReplyHeaders(reply.status, headers, reply.body.length);
    // The body the filter lets go is the reply's (takeReleasedResponseBody); it may hold the reply until continue_stream.
    this.response.dropReleased();
    // The upstream response the filter still buffers is replaced, not sent before the reply (filter_manager.cc
    // sendLocalReplyViaFilterChain, before the response headers went downstream).
    this.response.dropBuffered();
    if (!this.vm.failed && this.contextId !== 0 && !this.bypass) {
      this.encodeHeaders(responseHeaders, reply.body.length === 0);
      if (reply.body.length) this.response.release(this.encodeData(reply.body, true));
    } else {
      this.state.responseHeaders = new HeaderMap(responseHeaders, RESPONSE_HEADERS_INLINE);
      this.response.release(reply.body);
    }
    this.notify();
  }

  private notify(): void {
    if (this.inCallback === 0) this.onChange?.();
  }

  /** Calls an HTTP callback with the context id, then `a` and `b`. On a failed VM, or when it traps, it goes through
   *  CHECK_FAIL and returns null. */
  private invoke(name: string, a = 0, b = 0): number | null {
    const r = this.callVm(name, a, b);
    if (r === null) this.checkFail(name);
    return r;
  }

  /** Calls a lifecycle callback (context create, log, done, delete) with the context id, then `a`: no CHECK_FAIL. */
  private invokeLifecycle(name: string, a = 0): void {
    this.callVm(name, a, 0);
  }

  /** The callback's result, or null on a failed VM or a trap. */
  private callVm(name: string, a: number, b: number): number | null {
    if (this.contextId === 0 || this.vm.failed) return null;
    this.calls.push(name);
    this.inCallback++;
    const r = this.worker.safeCallbackOn(this.vm, name, this.contextId, a, b);
    this.inCallback--;
    // cpp-host DeferAfterCallActions: actions the callback queued run when it returns.
    if (this.inCallback === 0) this.sendDeferredReply();
    return r;
  }

  /** cpp-host context.cc CHECK_FAIL for a callback of this stream on a failed VM. */
  private checkFail(where: string): void {
    const host = this.worker.host;
    if (this.bypass || this.finished) return;
    if (host.legacyFailOpen) {
      // plugin_->fail_open_: every callback returns Continue from now on.
      this.bypass = true;
      if (this.requestBodyWithFilter) this.forward();
      else if (this.requestState === "headers") this.request.afterHeaders(HeadersStatus.Continue);
      // The response goes on too, its headers and whatever comes next (encodeData skips the VM from now on).
      this.response.headersHeld = false;
      this.response.iteration = "continue";
      host.log(LogLevel.Warn, `fail_open: continuing the stream after a VM failure in ${where}`, this.vm);
      return;
    }
    if (this.streamFailed) return;
    this.streamFailed = true;
    // Context::failStream(Request): one local 503, unless the stream already has a reply (or a prepared one).
    if (this.fate === "local-reply" || this.state.localReply || this.preparedReply) return;
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

