// Redis calls in flight on one worker, so a reply (delivered to the root context with its token) finds the
// stream that waits for it and what that stream had computed before it paused: its chain (the worker's chain
// buffer is reused by other requests meanwhile), session, model and conversation. A fixed number of entries; when all are
// taken a request decides without Redis. A call is given up once it outlives redis.timeoutMs (overdue): Higress
// bounds a call by that timeout only once its connection is up, and waits for the cluster's connect_timeout before
// (envoy raw_client_impl.cc RawClientImpl: connect_or_op_timer_), so the plugin keeps its own deadline.
import { ReplicaHints } from "./replica-hints";

export const PENDING_CALLS: i32 = 64;

export class PendingCall {
  inUse: bool = false;
  token: u32 = 0;
  /** 0 for a publish (nobody waits). */
  streamId: u32 = 0;
  hints: ReplicaHints | null = null;
  chain: StaticArray<u64> = new StaticArray<u64>(0);
  chainLength: i32 = 0;
  sessionHash: u64 = 0;
  modelHash: u64 = 0;
  /** The request's conversation (Decision.conversationKey), so its hint is published once it is routed. */
  conversationKey: u64 = 0;
  /** Whole chunks of the previous turn's prompt (Decision.previousPromptChunks): the lookup probed its tail. */
  previousPromptChunks: i32 = 0;
  sentAtMs: f64 = 0;
  /** The worker's own matches per registry slot when the request paused. */
  matched: StaticArray<i32> = new StaticArray<i32>(0);
  /** Each slot's registry generation then: a slot taken by another endpoint since has no match. */
  generations: StaticArray<u32> = new StaticArray<u32>(0);
  /** A hot preamble was credited to every endpoint in `matched` (Decision.spreadPreamble). */
  spreadPreamble: bool = false;
  /** Then, per slot, the match from before that (PickerState.matchedBeforeSpread). */
  matchedBeforeSpread: StaticArray<i32> = new StaticArray<i32>(0);

  /** Keeps a copy of the first n hashes (the array grows once to the largest chain seen). */
  keepChain(hashes: StaticArray<u64>, n: i32): void {
    if (this.chain.length < n) this.chain = new StaticArray<u64>(hashes.length);
    memory.copy(changetype<usize>(this.chain), changetype<usize>(hashes), <usize>n << 3);
    this.chainLength = n;
  }
}

/** Copies per-slot values into `kept`, or into a new array once when `kept` is shorter; returns the copy. */
export function keepPerSlot<T>(kept: StaticArray<T>, values: StaticArray<T>): StaticArray<T> {
  const out = kept.length < values.length ? new StaticArray<T>(values.length) : kept;
  memory.copy(changetype<usize>(out), changetype<usize>(values), <usize>values.length * sizeof<T>());
  return out;
}

export class PendingCalls {
  readonly entries: StaticArray<PendingCall> = new StaticArray<PendingCall>(PENDING_CALLS);
  /** Entries in use. */
  private inFlight: i32 = 0;

  constructor() {
    for (let i = 0; i < PENDING_CALLS; i++) this.entries[i] = new PendingCall();
  }

  /** A free entry, or null when all are in flight. */
  free(): PendingCall | null {
    for (let i = 0; i < PENDING_CALLS; i++) {
      const e = unchecked(this.entries[i]);
      if (!e.inUse) return e;
    }
    return null;
  }

  /** Marks a free entry in flight as call `token` of `hints`, sent now; the caller fills in the rest. */
  take(call: PendingCall, token: u32, hints: ReplicaHints, streamId: u32, nowMs: f64): void {
    call.inUse = true;
    call.token = token;
    call.hints = hints;
    call.streamId = streamId;
    call.sentAtMs = nowMs;
    this.inFlight++;
  }

  /** The call ended (answered, failed or overdue): a reply that still comes for its token is ignored. */
  release(call: PendingCall): void {
    if (!call.inUse) return;
    call.inUse = false;
    this.inFlight--;
  }

  /** An entry in flight longer than its redis.timeoutMs, or null. One sent "later" than now is overdue too: the
   *  wall clock stepped back, and how long it has waited is unknown. */
  overdue(nowMs: f64): PendingCall | null {
    if (this.inFlight == 0) return null;
    for (let i = 0; i < PENDING_CALLS; i++) {
      const e = unchecked(this.entries[i]);
      if (!e.inUse) continue;
      const waited = nowMs - e.sentAtMs;
      if (waited >= <f64>e.hints!.timeoutMs || waited < 0) return e;
    }
    return null;
  }

  find(token: u32): PendingCall | null {
    for (let i = 0; i < PENDING_CALLS; i++) {
      const e = unchecked(this.entries[i]);
      if (e.inUse && e.token == token) return e;
    }
    return null;
  }
}
