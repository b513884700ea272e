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

/** Reused by every serialization (the host is single-threaded); grows to the largest map seen. */
let scratch = new Uint8Array(4096);

/**
 * The map serialized into a reused host buffer, valid until the next call. The keys and values, each followed by
 * its NUL, are one string encoded by one TextEncoder call; when that string is ASCII, as headers nearly always are,
 * each length is its string's.
 */
export function serializeToScratch(pairs: HeaderList): Uint8Array {
  const data = dataText(pairs);
  const tableEnd = 4 + pairs.length * 8;
  // A UTF-16 unit is at most 3 UTF-8 bytes, so this always has room.
  const worst = tableEnd + 3 * data.length;
  if (scratch.length < worst) scratch = new Uint8Array(Math.max(worst, scratch.length * 2));
  const out = scratch;
  const written = enc.encodeInto(data, out.subarray(tableEnd)).written;
  putTable(pairs, written === data.length, out, 0);
  return out.subarray(0, tableEnd + written);
}

/** The keys and values as one string, each followed by its NUL: the serialized map's data section, as text. */
function dataText(pairs: HeaderList): string {
  let data = "";
  for (let i = 0; i < pairs.length; i++) data += pairs[i][0] + "\0" + pairs[i][1] + "\0";
  return data;
}

/** Writes the pair count and each key's and value's byte length at `at`: its string's length when `ascii`. */
function putTable(pairs: HeaderList, ascii: boolean, out: Uint8Array, at: number): void {
  putU32(out, at, pairs.length);
  for (let i = 0; i < pairs.length; i++) {
    const key = pairs[i][0];
    const value = pairs[i][1];
    putU32(out, at + 4 + i * 8, ascii ? key.length : utf8Length(key));
    putU32(out, at + 8 + i * 8, ascii ? value.length : utf8Length(value));
  }
}

export function serializeHeaderMap(pairs: HeaderList): Uint8Array {
  return serializeToScratch(pairs).slice();
}

/** Where maps that arrive with a request are serialized: one slab serves many maps, as Envoy's header strings come
 *  from its allocator's pooled memory (an ArrayBuffer per request cost the host about a microsecond of allocation and
 *  collection). A slab stays alive while any map in it does. */
const SLAB_BYTES = 64 * 1024;
let slab = new Uint8Array(SLAB_BYTES);
let slabAt = 0;

/**
 * serializeHeaderMap for a map that arrives with a request, encoded straight into the slab (no scratch copy); a map
 * whose worst case is over a quarter of a slab gets an array of its own.
 */
export function serializeArrivingHeaderMap(pairs: HeaderList): Uint8Array {
  const data = dataText(pairs);
  const tableEnd = 4 + pairs.length * 8;
  // A UTF-16 unit is at most 3 UTF-8 bytes, so this always has room.
  const worst = tableEnd + 3 * data.length;
  if (worst > SLAB_BYTES / 4) return serializeHeaderMap(pairs);
  if (slabAt + worst > SLAB_BYTES) {
    slab = new Uint8Array(SLAB_BYTES);
    slabAt = 0;
  }
  const start = slabAt;
  const written = enc.encodeInto(data, slab.subarray(start + tableEnd, start + worst)).written;
  putTable(pairs, written === data.length, slab, start);
  const end = start + tableEnd + written;
  slabAt = (end + 7) & ~7;
  return slab.subarray(start, end);
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
