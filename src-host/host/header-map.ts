// Serialized header maps (spec "Serialization"): u32 count, u32 key/value lengths per pair, then each key
// and value followed by NUL. Little-endian.

import { isAscii } from "./ascii-text.ts";

export type HeaderList = Array<[string, string]>;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** UTF-8 bytes of `s`. */
function byteLength(s: string): number {
  return isAscii(s) ? s.length : Buffer.byteLength(s, "utf8");
}

/** Writes `s` as UTF-8 at `at`; returns the bytes written. One pass for ASCII, re-encoded past it. */
function writeText(out: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return enc.encodeInto(s, out.subarray(at)).written;
    out[at + i] = c;
  }
  return s.length;
}

/** The serialized size of `pairs`. */
export function serializedSize(pairs: HeaderList): number {
  let size = 4 + pairs.length * 8;
  for (let i = 0; i < pairs.length; i++) size += byteLength(pairs[i][0]) + byteLength(pairs[i][1]) + 2;
  return size;
}

/**
 * Writes `pairs` into `out` at `at` (exactly serializedSize bytes). ASCII names and values, nearly all of
 * them, are written a character at a time, so a host call allocates no encoded copy of each (Envoy copies the
 * map's bytes straight into the module's memory).
 */
export function writeHeaderMap(pairs: HeaderList, out: Uint8Array, at: number): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(at, pairs.length, true);
  let data = at + 4 + pairs.length * 8;
  for (let i = 0; i < pairs.length; i++) {
    const kl = writeText(out, data, pairs[i][0]);
    data += kl;
    out[data++] = 0;
    const vl = writeText(out, data, pairs[i][1]);
    data += vl;
    out[data++] = 0;
    view.setUint32(at + 4 + i * 8, kl, true);
    view.setUint32(at + 8 + i * 8, vl, true);
  }
}

export function serializeHeaderMap(pairs: HeaderList): Uint8Array {
  const out = new Uint8Array(serializedSize(pairs));
  writeHeaderMap(pairs, out, 0);
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
