// A stream's hold on its endpoint, from the moment its override stands until the stream ends: the in-flight
// lease (core/leases.ts), the process-wide load count (core/shared-load.ts) while the request waits for its
// first byte and while it runs, and, when it ends, the outcome fed into the endpoint's failure EWMA, its duration
// into the cache horizon, and its end into its conversation's cross-worker hint. Given back exactly once. A base
// class of the stream rather than an object it holds, so a request allocates nothing more for it.
import { HttpContext, RootContext } from "../abi/context";
import { nowMs } from "../core/clock";
import { PickerState } from "../core/picker-state";
import { Stage, stageEnter, stageLeave } from "../abi/stage-profile";
import { Returned } from "../abi/memory";
import { Outcome, responseOutcome, servedByAnotherEndpoint } from "./response-outcome";

/** A conversation hint is re-stamped with its request's end when that end is this far from the one expected. */
const HINT_END_TOLERANCE_MS: f64 = 1000;

export abstract class LeaseHoldingStream extends HttpContext {
  private leaseSlot: i32 = -1;
  private leaseGeneration: u32 = 0;
  private leaseHeld: bool = false;
  /** The request counts in the process-wide load (shared-load.ts) under this address hash. */
  private loadCounted: bool = false;
  private awaitingFirstByte: bool = false;
  private loadAddressHash: u64 = 0;
  private leaseTakenMs: f64 = 0;
  /** The response's HTTP status, 0 until response headers arrive. */
  protected responseStatus: i32 = 0;
  /** The response's end came through the filter (end of stream on its headers, a body chunk or its trailers). */
  protected responseEnded: bool = false;
  /** Another endpoint than the leased one answered (a retry, or the override refused). */
  private servedElsewhere: bool = false;
  // The conversation hint published for this request (shared-hints.ts): its key (0: none), chain and expected end.
  private hintKey: u64 = 0;
  private hintChunks: i32 = 0;
  private hintTail: u64 = 0;
  private hintHeldUntilMs: f64 = 0;

  constructor(id: u32, root: RootContext) {
    super(id, root);
  }

  reuseFor(id: u32): void {
    super.reuseFor(id);
    this.leaseSlot = -1;
    this.leaseGeneration = 0;
    this.leaseHeld = false;
    this.loadCounted = false;
    this.awaitingFirstByte = false;
    this.loadAddressHash = 0;
    this.leaseTakenMs = 0;
    this.responseStatus = 0;
    this.responseEnded = false;
    this.servedElsewhere = false;
    this.hintKey = 0;
    this.hintChunks = 0;
    this.hintTail = 0;
    this.hintHeldUntilMs = 0;
  }

  protected takeLease(state: PickerState, slot: i32, generation: u32, now: f64): void {
    this.leaseSlot = slot;
    this.leaseGeneration = generation;
    this.leaseHeld = true;
    this.leaseTakenMs = now;
    state.leases.acquire(slot, generation);
    const load = state.load;
    if (load !== null) {
      this.loadAddressHash = state.registry.addressHashOf(slot);
      load.change(this.loadAddressHash, 1, 1, now);
      this.loadCounted = true;
      this.awaitingFirstByte = true;
    }
  }

  /** The request was published as its conversation's latest turn, expected to hold its blocks until heldUntilMs. */
  protected publishedConversation(key: u64, chunks: i32, tail: u64, heldUntilMs: f64): void {
    this.hintKey = key;
    this.hintChunks = chunks;
    this.hintTail = tail;
    this.hintHeldUntilMs = heldUntilMs;
  }

  protected get isAwaitingFirstByte(): bool {
    return this.awaitingFirstByte;
  }

  /**
   * The endpoint started answering (a streamed response's first chunk comes with the first token): the request
   * no longer waits in its queue.
   */
  protected firstByteArrived(state: PickerState | null): void {
    if (!this.awaitingFirstByte) return;
    this.awaitingFirstByte = false;
    if (state !== null && state.load !== null) state.load!.change(this.loadAddressHash, 0, -1, nowMs());
  }

  /** The response headers arrived: notes whether the host that answered is the leased endpoint. */
  protected noteServingHost(state: PickerState, scratch: Returned): void {
    if (this.leaseHeld) this.servedElsewhere = servedByAnotherEndpoint(state.registry, this.leaseSlot, scratch);
  }

  protected releaseLease(state: PickerState | null, scratch: Returned): void {
    if (!this.leaseHeld) return;
    this.leaseHeld = false;
    if (state === null) return;
    state.leases.release(this.leaseSlot, this.leaseGeneration);
    const now = nowMs();
    // An engine frees a request's blocks, and starts counting them toward eviction, when it ends.
    // Only while the slot still holds the endpoint the request went to, and that endpoint served it.
    if (state.registry.generation(this.leaseSlot) == this.leaseGeneration && !this.servedElsewhere) {
      state.horizon.requestEnded(this.leaseSlot, now - this.leaseTakenMs);
      // The next turn, on whichever worker, reads when this one's blocks were released, not when they were expected
      // to be.
      const hints = state.hints;
      if (hints !== null && this.hintKey != 0 && Math.abs(now - this.hintHeldUntilMs) > HINT_END_TOLERANCE_MS) {
        const r = state.registry;
        stageEnter(Stage.SharedHints);
        hints.conversationEnded(
          this.hintKey, this.hintChunks, this.hintTail, r.addressPtr(this.leaseSlot), r.addressLen(this.leaseSlot),
          this.leaseTakenMs, now,
        );
        stageLeave();
      }
    }
    const load = state.load;
    if (load !== null && this.loadCounted) {
      this.loadCounted = false;
      load.change(this.loadAddressHash, -1, this.awaitingFirstByte ? -1 : 0, now);
      this.awaitingFirstByte = false;
    }
    state.telemetry.add(state.telemetry.inflight, -1);
    if (!state.tracksFailures) return;
    const outcome = responseOutcome(this.responseStatus, this.servedElsewhere, this.responseEnded, scratch);
    if (outcome == Outcome.Unknown) return;
    const cfg = state.config;
    state.failures.record(this.leaseSlot, this.leaseGeneration, outcome == Outcome.Failed, cfg.ewmaAlpha, now, <f64>cfg.failureHalfLifeMs);
  }
}
