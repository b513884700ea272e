// A stream's hold on its endpoint, from the moment its override stands until the stream ends: the in-flight
// lease (core/leases.ts), the process-wide load count (core/shared-load.ts) while the request waits for its
// first byte and while it runs, and, when it ends, the outcome fed into the endpoint's failure EWMA. Given back
// exactly once. A base class of the stream rather than an object it holds, so a request allocates nothing
// more for it.
import { HttpContext, RootContext } from "../abi/context";
import { nowMs } from "../core/clock";
import { PickerState } from "../core/picker-state";

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

  constructor(id: u32, root: RootContext) {
    super(id, root);
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

  protected releaseLease(state: PickerState | null): void {
    if (!this.leaseHeld) return;
    this.leaseHeld = false;
    if (state === null) return;
    state.leases.release(this.leaseSlot, this.leaseGeneration);
    const now = nowMs();
    // An engine frees a request's blocks, and starts counting them toward eviction, when it ends.
    // Only while the slot still holds the endpoint the request went to.
    if (state.registry.generation(this.leaseSlot) == this.leaseGeneration) state.horizon.requestEnded(this.leaseSlot, now - this.leaseTakenMs);
    const load = state.load;
    if (load !== null && this.loadCounted) {
      this.loadCounted = false;
      load.change(this.loadAddressHash, -1, this.awaitingFirstByte ? -1 : 0, now);
      this.awaitingFirstByte = false;
    }
    state.telemetry.add(state.telemetry.inflight, -1);
    if (!state.tracksFailures) return;
    // No response headers (reset) or a 5xx counts as a failure of the endpoint.
    const failed = this.responseStatus == 0 || this.responseStatus >= 500;
    state.failures.record(this.leaseSlot, this.leaseGeneration, failed, state.config.ewmaAlpha);
  }
}
