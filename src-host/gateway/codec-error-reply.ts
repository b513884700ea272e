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
 * - a control character in a header (quiche header_properties IsInvalidHeaderChar: 0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F,
 *   0x7F; the framer's INVALID_HEADER_CHARACTER, "header value contains invalid chars", in a name as in a value):
 *   400 http1.invalid_characters; another character a name may not have is Balsa's HPE_INVALID_HEADER_TOKEN, a 400
 *   http1.codec_error;
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
  if (code === "HPE_INVALID_HEADER_TOKEN") return invalidCharacterInLine(e) ? HTTP1_INVALID_CHARACTERS : HTTP1_CODEC_ERROR;
  if (code === "HPE_INVALID_VERSION" && balsaVersionForm(e)) return HTTP1_LOW_VERSION;
  const framing = code === "HPE_INVALID_CONTENT_LENGTH" || code === "HPE_INVALID_TRANSFER_ENCODING";
  return framing && reason?.includes("can't be present with") ? HTTP1_CHUNKED_CONTENT_LENGTH : HTTP1_CODEC_ERROR;
}

/** quiche header_properties IsInvalidHeaderChar. */
function isInvalidHeaderChar(c: number): boolean {
  return (c <= 0x08) || c === 0x0b || c === 0x0c || (c >= 0x0e && c <= 0x1f) || c === 0x7f;
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
  const end = bytes.indexOf(0x0a);
  const line = bytes.subarray(0, end < 0 ? bytes.length : end).toString("latin1").replace(/\r$/, "");
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
