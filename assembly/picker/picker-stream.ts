// One HTTP stream through the picker: gate the headers, buffer the body, decide, override, record, and
// give the in-flight lease back exactly once. Every failure is a counted fail-open: the request goes on
// to the gateway's own load balancer.
import {
  continueStream, getBufferBytes, getBufferSize, getHeaderValueRaw, log, removeHeader, replaceHeaderValue, returned,
  sendLocalResponse, setEffectiveContext, setProperty, Utf8,
} from "../abi/host";
import { HeaderMapWriter } from "../abi/header-map";
import { HttpContext } from "../abi/context";
import { BufferType, DataAction, HeadersAction, LogLevel, MapType, Status, StreamType } from "../abi/types";
import { hashNameBytes } from "../endpoints/name-hash";
import { xxh64 } from "../prefix/xxh64";
import { OVERRIDE_HEADER } from "../core/override-header";
import { formatDebugHeader } from "./debug-header";
import { Decision, decide } from "./decide";
import { FALLBACK_NAMES, Fallback } from "../core/fallback";
import { nowMs } from "../core/clock";
import { WorkerPickers } from "./worker-pickers";
import { ConfiguredPicker } from "./configured-picker";
import { PickerState } from "../core/picker-state";
import { gateRequest, gatedContentLength, UNSIZED_BODY } from "./request-gate";
import { Stage, stageEnter, stageLeave } from "../abi/stage-profile";
import { addressHash } from "../endpoints/endpoint-registry";
import { PendingCall, keepMatched } from "../replica/pending-calls";
import { RespReply } from "../replica/resp";
import { ReplicaHints } from "../replica/replica-hints";
import { decideWithReplicaHint, worthAskingRedis } from "./replica-decide";

const STATUS = new Utf8(":status");
const EMPTY_HEADERS = new HeaderMapWriter();
const DEBUG_HEADER = new Utf8("x-endpoint-picker-debug");
const FALLBACK_PROPERTY = String.UTF8.encode("endpoint_picker.fallback");
/** The fallback names as UTF-8, encoded once so a fail-open allocates nothing. */
const FALLBACK_NAME_BYTES: StaticArray<ArrayBuffer> = encodeAll(FALLBACK_NAMES);

function encodeAll(names: StaticArray<string>): StaticArray<ArrayBuffer> {
  const out = new StaticArray<ArrayBuffer>(names.length);
  for (let i = 0; i < names.length; i++) out[i] = String.UTF8.encode(names[i]);
  return out;
}
const SALT_HASH: usize = memory.data(8);
const SALT_HASH_SEED: u64 = 0x5a17_5a17_5a17_5a17;

/** Shared by every stream of the worker: only one decides at a time. */
const decision = new Decision();

export class PickerStream extends HttpContext {
  private fallback: i32 = Fallback.None;
  private reading: bool = false;
  private leaseSlot: i32 = -1;
  private leaseGeneration: u32 = 0;
  private leaseHeld: bool = false;
  /** The request counts in the process-wide load (shared-load.ts) under this address hash. */
  private loadCounted: bool = false;
  private awaitingFirstByte: bool = false;
  private loadAddressHash: u64 = 0;
  private responseStatus: i32 = 0;
  private debugText: string | null = null;
  private watchHandle: i32 = -1;
  /** The Content-Length the gate accepted (streams of a worker interleave, so it is kept per stream). */
  private announcedLength: i64 = 0;
  /** The configuration this request uses (the default or a matching rule's), chosen on its headers. */
  private active: ConfiguredPicker | null = null;
  /** The body is held while Redis is asked (see askRedis). */
  private redisWaiting: bool = false;

  constructor(id: u32, readonly picker: WorkerPickers) {
    super(id, picker);
  }

  onRequestHeaders(numHeaders: u32, endOfStream: bool): i32 {
    stageEnter(Stage.Gate);
    const action = this.gate(endOfStream);
    stageLeave();
    return action;
  }

  private gate(endOfStream: bool): i32 {
    // No client may choose a pod, whatever happens next. If the host will not remove the header, blank it
    // (override_host ignores an empty value); if it will not do that either, refuse the request.
    if (removeHeader(MapType.HttpRequestHeaders, OVERRIDE_HEADER) != Status.Ok &&
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
    const reason = gateRequest(<i64>state.config.maxRequestBodyBytes);
    if (reason != Fallback.None) return this.failOpen(reason);
    if (endOfStream) return this.failOpen(Fallback.ContentLength);
    if (gatedContentLength == UNSIZED_BODY) {
      state.telemetry.add(state.telemetry.unsizedBodies, 1);
      this.announcedLength = <i64>state.config.maxRequestBodyBytes;
    } else {
      this.announcedLength = gatedContentLength;
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
    this.failOpen(Fallback.BodyNotDelivered);
    if (setEffectiveContext(this.id) == Status.Ok) continueStream(StreamType.HttpRequest);
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
    return this.decideAndRoute(bodySize) ? DataAction.StopIterationAndBuffer : DataAction.Continue;
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

  /** Decides and routes; true when the request stays paused until Redis answers. */
  private decideAndRoute(bodySize: u32): bool {
    const active = this.active!;
    const state = active.state;
    stageEnter(Stage.BodyRead);
    const read = getBufferBytes(BufferType.HttpRequestBody, 0, bodySize);
    stageLeave();
    if (read != Status.Ok || returned.len == 0) {
      returned.release();
      this.failOpen(Fallback.BodyUnavailable);
      return false;
    }
    // Take ownership of the body buffer; `returned` is reused for the headers below.
    const bodyPtr = returned.ptr;
    const bodyLen = returned.len;
    returned.ptr = 0;
    returned.len = 0;

    // The salt enters the chain seed as its hash, so the header buffer can go at once.
    stageEnter(Stage.Headers);
    let saltLen: usize = 0;
    const salt = active.saltHeader;
    if (salt !== null && getHeaderValueRaw(MapType.HttpRequestHeaders, salt) == Status.Ok) {
      if (returned.len > 0) {
        store<u64>(SALT_HASH, xxh64(returned.ptr, returned.len, SALT_HASH_SEED));
        saltLen = 8;
      }
      returned.release();
    }
    let sessionHash: u64 = 0;
    const session = active.sessionHeader;
    if (session !== null && getHeaderValueRaw(MapType.HttpRequestHeaders, session) == Status.Ok) {
      if (returned.len > 0) sessionHash = hashNameBytes(returned.ptr, returned.len) | 1;
      returned.release();
    }
    const now = nowMs();
    stageLeave();
    decide(state, active.platform, decision, bodyPtr, bodyLen, now, SALT_HASH, saltLen, sessionHash);
    heap.free(bodyPtr);

    const t = state.telemetry;
    t.prefixSkip(decision.prefixSkip);
    if (decision.fallback != Fallback.None) {
      this.failOpen(decision.fallback);
      return false;
    }
    const replica = active.replica;
    if (replica !== null && worthAskingRedis(state, decision.chainLength) &&
        this.askRedis(replica, state, decision.chainLength, sessionHash, now)) {
      return true;
    }
    this.routeAndRecord(active, state.chain.hashes, sessionHash, now);
    return false;
  }

  private routeAndRecord(active: ConfiguredPicker, hashes: StaticArray<u64>, sessionHash: u64, now: f64): void {
    const state = active.state;
    stageEnter(Stage.Route);
    const routed = active.platform.route(state, decision.slot);
    stageLeave();
    if (!routed) {
      this.failOpen(Fallback.OverrideFailed);
      return;
    }
    stageEnter(Stage.Record);
    this.record(state, now, sessionHash, hashes);
    stageLeave();
    const replica = active.replica;
    if (replica !== null && decision.chainLength > 0) this.publishToRedis(replica, state, hashes, now);
  }

  /** Asks the other replicas' hints for this chain; true when the call went out and the request waits. */
  private askRedis(replica: ReplicaHints, state: PickerState, n: i32, sessionHash: u64, now: f64): bool {
    const call = this.pendingCall(replica, now);
    const hashes = state.chain.hashes;
    if (call === null || !replica.lookup(hashes, n)) return false;
    call.inUse = true;
    call.token = replica.transport.token;
    call.streamId = this.id;
    call.hints = replica;
    call.keepChain(hashes, n);
    call.sessionHash = sessionHash;
    call.modelHash = state.modelHash;
    keepMatched(call, state.matched);
    call.sentAtMs = now;
    this.redisWaiting = true;
    return true;
  }

  /** Fire and forget: the reply is only counted. */
  private publishToRedis(replica: ReplicaHints, state: PickerState, hashes: StaticArray<u64>, now: f64): void {
    const call = this.pendingCall(replica, now);
    const r = state.registry;
    if (call === null || !replica.publish(hashes, decision.chainLength, r.addressPtr(decision.slot), r.addressLen(decision.slot))) return;
    call.inUse = true;
    call.token = replica.transport.token;
    call.streamId = 0;
    call.hints = replica;
    call.chainLength = 0;
    call.sentAtMs = now;
  }

  private pendingCall(replica: ReplicaHints, now: f64): PendingCall | null {
    const call = this.picker.redisPending!.free(now);
    if (call === null) {
      replica.telemetry.count(replica.telemetry.busy);
      return null;
    }
    return replica.ready(now) ? call : null;
  }

  /** Redis answered (reply null: failed or unusable, already counted): decide, route, let the request go. */
  resumeAfterRedis(call: PendingCall, reply: RespReply | null): void {
    if (!this.redisWaiting || this.active === null) return;
    this.redisWaiting = false;
    const active = this.active!;
    const state = active.state;
    const replica = call.hints!;
    const now = nowMs();
    setEffectiveContext(this.id);
    let hintSlot = -1;
    let hintChunks = 0;
    if (reply !== null) {
      const registry = state.registry;
      for (let i = 0; i < reply.count; i++) {
        const len = unchecked(reply.elementLen[i]);
        if (len <= 0) continue;
        const ptr = unchecked(reply.elementPtr[i]);
        const slot = registry.lookup(addressHash(ptr, <usize>len), ptr, <usize>len);
        if (slot >= 0 && registry.isActive(slot)) {
          const chunks = replica.lookupChunks(call.chainLength, i);
          // Only a match longer than the worker's own is news.
          if (slot < call.matched.length && chunks <= unchecked(call.matched[slot])) continue;
          hintSlot = slot;
          hintChunks = chunks;
          break;
        }
      }
      const t = replica.telemetry;
      t.count(hintSlot >= 0 ? t.hits : t.misses);
    }
    decideWithReplicaHint(state, active.platform, decision, call.chainLength, call.sessionHash, call.modelHash, call.matched, hintSlot, hintChunks, now);
    if (decision.fallback != Fallback.None) this.failOpen(decision.fallback);
    else this.routeAndRecord(active, call.chain, call.sessionHash, now);
    continueStream(StreamType.HttpRequest);
  }

  /** The override stands: take the lease and remember where this prefix went. */
  private record(state: PickerState, now: f64, sessionHash: u64, hashes: StaticArray<u64>): void {
    const cfg = state.config;
    const t = state.telemetry;
    this.leaseSlot = decision.slot;
    this.leaseGeneration = decision.generation;
    this.leaseHeld = true;
    state.leases.acquire(decision.slot, decision.generation);
    const load = state.load;
    if (load !== null) {
      this.loadAddressHash = state.registry.addressHashOf(decision.slot);
      load.change(this.loadAddressHash, 1, 1, now);
      this.loadCounted = true;
      this.awaitingFirstByte = true;
    }
    t.add(t.inflight, 1);
    t.add(t.decisions, 1);
    if (decision.chainLength > 0) {
      state.index.record(decision.slot, hashes, decision.chainLength);
      t.add(t.prefixTotalChars, <i64>decision.chainLength * <i64>cfg.chunkChars);
      t.add(t.prefixMatchedChars, <i64>decision.matchedChunks * <i64>cfg.chunkChars);
      if (decision.matchedChunks > 0) t.add(t.prefixHits, 1);
    }
    const hints = state.hints;
    if (hints !== null && decision.chainLength > 0) {
      const r = state.registry;
      stageEnter(Stage.SharedHints);
      hints.publish(hashes, decision.chainLength, r.addressPtr(decision.slot), r.addressLen(decision.slot), now);
      stageLeave();
    }
    state.sessions.remember(sessionHash, decision.slot, decision.generation);
    if (cfg.rateLimit < 1.0) state.rateWindow.push(decision.slot);
    if (cfg.debugHeader) this.debugText = formatDebugHeader(state, decision);
  }

  onResponseHeaders(numHeaders: u32, endOfStream: bool): i32 {
    stageEnter(Stage.Response);
    this.readResponseHeaders();
    if (endOfStream) this.firstByteArrived();
    stageLeave();
    return HeadersAction.Continue;
  }

  onResponseBody(bodySize: u32, endOfStream: bool): i32 {
    if (this.awaitingFirstByte && (bodySize > 0 || endOfStream)) {
      stageEnter(Stage.Response);
      this.firstByteArrived();
      stageLeave();
    }
    return DataAction.Continue;
  }

  /**
   * The endpoint started answering (a streamed response's first chunk comes with the first token): the request
   * no longer waits in its queue.
   */
  private firstByteArrived(): void {
    if (!this.awaitingFirstByte) return;
    this.awaitingFirstByte = false;
    const active = this.active;
    if (active !== null && active.state.load !== null) active.state.load!.change(this.loadAddressHash, 0, -1, nowMs());
  }

  private readResponseHeaders(): void {
    if (getHeaderValueRaw(MapType.HttpResponseHeaders, STATUS) == Status.Ok) {
      let code = 0;
      for (let i: usize = 0; i < returned.len && i < 3; i++) code = code * 10 + (<i32>load<u8>(returned.ptr + i) - 48);
      this.responseStatus = code;
      returned.release();
    }
    const text = this.debugText;
    if (text !== null) {
      const b = String.UTF8.encode(text);
      replaceHeaderValue(MapType.HttpResponseHeaders, DEBUG_HEADER, changetype<usize>(b), b.byteLength);
    } else if (this.fallback != Fallback.None && this.active !== null && this.active!.state.config.debugHeader) {
      const b = String.UTF8.encode("fallback=" + FALLBACK_NAMES[this.fallback]);
      replaceHeaderValue(MapType.HttpResponseHeaders, DEBUG_HEADER, changetype<usize>(b), b.byteLength);
    }
  }

  onLog(): void {
    stageEnter(Stage.Response);
    this.releaseLease();
    stageLeave();
  }

  onDone(): bool {
    stageEnter(Stage.Response);
    this.stopWatching();
    this.releaseLease();
    stageLeave();
    return true;
  }

  private releaseLease(): void {
    if (!this.leaseHeld) return;
    this.leaseHeld = false;
    const active = this.active;
    if (active === null) return;
    const state = active.state;
    state.leases.release(this.leaseSlot, this.leaseGeneration);
    const load = state.load;
    if (load !== null && this.loadCounted) {
      this.loadCounted = false;
      load.change(this.loadAddressHash, -1, this.awaitingFirstByte ? -1 : 0, nowMs());
      this.awaitingFirstByte = false;
    }
    state.telemetry.add(state.telemetry.inflight, -1);
    // No response headers (reset) or a 5xx counts as a failure of the endpoint.
    const failed = this.responseStatus == 0 || this.responseStatus >= 500;
    state.failures.record(this.leaseSlot, this.leaseGeneration, failed, state.config.ewmaAlpha);
  }

  private refuseClientOverride(): i32 {
    const telemetry = this.picker.telemetry;
    if (telemetry !== null) telemetry.add(telemetry.overrideHeaderRefusals, 1);
    sendLocalResponse(503, "endpoint_picker_override_header", "", EMPTY_HEADERS);
    return HeadersAction.StopIteration;
  }

  private failOpen(reason: i32): i32 {
    this.fallback = reason;
    const telemetry = this.picker.telemetry;
    if (telemetry !== null) telemetry.fallback(reason);
    setProperty(FALLBACK_PROPERTY, FALLBACK_NAME_BYTES[reason]);
    return HeadersAction.Continue;
  }
}
