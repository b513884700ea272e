// The two request headers that key a decision besides its body: the salt (hashed into the chain's seed, so
// tenants with different salts never share cached prefixes) and the session (sticky routing). Each header
// value is hashed as soon as it is read, so its buffer goes back at once.
import { getHeaderValueRaw, Returned, Utf8 } from "../abi/host";
import { MapType, Status } from "../abi/types";
import { hashNameBytes } from "../endpoints/name-hash";
import { xxh64 } from "../prefix/xxh64";

const SALT_HASH_SEED: u64 = 0x5a17_5a17_5a17_5a17;

/** Writes the salt header's hash to `hashOut`; returns its length (8), or 0 when there is no salt. */
export function readSaltHash(salt: Utf8 | null, scratch: Returned, hashOut: usize): usize {
  if (salt === null || getHeaderValueRaw(MapType.HttpRequestHeaders, salt, scratch) != Status.Ok) return 0;
  let len: usize = 0;
  if (scratch.len > 0) {
    store<u64>(hashOut, xxh64(scratch.ptr, scratch.len, SALT_HASH_SEED));
    len = 8;
  }
  scratch.release();
  return len;
}

/** The session header's hash (odd, so never 0), or 0 when the request names no session. */
export function readSessionHash(session: Utf8 | null, scratch: Returned): u64 {
  if (session === null || getHeaderValueRaw(MapType.HttpRequestHeaders, session, scratch) != Status.Ok) return 0;
  const hash: u64 = scratch.len > 0 ? hashNameBytes(scratch.ptr, scratch.len) | 1 : 0;
  scratch.release();
  return hash;
}
