// RESP framing for the host's Redis client: where one complete reply ends in a byte stream, and how a
// command is written. Written for this project (RESP2 plus the RESP3 null), not taken from a client library.

const CR = 13;
const LF = 10;

/** Thrown on bytes that cannot be a RESP reply. */
export class RespProtocolError extends Error {}

function lineEnd(buf: Uint8Array, from: number): number {
  for (let i = from; i + 1 < buf.length; i++) if (buf[i] === CR && buf[i + 1] === LF) return i;
  return -1;
}

function lineNumber(buf: Uint8Array, from: number, end: number): number {
  const text = new TextDecoder().decode(buf.subarray(from, end));
  if (!/^-?\d+$/.test(text)) throw new RespProtocolError(`bad RESP length ${JSON.stringify(text)}`);
  return Number(text);
}

/** The length of the complete reply starting at `at`, or -1 if more bytes are needed. */
export function replyLength(buf: Uint8Array, at = 0): number {
  if (at >= buf.length) return -1;
  const end = lineEnd(buf, at + 1);
  if (end < 0) return -1;
  const type = buf[at];
  const afterLine = end + 2 - at;
  switch (type) {
    case 0x2b: // + simple string
    case 0x2d: // - error
    case 0x3a: // : integer
    case 0x5f: // _ RESP3 null
      return afterLine;
    case 0x24: {
      // $ bulk string
      const n = lineNumber(buf, at + 1, end);
      if (n < 0) return afterLine;
      return end + 2 + n + 2 <= buf.length ? afterLine + n + 2 : -1;
    }
    case 0x2a: {
      // * array
      const n = lineNumber(buf, at + 1, end);
      let pos = end + 2;
      for (let i = 0; i < n; i++) {
        const len = replyLength(buf, pos);
        if (len < 0) return -1;
        pos += len;
      }
      return pos - at;
    }
  }
  throw new RespProtocolError(`unexpected RESP type byte 0x${type.toString(16)}`);
}

/** A command as an array of bulk strings. */
export function encodeCommand(parts: Array<string | Uint8Array>): Uint8Array {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [enc.encode(`*${parts.length}\r\n`)];
  for (const p of parts) {
    const bytes = typeof p === "string" ? enc.encode(p) : p;
    chunks.push(enc.encode(`$${bytes.length}\r\n`), bytes, enc.encode("\r\n"));
  }
  return Buffer.concat(chunks);
}
