// Serialized header maps (spec "Serialization"): u32 count, u32 key/value lengths per pair, then each key
// and value followed by NUL. Little-endian.

export type HeaderList = Array<[string, string]>;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Reused by every serialization (the host is single-threaded); grows to the largest map seen. */
let scratch = new Uint8Array(4096);

function putU32(out: Uint8Array, at: number, v: number): void {
  out[at] = v & 0xff;
  out[at + 1] = (v >>> 8) & 0xff;
  out[at + 2] = (v >>> 16) & 0xff;
  out[at + 3] = v >>> 24;
}

/** Writes `s` as UTF-8 at `at`; returns the bytes written. A character at a time while ASCII, then encodeInto. */
function putText(out: Uint8Array, at: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return i + enc.encodeInto(s.slice(i), out.subarray(at + i)).written;
    out[at + i] = c;
  }
  return n;
}

/** The map serialized: written in one pass into a reused host buffer (no encoded copy of each name or value), then
 *  copied out at its exact size. */
export function serializeHeaderMap(pairs: HeaderList): Uint8Array {
  const n = pairs.length;
  // A UTF-16 unit is at most 3 UTF-8 bytes, so this always has room.
  let worst = 4 + n * 8;
  for (let i = 0; i < n; i++) worst += 3 * (pairs[i][0].length + pairs[i][1].length) + 2;
  if (scratch.length < worst) scratch = new Uint8Array(Math.max(worst, scratch.length * 2));
  const out = scratch;
  putU32(out, 0, n);
  let data = 4 + n * 8;
  for (let i = 0; i < n; i++) {
    const kl = putText(out, data, pairs[i][0]);
    data += kl;
    out[data++] = 0;
    const vl = putText(out, data, pairs[i][1]);
    data += vl;
    out[data++] = 0;
    putU32(out, 4 + i * 8, kl);
    putU32(out, 8 + i * 8, vl);
  }
  return out.slice(0, data);
}

/** cpp-host include/proxy-wasm/limits.h PROXY_WASM_HOST_PAIRS_MAX_BYTES / _MAX_COUNT. */
const PAIRS_MAX_BYTES = 1024 * 1024;
const PAIRS_MAX_COUNT = 1024;

/**
 * cpp-host src/pairs_util.cc PairsUtil::toPairs, how the host reads a map a module passes in: anything
 * malformed (short, sizes past the end, a missing NUL, bytes left over, over the limits) is the empty map.
 */
export function toPairs(bytes: Uint8Array): HeaderList {
  if (bytes.length < 4 || bytes.length > PAIRS_MAX_BYTES) return [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(0, true);
  if (n > PAIRS_MAX_COUNT || 4 + n * 8 > bytes.length) return [];
  const out: HeaderList = [];
  let at = 4 + n * 8;
  for (let i = 0; i < n; i++) {
    const kl = view.getUint32(4 + i * 8, true);
    const vl = view.getUint32(8 + i * 8, true);
    if (at + kl + 1 > bytes.length || bytes[at + kl] !== 0) return [];
    const key = dec.decode(bytes.subarray(at, at + kl));
    at += kl + 1;
    if (at + vl + 1 > bytes.length || bytes[at + vl] !== 0) return [];
    out.push([key, dec.decode(bytes.subarray(at, at + vl))]);
    at += vl + 1;
  }
  return at === bytes.length ? out : [];
}
