// The value a replica hint stores under a chain position's key, as text:
// "@<published>,<held until>,<gateway>,<address>": the two times in whole milliseconds of the wall clock (every
// replica reads the same one, within NTP's skew), when the pick was made and when its request is expected to
// release its blocks; the publishing gateway (gateway-identity.ts) in 16 hex digits; the endpoint. A reader credits
// a hint only if the endpoint's engine has not restarted since it was published, and its own gateway's hints only
// within the endpoint's cache horizon, as its shared-data hints (core/hint-endpoint-check.ts); a TTL alone would
// name an emptied cache for as long as the key lives. A value in any other form (the first version's bare address)
// is not credited.

import { writeDecimal, writeHex16 } from "../text/ascii-numbers";

/** Longest endpoint address a hint carries. */
export const MAX_HINT_ADDRESS: i32 = 64;
/** Digits of a time: milliseconds since 1970 take 13 until the year 2286. */
const MAX_TIME_DIGITS: i32 = 16;
/** writeHex16's digits. */
const GATEWAY_DIGITS: i32 = 16;
/** Longest value: "@", two times, the gateway, three commas, the address. */
export const MAX_HINT_VALUE: i32 = 1 + 2 * MAX_TIME_DIGITS + GATEWAY_DIGITS + 3 + MAX_HINT_ADDRESS;

const AT: u8 = 0x40;
const COMMA: u8 = 0x2c;

// @ts-ignore: decorator
@inline
function wholeMs(ms: f64): i64 {
  if (!(ms >= 0)) return 0; // NaN too
  return ms < 1e15 ? <i64>Math.floor(ms) : 999_999_999_999_999;
}

/** Writes a hint's value at `out` (MAX_HINT_VALUE bytes); returns its length, or 0 when the address does not fit. */
export function writeReplicaHint(
  out: usize, publishedAtMs: f64, heldUntilMs: f64, gateway: u64, addrPtr: usize, addrLen: i32,
): i32 {
  if (addrLen <= 0 || addrLen > MAX_HINT_ADDRESS) return 0;
  const published = wholeMs(publishedAtMs);
  // Never before its publication: a request is expected to hold its blocks at least until it was routed.
  const held = heldUntilMs > publishedAtMs ? wholeMs(heldUntilMs) : published;
  let at = 0;
  store<u8>(out, AT);
  at++;
  at += writeDecimal(out + <usize>at, published);
  store<u8>(out + <usize>at, COMMA);
  at++;
  at += writeDecimal(out + <usize>at, held);
  store<u8>(out + <usize>at, COMMA);
  at++;
  writeHex16(out + <usize>at, gateway);
  at += GATEWAY_DIGITS;
  store<u8>(out + <usize>at, COMMA);
  at++;
  memory.copy(out + <usize>at, addrPtr, <usize>addrLen);
  return at + addrLen;
}

/** One value read back; its fields hold until the next read. The address points into the value read. */
export class ReplicaHintReader {
  publishedAtMs: f64 = 0;
  heldUntilMs: f64 = 0;
  gateway: u64 = 0;
  addressPtr: usize = 0;
  addressLen: i32 = 0;
  private pos: usize = 0;
  private end: usize = 0;

  /** Whether [ptr, ptr + len) is a hint's value; the fields are set when it is. */
  read(ptr: usize, len: i32): bool {
    if (len < 6 || load<u8>(ptr) != AT) return false;
    this.pos = ptr + 1;
    this.end = ptr + <usize>len;
    const published = this.decimal();
    if (published < 0 || !this.comma()) return false;
    const held = this.decimal();
    if (held < 0 || !this.comma() || !this.hex() || !this.comma()) return false;
    const addressLen = <i32>(this.end - this.pos);
    if (addressLen <= 0 || addressLen > MAX_HINT_ADDRESS) return false;
    this.publishedAtMs = <f64>published;
    this.heldUntilMs = <f64>held;
    this.addressPtr = this.pos;
    this.addressLen = addressLen;
    return true;
  }

  /** A run of 1 to MAX_TIME_DIGITS digits; -1 when there is none or it is longer. */
  private decimal(): i64 {
    let v: i64 = 0;
    let digits = 0;
    while (this.pos < this.end) {
      const c = <i32>load<u8>(this.pos);
      if (c < 48 || c > 57) break;
      if (++digits > MAX_TIME_DIGITS) return -1;
      v = v * 10 + <i64>(c - 48);
      this.pos++;
    }
    return digits > 0 ? v : -1;
  }

  /** Exactly GATEWAY_DIGITS lower-case hex digits, into `gateway`. */
  private hex(): bool {
    if (this.end - this.pos < <usize>GATEWAY_DIGITS) return false;
    let v: u64 = 0;
    for (let i = 0; i < GATEWAY_DIGITS; i++) {
      const c = <i32>load<u8>(this.pos + <usize>i);
      let d: i32;
      if (c >= 48 && c <= 57) d = c - 48;
      else if (c >= 97 && c <= 102) d = c - 87;
      else return false;
      v = (v << 4) | <u64>d;
    }
    this.pos += <usize>GATEWAY_DIGITS;
    this.gateway = v;
    return true;
  }

  private comma(): bool {
    if (this.pos >= this.end || load<u8>(this.pos) != COMMA) return false;
    this.pos++;
    return true;
  }
}
