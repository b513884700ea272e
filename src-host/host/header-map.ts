// Serialized header maps (spec "Serialization"): u32 count, u32 key/value lengths per pair, then each key
// and value followed by NUL. Little-endian.

export type HeaderList = Array<[string, string]>;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** UTF-8 length of `s`, or -1 when it has a character outside ASCII (the caller then encodes it). */
function asciiLength(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return -1;
  return s.length;
}

function writeAscii(out: Uint8Array, at: number, s: string): void {
  for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
}

/** The serialized size of `pairs`, or -1 when a key or value is not ASCII. */
export function serializedAsciiSize(pairs: HeaderList): number {
  let size = 4 + pairs.length * 8;
  for (let i = 0; i < pairs.length; i++) {
    const kl = asciiLength(pairs[i][0]);
    const vl = asciiLength(pairs[i][1]);
    if (kl < 0 || vl < 0) return -1;
    size += kl + vl + 2;
  }
  return size;
}

/**
 * Writes `pairs` into `out` at `at` (exactly serializedAsciiSize bytes; every key and value ASCII). Header
 * maps are nearly always ASCII, and writing their characters directly keeps a host call from allocating an
 * encoded copy of every name and value (Envoy copies the map's bytes straight into the module's memory).
 */
export function writeAsciiHeaderMap(pairs: HeaderList, out: Uint8Array, at: number): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(at, pairs.length, true);
  let data = at + 4 + pairs.length * 8;
  for (let i = 0; i < pairs.length; i++) {
    const k = pairs[i][0];
    const v = pairs[i][1];
    view.setUint32(at + 4 + i * 8, k.length, true);
    view.setUint32(at + 8 + i * 8, v.length, true);
    writeAscii(out, data, k);
    data += k.length;
    out[data++] = 0;
    writeAscii(out, data, v);
    data += v.length;
    out[data++] = 0;
  }
}

export function serializeHeaderMap(pairs: HeaderList): Uint8Array {
  const asciiSize = serializedAsciiSize(pairs);
  if (asciiSize >= 0) {
    const out = new Uint8Array(asciiSize);
    writeAsciiHeaderMap(pairs, out, 0);
    return out;
  }
  const encoded = pairs.map(([k, v]) => [enc.encode(k), enc.encode(v)] as const);
  let size = 4 + encoded.length * 8;
  for (const [k, v] of encoded) size += k.length + v.length + 2;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, encoded.length, true);
  let data = 4 + encoded.length * 8;
  encoded.forEach(([k, v], i) => {
    view.setUint32(4 + i * 8, k.length, true);
    view.setUint32(8 + i * 8, v.length, true);
    out.set(k, data);
    data += k.length + 1;
    out.set(v, data);
    data += v.length + 1;
  });
  return out;
}

/** Parses a serialized map; throws on malformed input. Zero bytes or a single 0x00 byte is the empty map. */
export function deserializeHeaderMap(bytes: Uint8Array): HeaderList {
  if (bytes.length <= 1) {
    if (bytes.length === 1 && bytes[0] !== 0) throw new Error("malformed header map: 1 byte, not 0x00");
    return [];
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 4) throw new Error("malformed header map: short count");
  const n = view.getUint32(0, true);
  if (4 + n * 8 > bytes.length) throw new Error("malformed header map: sizes past end");
  const out: HeaderList = [];
  let data = 4 + n * 8;
  for (let i = 0; i < n; i++) {
    const kl = view.getUint32(4 + i * 8, true);
    const vl = view.getUint32(8 + i * 8, true);
    if (data + kl + vl + 2 > bytes.length) throw new Error("malformed header map: data past end");
    if (bytes[data + kl] !== 0 || bytes[data + kl + 1 + vl] !== 0) throw new Error("malformed header map: missing NUL");
    const k = dec.decode(bytes.subarray(data, data + kl));
    const v = dec.decode(bytes.subarray(data + kl + 1, data + kl + 1 + vl));
    out.push([k, v]);
    data += kl + vl + 2;
  }
  return out;
}
