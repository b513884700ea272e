// Cross-worker prefix hints. Envoy runs one VM per worker thread, so each worker's prefix index only knows
// the requests that worker routed; a conversation whose turns arrive on different connections would look new
// to every other worker. After each decision the picker also writes, in process-wide shared data, which
// endpoint got the chain at a few positions (hintPositions); a worker whose own index knows less probes them.
// Two of the positions also carry the chain's tail (conversation-tail.ts), so the next turn of a conversation,
// on any worker, is credited with the whole previous turn; and every chain is also published under its
// conversation's key (conversationKey: its beginning up to the end of the first user message), which the next
// turn reads once, for when those positions lie in a beginning many conversations share. The table is bounded: a
// fixed number of keys, each holding the last hint whose hash maps there (a collision just overwrites an older
// hint), so shared memory stays constant however long Envoy runs.
import { proxy_get_shared_data, proxy_set_shared_data } from "../abi/imports";
import { OUT_EXTRA, OUT_LEN, OUT_PTR, clearOutParams, releaseHostBuffer } from "../abi/memory";
import { Status } from "../abi/types";
import { extendsTail, tailCarriers } from "./conversation-tail";

/**
 * A conversation key's hint is credited this long after its turn last held its blocks (published, or ended when later)
 * only where the endpoint's cache horizon is not known (an engine without prefix-cache counters); where it is, the
 * horizon judges, up to the hints' maximum age. A pod evicts a conversation's blocks within tens of seconds of its
 * last turn under load, and a stale credit pulls the next turn to a pod that must prefill it all again (measured on
 * mixed-rag-chat-churn before the horizon existed: 600 s instead of 30 s raised TTFT p90 33 -> 36 ms). With the
 * horizon judging, a 30 s cap only lost the turns of users who think longer (docs/tuning.md, "Long think times").
 */
export const CONVERSATION_MAX_AGE_MS: f64 = 30000;

/**
 * A worker republishes a hint it already wrote once it is this old, so that a hint's age stays within this of the
 * last time any worker sent its chain, and a reader can compare it with how long the endpoint keeps a block.
 */
export const HINT_REPUBLISH_MS: f64 = 2000;

/**
 * Whether a hint read from shared data may be credited: its endpoint is one the reader routes to, has not restarted
 * since the hint was published, and its cache still holds what the request held until `heldUntilMs` (when it ended,
 * or was expected to). Implemented where endpoints are known.
 */
export abstract class HintCheck {
  /** `unjudgedMaxAgeMs`: the oldest a hint may be (since its request last held its blocks) when the endpoint's cache
   *  horizon is not known. */
  abstract accepts(addrPtr: usize, addrLen: i32, publishedAtMs: f64, heldUntilMs: f64, nowMs: f64, unjudgedMaxAgeMs: f64): bool;
}

/** Landmark spacing near the end of a chain. */
const STRIDE: i32 = 16;
/** Positions written per decision, and probed per lookup, at most. */
const MAX_POSITIONS: i32 = 8;
/** Positions probed below what the worker's own index knows (a tail hint there may reach beyond it). */
const BELOW_KNOWN: i32 = 2;
/** Entries of the per-worker memo of hints already published (direct-mapped). */
const MEMO_SIZE: i32 = 4096;
// Versioned: a VM of an older build in the same process reads other keys rather than misreading these values.
const KEY_PREFIX = "endpoint_picker/hint/v2/";
const HEX_DIGITS: i32 = 6;
const MAX_ADDRESS: i32 = 64;
// Value layout: [chain hash u64][written at, ms f64][tail chunks u32][tail hash u64][held until, ms f64][address
// length u8][address bytes]; tail chunks 0 when the position carries no tail.
const TAIL_CHUNKS_AT: usize = 16;
const TAIL_HASH_AT: usize = 20;
const HELD_UNTIL_AT: usize = 28;
const ADDRESS_LEN_AT: usize = 36;
const VALUE_FIXED: i32 = 37;

/**
 * The chunk positions at which a chain of n chunks is published and probed, longest first, into `out`; returns
 * how many. The two longest multiples of STRIDE (positions 16k - 1) serve the next turn of the same
 * conversation, which probes down from its own end and meets them; the positions 2^k - 1 below serve other
 * requests that share only a beginning (a system prompt, a document) of any length. Every chain of at least
 * p + 1 chunks includes position p in this set when p is a power-of-two landmark, so two chains that share a
 * prefix always have a common position to meet at.
 */
export function hintPositions(n: i32, out: StaticArray<i32>): i32 {
  const cap = min(out.length, MAX_POSITIONS);
  let count = 0;
  let floor = n;
  if (n >= STRIDE) {
    const top = (n / STRIDE) * STRIDE - 1;
    for (let p = top; p >= STRIDE - 1 && count < 2 && count < cap; p -= STRIDE) {
      unchecked((out[count++] = p));
      floor = p;
    }
  }
  // Powers of two minus one, below the positions already taken.
  let power = 1;
  while (power <= n) power <<= 1;
  for (power >>= 1; power >= 1 && count < cap; power >>= 1) {
    const p = power - 1;
    if (p < floor) unchecked((out[count++] = p));
  }
  return count;
}

export class SharedPrefixHints {
  private readonly key: usize;
  private readonly keyLen: usize;
  private readonly value: usize;
  private readonly mask: u64;
  /** Byte i's two hex digits at 2i. */
  private readonly hexPairs: usize;
  /** After a successful lookup: the hinted endpoint's address and the chunks it is known to hold. */
  addressPtr: usize = 0;
  addressLen: i32 = 0;
  matchedChunks: i32 = 0;
  /** When the hint found by the last successful lookup was published, and until when its request held its blocks. */
  publishedAtMs: f64 = 0;
  heldUntilMs: f64 = 0;
  /** After lookupConversation: the tail of the conversation's turn that the check refused, 0 when none. */
  refusedTail: u64 = 0;
  /** After lookupConversation: the check accepted the endpoint of the conversation's previous turn. */
  previousTurnAccepted: bool = false;
  // The compare-and-swap token of the value read last.
  private readCas: u32 = 0;
  // The tail carried by the hint read last.
  private readTailChunks: i32 = 0;
  private readTailHash: u64 = 0;
  private readonly positions: StaticArray<i32> = new StaticArray<i32>(MAX_POSITIONS);
  // What this worker last published per hash: the endpoint (its address hash) and when. Requests that share a
  // beginning publish the same hints over and over; a repeat within HINT_REPUBLISH_MS (or a quarter of the hint
  // lifetime, when shorter) is skipped.
  private readonly memoHash: StaticArray<u64> = new StaticArray<u64>(MEMO_SIZE);
  private readonly memoAddress: StaticArray<u64> = new StaticArray<u64>(MEMO_SIZE);
  private readonly memoAt: StaticArray<f64> = new StaticArray<f64>(MEMO_SIZE);
  private readonly memoTail: StaticArray<u64> = new StaticArray<u64>(MEMO_SIZE);

  constructor(buckets: i32, readonly maxAgeMs: f64) {
    let b: i32 = 1;
    while (b < buckets && b < (1 << 24)) b <<= 1;
    this.mask = <u64>(b - 1);
    const prefix = String.UTF8.encode(KEY_PREFIX);
    this.keyLen = <usize>prefix.byteLength + HEX_DIGITS;
    this.key = heap.alloc(this.keyLen);
    memory.copy(this.key, changetype<usize>(prefix), prefix.byteLength);
    this.value = heap.alloc(VALUE_FIXED + MAX_ADDRESS);
    this.hexPairs = heap.alloc(512);
    for (let i = 0; i < 256; i++) {
      store<u8>(this.hexPairs + (i << 1), hexDigit(i >> 4));
      store<u8>(this.hexPairs + (i << 1), hexDigit(i & 15), 1);
    }
  }

  // The key's HEX_DIGITS lowercase digits of the bucket (below 2^24), a byte's two digits at a time.
  private setKey(hash: u64): void {
    const bucket = <u32>(hash & this.mask);
    const digits = this.key + this.keyLen - HEX_DIGITS;
    const pairs = this.hexPairs;
    store<u16>(digits, load<u16>(pairs + ((bucket >> 15) & 0x1fe)));
    store<u16>(digits, load<u16>(pairs + ((bucket >> 7) & 0x1fe)), 2);
    store<u16>(digits, load<u16>(pairs + ((bucket << 1) & 0x1fe)), 4);
  }

  /**
   * Publishes that the endpoint got this chain, at its hint positions and, when conversationKey is not 0, under
   * the key of the conversation it is the latest turn of. The request is expected to hold its blocks until
   * heldUntilMs (the engine frees them when it ends). addressId names the endpoint in the memo of hints already
   * published: the registry's addressHash of its address, kept per slot rather than hashed again here.
   */
  publish(
    hashes: StaticArray<u64>, n: i32, addrPtr: usize, addrLen: i32, addressId: u64, nowMs: f64, heldUntilMs: f64,
    conversationKey: u64 = 0,
  ): void {
    if (addrLen <= 0 || addrLen > MAX_ADDRESS) return;
    if (n > hashes.length) n = hashes.length;
    if (n <= 0) return;
    store<f64>(this.value, nowMs, 8);
    store<f64>(this.value + HELD_UNTIL_AT, heldUntilMs);
    store<u8>(this.value + ADDRESS_LEN_AT, <u8>addrLen);
    memory.copy(this.value + VALUE_FIXED, addrPtr, <usize>addrLen);
    const refreshAfter = min(this.maxAgeMs * 0.25, HINT_REPUBLISH_MS);
    const count = hintPositions(n, this.positions);
    const carriers = tailCarriers(this.positions, count);
    const tailHash = unchecked(hashes[n - 1]);
    for (let i = 0; i < count; i++) {
      const h = unchecked(hashes[unchecked(this.positions[i])]);
      const withTail = (carriers & (<u32>1 << <u32>i)) != 0;
      const tail: u64 = withTail ? tailHash : 0;
      if (this.publishedRecently(h, addressId, tail, nowMs, refreshAfter)) continue;
      this.write(h, withTail ? n : 0, tail, addrLen);
    }
    if (conversationKey != 0 && !this.publishedRecently(conversationKey, addressId, tailHash, nowMs, refreshAfter)) {
      this.write(conversationKey, n, tailHash, addrLen);
    }
  }

  /**
   * The request of a conversation's latest turn (a chain of n chunks ending in tailHash, sent to the endpoint at
   * addrPtr at decidedAtMs) ended at endMs: its hint now says its blocks were held until then, unless another turn
   * or endpoint has replaced it meanwhile. A request with the same chain published after this one's decision still
   * holds the blocks until its own expected end, if that is later. One shared-data read and, when still ours, one
   * compare-and-swap write.
   */
  conversationEnded(key: u64, n: i32, tailHash: u64, addrPtr: usize, addrLen: i32, decidedAtMs: f64, endMs: f64): void {
    // However long ago it was published: a request may run longer than a hint lives.
    if (key == 0 || addrLen <= 0 || addrLen > MAX_ADDRESS || !this.read(key, endMs, Infinity)) return;
    if (this.readTailChunks != n || this.readTailHash != tailHash || this.addressLen != addrLen) return;
    if (memory.compare(this.addressPtr, addrPtr, <usize>addrLen) != 0) return;
    let heldUntil = endMs;
    if (this.publishedAtMs > decidedAtMs && this.heldUntilMs > heldUntil) heldUntil = this.heldUntilMs;
    if (heldUntil == this.heldUntilMs) return;
    // The value is rebuilt as it was read, with when the blocks were held until.
    store<f64>(this.value, this.publishedAtMs, 8);
    store<f64>(this.value + HELD_UNTIL_AT, heldUntil);
    store<u8>(this.value + ADDRESS_LEN_AT, <u8>addrLen);
    memory.copy(this.value + VALUE_FIXED, addrPtr, <usize>addrLen);
    this.write(key, n, tailHash, addrLen, this.readCas);
  }

  /**
   * Reads the hint of the conversation named by `key`: true when a worker published, within the hints' maximum age, a
   * turn that this chain extends and that holds more than `knownChunks` chunks; the
   * fields are then set as for lookup (matchedChunks = that turn's length). When `check` refuses such a turn,
   * refusedTail names it (0 otherwise), for lookup to pass over the landmarks its request published: the
   * conversation's hint, re-stamped when the request ended, is the one that knows when it released its blocks.
   * previousTurnAccepted says whether `check` accepted the endpoint of a turn this chain extends, however long: then
   * it served the conversation's previous turn, which several endpoints may match as far (a shared preamble and a
   * first message shorter than a chunk). One shared-data read.
   */
  lookupConversation(key: u64, hashes: StaticArray<u64>, n: i32, knownChunks: i32, nowMs: f64, check: HintCheck): bool {
    this.refusedTail = 0;
    this.previousTurnAccepted = false;
    if (key == 0 || !this.read(key, nowMs, this.maxAgeMs)) return false;
    n = min(n, hashes.length);
    if (!extendsTail(hashes, n, this.readTailChunks, this.readTailHash)) return false;
    const longer = this.readTailChunks > knownChunks;
    if (!check.accepts(this.addressPtr, this.addressLen, this.publishedAtMs, this.heldUntilMs, nowMs, CONVERSATION_MAX_AGE_MS)) {
      if (longer) this.refusedTail = this.readTailHash;
      return false;
    }
    this.previousTurnAccepted = true;
    this.matchedChunks = this.readTailChunks;
    return longer;
  }

  /**
   * Looks for the longest hint, beyond `knownChunks`, that a worker published. True when found:
   * `addressPtr/addressLen` name the endpoint (valid until the next lookup) and `matchedChunks` is the
   * position's length, or the publishing chain's whole length when this chain extends it. Positions up to
   * BELOW_KNOWN under `knownChunks` are probed too, for a tail that reaches past what this worker knows. A hint
   * `check` refuses, or that carries `passOverTail` (a turn already refused), is passed over for a shorter one.
   */
  lookup(hashes: StaticArray<u64>, n: i32, knownChunks: i32, nowMs: f64, check: HintCheck, passOverTail: u64 = 0): bool {
    const count = hintPositions(min(n, hashes.length), this.positions);
    let below = 0;
    for (let i = 0; i < count; i++) {
      const p = unchecked(this.positions[i]);
      if (p < knownChunks && ++below > BELOW_KNOWN) break;
      if (!this.read(unchecked(hashes[p]), nowMs, this.maxAgeMs)) continue;
      if (passOverTail != 0 && this.readTailChunks > 0 && this.readTailHash == passOverTail) continue;
      if (!check.accepts(this.addressPtr, this.addressLen, this.publishedAtMs, this.heldUntilMs, nowMs, Infinity)) continue;
      const extended = this.readTailChunks > p + 1 && extendsTail(hashes, n, this.readTailChunks, this.readTailHash);
      this.matchedChunks = extended ? this.readTailChunks : p + 1;
      if (this.matchedChunks > knownChunks) return true;
    }
    return false;
  }

  // Writes the value prepared by publish (times and address) under hash h, with the tail it carries; cas 0
  // writes whatever is there.
  private write(h: u64, tailChunks: i32, tailHash: u64, addrLen: i32, cas: u32 = 0): void {
    store<u64>(this.value, h);
    store<u32>(this.value + TAIL_CHUNKS_AT, <u32>tailChunks);
    store<u64>(this.value + TAIL_HASH_AT, tailHash);
    this.setKey(h);
    proxy_set_shared_data(this.key, this.keyLen, this.value, <usize>(VALUE_FIXED + addrLen), cas);
  }

  // Whether this worker published the same hint (hash, endpoint, tail) less than refreshAfter ago; if not, it is
  // remembered as published now.
  private publishedRecently(h: u64, addressId: u64, tail: u64, nowMs: f64, refreshAfter: f64): bool {
    const m = <i32>(h & <u64>(MEMO_SIZE - 1));
    if (
      unchecked(this.memoHash[m]) == h && unchecked(this.memoAddress[m]) == addressId &&
      unchecked(this.memoTail[m]) == tail && nowMs - unchecked(this.memoAt[m]) < refreshAfter
    ) return true;
    unchecked((this.memoHash[m] = h));
    unchecked((this.memoAddress[m] = addressId));
    unchecked((this.memoTail[m] = tail));
    unchecked((this.memoAt[m] = nowMs));
    return false;
  }

  // The hint stored for hash h, if it is h's and its request held its blocks at most maxAgeMs ago (its publish time,
  // or the end it was stamped with when later): sets addressPtr/addressLen (in
  // this.value), publishedAtMs, heldUntilMs, the tail it carries (readTailChunks 0 when none) and readCas. One
  // shared-data read.
  private read(h: u64, nowMs: f64, maxAgeMs: f64): bool {
    this.setKey(h);
    clearOutParams();
    if (proxy_get_shared_data(this.key, this.keyLen, OUT_PTR, OUT_LEN, OUT_EXTRA) != Status.Ok) return false;
    const ptr = <usize>load<u32>(OUT_PTR);
    const len = <i32>load<u32>(OUT_LEN);
    let found = false;
    if (ptr != 0 && len >= VALUE_FIXED && load<u64>(ptr) == h && nowMs - lastHeldMs(load<f64>(ptr, 8), load<f64>(ptr + HELD_UNTIL_AT)) <= maxAgeMs) {
      const addrLen = <i32>load<u8>(ptr + ADDRESS_LEN_AT);
      if (addrLen > 0 && addrLen <= MAX_ADDRESS && VALUE_FIXED + addrLen <= len) {
        memory.copy(this.value, ptr + VALUE_FIXED, <usize>addrLen);
        this.addressPtr = this.value;
        this.addressLen = addrLen;
        this.readTailChunks = <i32>load<u32>(ptr + TAIL_CHUNKS_AT);
        this.readTailHash = load<u64>(ptr + TAIL_HASH_AT);
        this.publishedAtMs = load<f64>(ptr, 8);
        this.heldUntilMs = load<f64>(ptr + HELD_UNTIL_AT);
        this.readCas = load<u32>(OUT_EXTRA);
        found = true;
      }
    }
    // Through the kept block: the next host allocation that fits (this read's next one, a header map) takes it.
    if (ptr != 0) releaseHostBuffer(ptr);
    return found;
  }
}

function hexDigit(d: i32): u8 {
  return <u8>(d < 10 ? 48 + d : 87 + d);
}

/** When a hint's request last held its blocks: its publish time, or the end it carries when that is later. A hint's
 *  age counts from here. */
// @ts-ignore: decorator
@inline
export function lastHeldMs(publishedAtMs: f64, heldUntilMs: f64): f64 {
  return heldUntilMs > publishedAtMs ? heldUntilMs : publishedAtMs;
}
