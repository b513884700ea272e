// One HTTP stream through the picker: gate the headers, buffer the body, decide, override, record, and
// give the in-flight lease back exactly once. Every failure is a counted fail-open: the request goes on
// to the gateway's own load balancer.
import {
  continueStream, getBufferBytes, getBufferSize, log, removeHeader, replaceHeaderValue, sendLocalResponse, setEffectiveContext,
} from "../abi/host";
import { HeaderMapWriter } from "../abi/header-map";
import { BufferType, DataAction, HeadersAction, LogLevel, MapType, Status, StreamType } from "../abi/types";
import { OVERRIDE_HEADER } from "../core/override-header";
import { formatDebugHeader } from "./debug-header";
import { Decision, decide } from "./decide";
import { Fallback } from "../core/fallback";
import { nowMs } from "../core/clock";
import { WorkerPickers } from "./worker-pickers";
import { ConfiguredPicker } from "./configured-picker";
import { PickerState } from "../core/picker-state";
import { UNSIZED_BODY } from "./request-gate";
import { Stage, stageEnter, stageLeave } from "../abi/stage-profile";
import { PendingCall } from "../replica/pending-calls";
import { RespReply } from "../replica/resp";
import { askRedis, decideAfterRedis, publishToRedis, worthAskingRedis } from "./replica-decide";
import { LeaseHoldingStream } from "./stream-lease";
import { readSaltHash, readSessionHash } from "./request-keys";
import { recordPick } from "./record-pick";
import { reportFailOpen } from "./fail-open";
import { NO_STATUS, responseStatus, setDebugHeader, setFallbackDebugHeader } from "./response-headers";
import { readBodyLater } from "./late-body-read";

const EMPTY_HEADERS = new HeaderMapWriter();

export class PickerStream extends LeaseHoldingStream {
  private fallback: i32 = Fallback.None;
  private reading: bool = false;
  private debugText: string | null = null;
  private watchHandle: i32 = -1;
  /** The Content-Length the gate accepted (streams of a worker interleave, so it is kept per stream). */
  private announcedLength: i64 = 0;
  /** The configuration this request uses (the default or a matching rule's), chosen on its headers. */
  private active: ConfiguredPicker | null = null;
  /** The body is held while Redis is asked (see askRedis). */
  private redisWaiting: bool = false;
  /** The headers announced a Content-Length (announcedLength is that, not the limit). */
  private lengthAnnounced: bool = false;
  /** The body came short of its Content-Length: its slot in lateReads until the root's tick reads it again. */
  private lateHandle: i32 = -1;

  constructor(id: u32, readonly picker: WorkerPickers) {
    super(id, picker);
  }

  reuseFor(id: u32): void {
    super.reuseFor(id);
    this.fallback = Fallback.None;
    this.reading = false;
    this.debugText = null;
    this.watchHandle = -1;
    this.announcedLength = 0;
    this.active = null;
    this.redisWaiting = false;
    this.lengthAnnounced = false;
    this.lateHandle = -1;
  }

  private get activeState(): PickerState | null {
    const active = this.active;
    return active === null ? null : active.state;
  }

  onRequestHeaders(numHeaders: u32, endOfStream: bool): i32 {
    stageEnter(Stage.Gate);
    const action = this.gate(endOfStream);
    stageLeave();
    return action;
  }

  private gate(endOfStream: bool): i32 {
    const gate = this.picker.scratch.gate;
    gate.read();
    // No client may choose a pod, whatever happens next. If the host will not remove the header, blank it
    // (override_host ignores an empty value); if it will not do that either, refuse the request.
    if (gate.clientOverride && removeHeader(MapType.HttpRequestHeaders, OVERRIDE_HEADER) != Status.Ok &&
        replaceHeaderValue(MapType.HttpRequestHeaders, OVERRIDE_HEADER, 0, 0) != Status.Ok) {
      return this.refuseClientOverride();
    }
    if (this.picker.config === null) return this.failOpen(Fallback.NotConfigured);
    const active = this.picker.select();
    if (active === null) {
      // No default configuration and no matching rule: the picker does not apply (as in Higress).
      if (this.picker.selectionFailed) return this.failOpen(Fallback.NotConfigured);
      return HeadersAction.Continue;
    }
    this.active = active;
    const state = active.state;
    state.telemetry.add(state.telemetry.requests, 1);
    const reason = gate.check(<i64>state.config.maxRequestBodyBytes);
    if (reason != Fallback.None) return this.failOpen(reason);
    if (endOfStream) return this.failOpen(Fallback.ContentLength);
    if (gate.contentLength == UNSIZED_BODY) {
      state.telemetry.add(state.telemetry.unsizedBodies, 1);
      this.announcedLength = <i64>state.config.maxRequestBodyBytes;
    } else {
      this.announcedLength = gate.contentLength;
      this.lengthAnnounced = true;
    }
    this.reading = true;
    const watchdog = this.picker.watchdog;
    if (watchdog !== null) this.watchHandle = watchdog.watch(this.id, nowMs());
    return HeadersAction.StopIteration;
  }

  /** The body never reached the filter (stock Envoy without allow_on_headers_stop_iteration): let it go. */
  resumeWithoutBody(): void {
    if (!this.reading) return;
    this.reading = false;
    this.watchHandle = -1;
    // The root context's timer calls this: the fallback property and continue_stream must act on this stream
    // (a root context has no stream info to hold a property).
    const onStream = setEffectiveContext(this.id) == Status.Ok;
    this.failOpen(Fallback.BodyNotDelivered);
    if (onStream) continueStream(StreamType.HttpRequest);
    if (!this.picker.warnedBodyNotDelivered) {
      this.picker.warnedBodyNotDelivered = true;
      log(LogLevel.Warn, "endpoint-picker: a request body never reached the filter; on stock Envoy set allow_on_headers_stop_iteration: true (Envoy 1.35 or later)");
    }
  }

  private stopWatching(): void {
    const watchdog = this.picker.watchdog;
    if (watchdog !== null && this.watchHandle >= 0) watchdog.release(this.watchHandle, this.id);
    this.watchHandle = -1;
  }

  onRequestBody(bodySize: u32, endOfStream: bool): i32 {
    this.stopWatching();
    if (!this.reading) return DataAction.Continue;
    const state = this.active!.state;
    if (<i64>bodySize > <i64>state.config.maxRequestBodyBytes || <i64>bodySize > this.announcedLength) {
      // The body outgrew what its Content-Length announced, or the limit.
      this.reading = false;
      return this.failOpen(Fallback.BodyTooLarge);
    }
    if (!endOfStream) return DataAction.StopIterationAndBuffer;
    this.reading = false;
    if (this.lengthAnnounced && <i64>bodySize < this.announcedLength) return this.readLater(state);
    return this.decideAndRoute(bodySize) ? DataAction.StopIterationAndBuffer : DataAction.Continue;
  }

  /** The body came short of its Content-Length (Higress before 2.2, see late-body-reads.ts): its last chunk joins the
   *  buffer once this callback returns StopIterationAndBuffer; the root's next tick reads it (readLateBody). */
  private readLater(state: PickerState): i32 {
    this.lateHandle = readBodyLater(this.picker.lateReads, this.id, state.telemetry);
    return this.lateHandle >= 0 ? DataAction.StopIterationAndBuffer : this.failOpen(Fallback.BodyIncomplete);
  }

  /** The root's tick after readLater: read the whole body now, decide, route and let the request go. */
  readLateBody(): void {
    this.lateHandle = -1;
    // The stream is gone from the host: whatever follows would act on the context that runs now.
    if (setEffectiveContext(this.id) != Status.Ok) return;
    const size = getBufferSize(BufferType.HttpRequestBody);
    if (size != this.announcedLength) this.failOpen(size > this.announcedLength ? Fallback.BodyTooLarge : Fallback.BodyIncomplete);
    else if (this.decideAndRoute(<u32>size)) return; // Redis answers first: resumeAfterRedis lets it go
    continueStream(StreamType.HttpRequest);
  }

  /** A body followed by trailers: the body is complete when the trailers arrive. */
  onRequestTrailers(numTrailers: u32): i32 {
    this.stopWatching();
    if (!this.reading) return HeadersAction.Continue;
    this.reading = false;
    const size = getBufferSize(BufferType.HttpRequestBody);
    if (size <= 0) return this.failOpen(Fallback.BodyUnavailable);
    return this.decideAndRoute(<u32>size) ? HeadersAction.StopIteration : HeadersAction.Continue;
  }

  /** Reads the body and the key headers, decides, then asks Redis or routes; true when the request stays
   *  paused until Redis answers. */
  private decideAndRoute(bodySize: u32): bool {
    const active = this.active!;
    const state = active.state;
    const now = nowMs();
    // Before this request uses the callback scratch: requests whose Redis call is overdue go first, and the
    // back-off that starts then keeps this one from waiting on the same Redis.
    if (active.replica !== null) this.picker.expireRedisCalls(now, this.id);
    const scratch = this.picker.scratch;
    const body = scratch.body;
    stageEnter(Stage.BodyRead);
    const read = getBufferBytes(BufferType.HttpRequestBody, 0, bodySize, body);
    stageLeave();
    if (read != Status.Ok || body.len == 0) {
      body.release();
      this.failOpen(Fallback.BodyUnavailable);
      return false;
    }
    stageEnter(Stage.Headers);
    const saltLen = readSaltHash(active.saltHeader, scratch.header, scratch.saltHash);
    const sessionHash = readSessionHash(active.sessionHeader, scratch.header);
    stageLeave();
    const d = scratch.decision;
    decide(state, active.platform, d, body.ptr, body.len, now, scratch.saltHash, saltLen, sessionHash);
    body.release();

    state.telemetry.prefixSkip(d.prefixSkip);
    if (d.fallback != Fallback.None) {
      this.failOpen(d.fallback);
      return false;
    }
    const replica = active.replica;
    if (replica !== null && worthAskingRedis(state, d) &&
        askRedis(this.picker.redisPending!, replica, state, this.id, d, sessionHash, now)) {
      this.redisWaiting = true;
      return true;
    }
    this.routeAndRecord(active, d, state.chain.hashes, sessionHash, now);
    return false;
  }

  private routeAndRecord(active: ConfiguredPicker, d: Decision, hashes: StaticArray<u64>, sessionHash: u64, now: f64): void {
    const state = active.state;
    stageEnter(Stage.Route);
    const routed = active.platform.route(state, d.slot);
    stageLeave();
    if (!routed) {
      this.failOpen(Fallback.OverrideFailed);
      return;
    }
    // The override stands: take the lease and remember where this prefix went.
    stageEnter(Stage.Record);
    this.takeLease(state, d.slot, d.generation, now);
    const heldUntil = recordPick(state, d, hashes, sessionHash, now);
    if (d.conversationKey != 0 && heldUntil == heldUntil) {
      this.publishedConversation(d.conversationKey, d.chainLength, unchecked(hashes[d.chainLength - 1]), heldUntil);
    }
    if (state.config.debugHeader) this.debugText = formatDebugHeader(state, d);
    stageLeave();
    const replica = active.replica;
    if (replica !== null && d.chainLength > 0) publishToRedis(this.picker.redisPending!, replica, state, d, hashes, now);
  }

  /** Redis answered (reply null: failed or unusable, already counted): decide, route, let the request go. */
  resumeAfterRedis(call: PendingCall, reply: RespReply | null): void {
    if (!this.redisWaiting || this.active === null) return;
    this.redisWaiting = false;
    // The stream is gone from the host: whatever follows would act on the context that runs now.
    if (setEffectiveContext(this.id) != Status.Ok) return;
    const active = this.active!;
    const now = nowMs();
    const d = this.picker.scratch.decision;
    decideAfterRedis(active.state, active.platform, d, call, reply, now);
    if (d.fallback != Fallback.None) this.failOpen(d.fallback);
    else this.routeAndRecord(active, d, call.chain, call.sessionHash, now);
    continueStream(StreamType.HttpRequest);
  }

  onResponseHeaders(numHeaders: u32, endOfStream: bool): i32 {
    stageEnter(Stage.Response);
    const state = this.activeState;
    if (state !== null && state.tracksFailures) {
      const scratch = this.picker.scratch.header;
      const status = responseStatus(scratch);
      if (status != NO_STATUS) this.responseStatus = status;
      this.noteServingHost(state, scratch);
    }
    const text = this.debugText;
    if (text !== null) setDebugHeader(text);
    else if (this.fallback != Fallback.None && this.active !== null && this.active!.state.config.debugHeader) setFallbackDebugHeader(this.fallback);
    if (endOfStream) {
      this.responseEnded = true;
      this.firstByteArrived(state);
    }
    stageLeave();
    return HeadersAction.Continue;
  }

  onResponseBody(bodySize: u32, endOfStream: bool): i32 {
    if (endOfStream) this.responseEnded = true;
    if (this.isAwaitingFirstByte && (bodySize > 0 || endOfStream)) {
      stageEnter(Stage.Response);
      this.firstByteArrived(this.activeState);
      stageLeave();
    }
    return DataAction.Continue;
  }

  /** Trailers end the response. */
  onResponseTrailers(numTrailers: u32): i32 {
    this.responseEnded = true;
    return HeadersAction.Continue;
  }

  onLog(): void {
    stageEnter(Stage.Response);
    this.redisWaiting = false;
    this.releaseLease(this.activeState, this.picker.scratch.header);
    stageLeave();
  }

  onDone(): bool {
    stageEnter(Stage.Response);
    this.stopWatching();
    const late = this.picker.lateReads;
    if (late !== null) late.release(this.lateHandle, this.id);
    this.lateHandle = -1;
    // The stream stays findable until on_delete: a Redis reply (it goes to the root) must not route it after its end.
    this.redisWaiting = false;
    this.releaseLease(this.activeState, this.picker.scratch.header);
    stageLeave();
    return true;
  }

  private refuseClientOverride(): i32 {
    const telemetry = this.picker.telemetry;
    telemetry.add(telemetry.overrideHeaderRefusals, 1);
    sendLocalResponse(503, "endpoint_picker_override_header", "", EMPTY_HEADERS);
    return HeadersAction.StopIteration;
  }

  private failOpen(reason: i32): i32 {
    this.fallback = reason;
    reportFailOpen(this.picker.telemetry, reason);
    return HeadersAction.Continue;
  }
}
