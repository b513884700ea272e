// The gateway's answer to a request its HTTP/1 parser refused, as Envoy's codec answers it (host/http1-codec-error.ts):
// 400 "Bad Request" with details http1.codec_error (or the status and details of the codec's own check) and the flag
// DownstreamProtocolError, run through a plugin stream
// created for it (FilterManager::sendLocalReplyViaFilterChain → createFilterChain: the plugin gets on_log), and
// "connection: close" (conn_manager_impl.cc ActiveStream::encodeHeaders: a response before the request completed on
// HTTP/1 drains the connection), then the connection closes. Node's parser (llhttp) names its errors as http-parser
// and Envoy's BalsaParser do: a Content-Length given twice is HPE_UNEXPECTED_CONTENT_LENGTH in each.
import type { Socket } from "node:net";
import type { PluginHost } from "../host/plugin-host.ts";
import type { StreamInfo } from "../host/stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import { localReplyHeaders } from "../host/local-reply-headers.ts";
import {
  HTTP1_CHUNKED_CONTENT_LENGTH,
  HTTP1_CODEC_ERROR,
  HTTP1_HEADERS_TOO_LARGE,
  HTTP1_INVALID_CHARACTERS,
  HTTP1_LOW_VERSION,
  type Http1CodecRefusal,
} from "../host/http1-codec-error.ts";
import type { RequestRecord } from "./request-log.ts";

const enc = new TextEncoder();

/** Node's parse errors that Envoy's codec answers (sendProtocolError): not the end of the connection in the middle of
 *  a request (HPE_INVALID_EOF_STATE), which Envoy takes as the client's close (ConnectionManagerImpl::onEvent
 *  RemoteClose), not as a parse error. */
export function isCodecError(code: string | undefined): boolean {
  return code !== undefined && code.startsWith("HPE_") && code !== "HPE_INVALID_EOF_STATE";
}

/** A Node parse error: its code and reason, the bytes it was parsing and where the refused token starts in them. */
export interface NodeParseError {
  code?: string;
  reason?: string;
  rawPacket?: Buffer;
  bytesParsed?: number;
}

/**
 * Envoy's answer to the request Node's parser refused, as codec_impl.cc ConnectionImpl::dispatchSlice names Balsa's
 * error (balsa_parser.cc BalsaParser::HandleError and its own checks):
 * - a head longer than max_request_headers_kb (Node's maxHeaderSize, set to it): 431 http1.headers_too_large;
 * - a control character anywhere in the head, request line included (quiche header_properties IsInvalidHeaderChar:
 *   0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F, 0x7F; BalsaFrame::ProcessHeaderLines → CheckHeaderLinesForInvalidChars from
 *   the first line, the framer's INVALID_HEADER_CHARACTER, "header value contains invalid chars"): 400
 *   http1.invalid_characters, also when Envoy's own method, URL or version check (BalsaParser::OnRequestFirstLineInput,
 *   which does not stop the framer) failed first, as HandleError's message replaces theirs; but not after a first
 *   byte no method starts with, refused before the framer runs (BalsaParser::execute);
 * - another character a name may not have is Balsa's HPE_INVALID_HEADER_TOKEN, a 400 http1.codec_error;
 * - a version Node does not know but of Balsa's form "HTTP/d.d" (isVersionValid): not HTTP/1.1, so the codec's 426
 *   low_version (checkProtocolVersion);
 * - a Content-Length beside a Transfer-Encoding, which Node refuses as a parse error (HPE_INVALID_CONTENT_LENGTH or
 *   HPE_INVALID_TRANSFER_ENCODING, "... can't be present with ..."): Balsa takes both and the codec answers them
 *   itself (http1-codec-error.ts);
 * - anything else (a bad method, URL or version, a chunk size): 400 http1.codec_error.
 */
export function codecRefusal(e: NodeParseError): Http1CodecRefusal {
  const { code, reason } = e;
  if (code === "HPE_HEADER_OVERFLOW") return HTTP1_HEADERS_TOO_LARGE;
  if (HEAD_CHECKS_THE_FRAMER_OUTLIVES.has(code ?? "") && !(code === "HPE_INVALID_METHOD" && refusedBeforeTheFramer(e))) {
    // Balsa checks the characters once it has the whole head; Node refuses at the first bad byte.
    const whole = invalidCharacterInWholeHead(e);
    if (whole !== null) {
      if (whole) return HTTP1_INVALID_CHARACTERS;
    } else if (code === "HPE_INVALID_HEADER_TOKEN" && invalidCharacterInLine(e)) {
      return HTTP1_INVALID_CHARACTERS;
    }
  }
  if (code === "HPE_INVALID_VERSION" && balsaVersionForm(e)) return HTTP1_LOW_VERSION;
  const framing = code === "HPE_INVALID_CONTENT_LENGTH" || code === "HPE_INVALID_TRANSFER_ENCODING";
  return framing && reason?.includes("can't be present with") ? HTTP1_CHUNKED_CONTENT_LENGTH : HTTP1_CODEC_ERROR;
}

/** Node's refusals of a request's head whose counterparts in Envoy (its request-line checks, a name's character)
 *  leave Balsa's framer reading the head to its end and checking its characters. */
const HEAD_CHECKS_THE_FRAMER_OUTLIVES = new Set(["HPE_INVALID_METHOD", "HPE_INVALID_URL", "HPE_INVALID_VERSION", "HPE_INVALID_HEADER_TOKEN"]);

/** quiche header_properties IsInvalidHeaderChar. */
function isInvalidHeaderChar(c: number): boolean {
  return (c <= 0x08) || c === 0x0b || c === 0x0c || (c >= 0x0e && c <= 0x1f) || c === 0x7f;
}

/** balsa_parser.cc isFirstCharacterOfValidMethod: the first bytes of the methods Balsa knows. */
const METHOD_FIRST_BYTES = new Set([..."ABCDGHLMNOPRSTU"].map((c) => c.charCodeAt(0)));

/** Whether the request's first byte starts no method: BalsaParser::execute refuses it before the framer reads. */
function refusedBeforeTheFramer(e: NodeParseError): boolean {
  const bytes = e.rawPacket;
  if (!bytes || e.bytesParsed === undefined) return false;
  const start = headStart(bytes, e.bytesParsed);
  return start < bytes.length && !METHOD_FIRST_BYTES.has(bytes[start]);
}

/** Whether the LF at i (i > from) ends an empty line, LF LF or LF CR LF, whose bytes are all at or after `from`. */
function endsEmptyLine(bytes: Buffer, i: number, from: number): boolean {
  return bytes[i] === 0x0a && (bytes[i - 1] === 0x0a || (bytes[i - 1] === 0x0d && i - 2 >= from && bytes[i - 2] === 0x0a));
}

/** Where the head holding offset `at` starts: after the blank line of the head before it in `bytes` (a pipelined
 *  request's; one with a body is not told apart from its body), else at 0, past any empty lines (Balsa skips them). */
function headStart(bytes: Buffer, at: number): number {
  let start = 0;
  for (let i = Math.min(at, bytes.length) - 1; i > 0; i--) {
    if (endsEmptyLine(bytes, i, 0)) {
      start = i + 1;
      break;
    }
  }
  while (start < bytes.length && (bytes[start] === 0x0d || bytes[start] === 0x0a)) start++;
  return start;
}

/** Whether the head Node refused holds a control character, or null when the bytes Node had do not hold the head's
 *  end (its blank line). */
function invalidCharacterInWholeHead(e: NodeParseError): boolean | null {
  const bytes = e.rawPacket;
  if (!bytes || e.bytesParsed === undefined) return null;
  const start = headStart(bytes, e.bytesParsed);
  let end = -1;
  for (let i = start + 1; i < bytes.length; i++) {
    if (endsEmptyLine(bytes, i, start)) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  for (let i = start; i < end; i++) if (isInvalidHeaderChar(bytes[i])) return true;
  return false;
}

/** Whether the header line Node refused (from the token it names to the line's end) holds a control character. */
function invalidCharacterInLine(e: NodeParseError): boolean {
  const bytes = e.rawPacket;
  if (!bytes || e.bytesParsed === undefined) return false;
  for (let i = e.bytesParsed; i < bytes.length && bytes[i] !== 0x0a && bytes[i] !== 0x0d; i++) if (isInvalidHeaderChar(bytes[i])) return true;
  return false;
}

/** Whether the request line's version, which Node refused, is "HTTP/" and a digit, a dot and a digit. */
function balsaVersionForm(e: NodeParseError): boolean {
  const bytes = e.rawPacket;
  if (!bytes) return false;
  const start = e.bytesParsed === undefined ? 0 : headStart(bytes, e.bytesParsed);
  const end = bytes.indexOf(0x0a, start);
  const line = bytes.subarray(start, end < 0 ? bytes.length : end).toString("latin1").replace(/\r$/, "");
  return /^\S+ \S+ HTTP\/\d\.\d$/.test(line);
}

/** Answers the refused request on `socket` as `refusal` says and returns its access-log record. */
export function answerCodecError(host: PluginHost | null, worker: number, info: StreamInfo, id: number, socket: Socket, bytesIn: number, refusal: Http1CodecRefusal = HTTP1_CODEC_ERROR): RequestRecord {
  const started = performance.now();
  let headers: HeaderList;
  let body: Uint8Array;
  const stream = host ? host.newStream(info, worker) : null;
  if (stream) {
    stream.rejectByCodec(refusal);
    headers = stream.state.responseHeaders?.pairs ?? [];
    body = stream.takeReleasedResponseBody();
  } else {
    body = enc.encode(refusal.text);
    headers = localReplyHeaders(refusal.status, [], body.length);
  }
  let head = `HTTP/1.1 ${refusal.status} ${refusal.text}\r\n`;
  for (const [k, v] of headers) if (!k.startsWith(":") && k !== "connection") head += `${k}: ${v}\r\n`;
  head += `date: ${new Date().toUTCString()}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
  stream?.finish();
  return {
    id,
    worker: host ? worker : null,
    method: "-",
    path: "-",
    status: refusal.status,
    flags: "DPE",
    details: refusal.details,
    endpoint: null,
    route: null,
    fallback: null,
    ttftMs: null,
    durMs: performance.now() - started,
    bytesIn,
    bytesOut: body.length,
  };
}
