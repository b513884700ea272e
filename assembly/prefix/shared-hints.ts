// Cross-worker prefix hints. Envoy runs one VM per worker thread, so each worker's prefix index only knows
// the requests that worker routed; a conversation whose turns arrive on different connections would look new
// to every other worker. After each decision the picker also writes, in process-wide shared data, which
// endpoint got the chain at a few "landmark" positions; a worker whose own index knows less probes those
// landmarks. The table is bounded: a fixed number of keys, each holding the last hint whose hash maps there
// (a collision just overwrites an older hint), so shared memory stays constant however long Envoy runs.
import { proxy_get_shared_data, proxy_set_shared_data } from "../abi/imports";
import { OUT_EXTRA, OUT_LEN, OUT_PTR, clearOutParams } from "../abi/memory";
import { Status } from "../abi/types";

/** Landmarks: chunk positions 0, 1, 3, 7 and every STRIDE-th after that (positions p with p + 1 = 16k). */
const STRIDE: i32 = 16;
/** Landmarks written per decision, and probed per lookup, at most. Two writes suffice for the case the hints
 *  exist for — the next turn of a conversation probes down from its own top landmark and meets ours — and keep
 *  the shared-data traffic at two writes per request; shorter shared prefixes are left to each worker's index. */
const MAX_WRITES: i32 = 2;
const MAX_PROBES: i32 = 8;
const KEY_PREFIX = "endpoint_picker/hint/";
const HEX_DIGITS: i32 = 6;
const MAX_ADDRESS: i32 = 64;
// Value layout: [chain hash u64][written at, ms f64][address length u8][address bytes].
const VALUE_FIXED: i32 = 17;

/** The largest landmark position < n, or -1. */
export function topLandmark(n: i32): i32 {
  if (n <= 0) return -1;
  if (n >= STRIDE) return ((n / STRIDE) * STRIDE) - 1;
  let p = 0;
  while (((p + 1) << 1) - 1 < n) p = ((p + 1) << 1) - 1;
  return p;
}

/** The landmark below position p (a landmark), or -1. */
export function previousLandmark(p: i32): i32 {
  if (p <= 0) return -1;
  if (p + 1 > STRIDE) return p - STRIDE;
  return ((p + 1) >> 1) - 1;
}

export class SharedPrefixHints {
  private readonly key: usize;
  private readonly keyLen: usize;
  private readonly value: usize;
  private readonly mask: u64;
  /** After a successful lookup: the hinted endpoint's address and the chunks it is known to hold. */
  addressPtr: usize = 0;
  addressLen: i32 = 0;
  matchedChunks: i32 = 0;

  constructor(buckets: i32, readonly maxAgeMs: f64) {
    let b: i32 = 1;
    while (b < buckets && b < (1 << 24)) b <<= 1;
    this.mask = <u64>(b - 1);
    const prefix = String.UTF8.encode(KEY_PREFIX);
    this.keyLen = <usize>prefix.byteLength + HEX_DIGITS;
    this.key = heap.alloc(this.keyLen);
    memory.copy(this.key, changetype<usize>(prefix), prefix.byteLength);
    this.value = heap.alloc(VALUE_FIXED + MAX_ADDRESS);
  }

  private setKey(hash: u64): void {
    let bucket = hash & this.mask;
    const digits = this.key + this.keyLen - HEX_DIGITS;
    for (let i = HEX_DIGITS - 1; i >= 0; i--) {
      const d = <u32>(bucket & 15);
      store<u8>(digits + i, <u8>(d < 10 ? 48 + d : 87 + d));
      bucket >>= 4;
    }
  }

  /** Publishes that the endpoint got this chain, at up to MAX_WRITES landmarks from the longest down. */
  publish(hashes: StaticArray<u64>, n: i32, addrPtr: usize, addrLen: i32, nowMs: f64): void {
    if (addrLen <= 0 || addrLen > MAX_ADDRESS) return;
    store<f64>(this.value, nowMs, 8);
    store<u8>(this.value, <u8>addrLen, 16);
    memory.copy(this.value + VALUE_FIXED, addrPtr, <usize>addrLen);
    let written = 0;
    for (let p = topLandmark(min(n, hashes.length)); p >= 0 && written < MAX_WRITES; p = previousLandmark(p)) {
      const h = unchecked(hashes[p]);
      store<u64>(this.value, h);
      this.setKey(h);
      proxy_set_shared_data(this.key, this.keyLen, this.value, <usize>(VALUE_FIXED + addrLen), 0);
      written++;
    }
  }

  /**
   * Looks for the longest landmark beyond `knownChunks` that another worker published. True when found:
   * `addressPtr/addressLen` name the endpoint (valid until the next lookup) and `matchedChunks` is the
   * landmark's length.
   */
  lookup(hashes: StaticArray<u64>, n: i32, knownChunks: i32, nowMs: f64): bool {
    let probes = 0;
    for (let p = topLandmark(min(n, hashes.length)); p >= knownChunks && probes < MAX_PROBES; p = previousLandmark(p)) {
      probes++;
      const h = unchecked(hashes[p]);
      this.setKey(h);
      clearOutParams();
      if (proxy_get_shared_data(this.key, this.keyLen, OUT_PTR, OUT_LEN, OUT_EXTRA) != Status.Ok) continue;
      const ptr = <usize>load<u32>(OUT_PTR);
      const len = <i32>load<u32>(OUT_LEN);
      let found = false;
      if (ptr != 0 && len >= VALUE_FIXED && load<u64>(ptr) == h && nowMs - load<f64>(ptr, 8) <= this.maxAgeMs) {
        const addrLen = <i32>load<u8>(ptr, 16);
        if (addrLen > 0 && addrLen <= MAX_ADDRESS && VALUE_FIXED + addrLen <= len) {
          memory.copy(this.value, ptr + VALUE_FIXED, <usize>addrLen);
          this.addressPtr = this.value;
          this.addressLen = addrLen;
          this.matchedChunks = p + 1;
          found = true;
        }
      }
      if (ptr != 0) heap.free(ptr);
      if (found) return true;
    }
    return false;
  }
}
