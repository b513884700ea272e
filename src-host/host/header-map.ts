// Serialized header maps (spec "Serialization"): u32 count, u32 key/value lengths per pair, then each key
// and value followed by NUL. Little-endian.

export type HeaderList = Array<[string, string]>;

const enc = new TextEncoder();
const dec = new TextDecoder();

function putU32(out: Uint8Array, at: number, v: number): void {
  out[at] = v & 0xff;
  out[at + 1] = (v >>> 8) & 0xff;
  out[at + 2] = (v >>> 16) & 0xff;
  out[at + 3] = v >>> 24;
}

/** The UTF-8 length of `s` as TextEncoder writes it (a lone surrogate is U+FFFD, 3 bytes). */
function utf8Length(s: string): number {
  const n = s.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: 2 units, 4 bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
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

/** cpp-host src/pairs_util.cc PairsUtil::pairsSize: the serialized size of the map. */
export function serializedSize(pairs: HeaderList): number {
  let size = 4;
  for (let i = 0; i < pairs.length; i++) size += 10 + utf8Length(pairs[i][0]) + utf8Length(pairs[i][1]);
  return size;
}

/** PairsUtil::marshalPairs: writes the map at `at` in `out`, which has serializedSize(pairs) bytes there. */
export function writeSerialized(pairs: HeaderList, out: Uint8Array, at: number): void {
  const n = pairs.length;
  putU32(out, at, n);
  let data = at + 4 + n * 8;
  for (let i = 0; i < n; i++) {
    const kl = putText(out, data, pairs[i][0]);
    data += kl;
    out[data++] = 0;
    const vl = putText(out, data, pairs[i][1]);
    data += vl;
    out[data++] = 0;
    putU32(out, at + 4 + i * 8, kl);
    putU32(out, at + 8 + i * 8, vl);
  }
}

export function serializeHeaderMap(pairs: HeaderList): Uint8Array {
  const out = new Uint8Array(serializedSize(pairs));
  writeSerialized(pairs, out, 0);
  return out;
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
