// RESP framing for the host's Redis client: where one complete reply ends in a byte stream, and how a
// command is written. Written for this project, not taken from a client library; what it accepts is what
// Higress's raw decoder accepts (see replyLength).

const CR = 13;
const LF = 10;

/** Thrown on bytes that cannot be a RESP reply (Envoy's ProtocolError: the connection closes). */
export class RespProtocolError extends Error {}

/** Needs more bytes. */
const MORE = -1;

/**
 * A length or integer line after its type byte, as RawDecoderImpl's IntegerStart / Integer / IntegerLF states read it:
 * an optional sign, then only digits (none is 0) up to CR, then LF. Returns [value, negative, index after LF], or
 * null when more bytes are needed.
 */
function integerLine(buf: Uint8Array, from: number): [number, boolean, number] | null {
  let i = from;
  if (i >= buf.length) return null;
  const negative = buf[i] === 0x2d;
  if (negative || buf[i] === 0x2b) i++;
  let value = 0;
  for (; i < buf.length && buf[i] !== CR; i++) {
    const c = buf[i];
    if (c < 0x30 || c > 0x39) throw new RespProtocolError("invalid integer character");
    value = value * 10 + (c - 0x30);
  }
  if (i + 1 >= buf.length) return null;
  if (buf[i + 1] !== LF) throw new RespProtocolError("expect new line");
  return [value, negative, i + 2];
}

/** Where the value starting at `at` ends, or MORE. */
function valueEnd(buf: Uint8Array, at: number): number {
  if (at >= buf.length) return MORE;
  switch (buf[at]) {
    case 0x2b: // + simple string
    case 0x2d: {
      // - error: every byte up to the first CR, which LF must follow (SimpleString, LF states)
      let i = at + 1;
      while (i < buf.length && buf[i] !== CR) i++;
      if (i + 1 >= buf.length) return MORE;
      if (buf[i + 1] !== LF) throw new RespProtocolError("expected new line");
      return i + 2;
    }
    case 0x3a: {
      // : integer
      const line = integerLine(buf, at + 1);
      return line === null ? MORE : line[2];
    }
    case 0x24: {
      // $ bulk string: a negative length is the null bulk string; else the body, then exactly CR LF
      const line = integerLine(buf, at + 1);
      if (line === null) return MORE;
      const [n, negative, bodyStart] = line;
      if (negative) return bodyStart;
      const crAt = bodyStart + n;
      if (crAt >= buf.length) return MORE;
      if (buf[crAt] !== CR) throw new RespProtocolError("expected carriage return");
      if (crAt + 1 >= buf.length) return MORE;
      if (buf[crAt + 1] !== LF) throw new RespProtocolError("expected new line");
      return crAt + 2;
    }
    case 0x2a: {
      // * array: a negative count is the null array, 0 the empty one; else that many values
      const line = integerLine(buf, at + 1);
      if (line === null) return MORE;
      const [n, negative, first] = line;
      if (negative) return first;
      let pos = first;
      for (let i = 0; i < n; i++) {
        pos = valueEnd(buf, pos);
        if (pos === MORE) return MORE;
      }
      return pos;
    }
  }
  // RawDecoderImpl knows RESP2's five types only (RESP3's _ % # , ... are "invalid value type").
  throw new RespProtocolError(`invalid value type 0x${buf[at].toString(16)}`);
}

/**
 * The length of the complete reply starting at `at`, or -1 if more bytes are needed; throws RespProtocolError where
 * Higress's RawDecoderImpl::parseSlice (envoy source/extensions/filters/network/common/redis/codec_impl.cc) throws
 * ProtocolError. Like that decoder it reads bytes in order, so bad bytes throw even in an incomplete reply.
 */
export function replyLength(buf: Uint8Array, at = 0): number {
  const end = valueEnd(buf, at);
  return end === MORE ? MORE : end - at;
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
