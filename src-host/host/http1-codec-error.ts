// What Envoy's HTTP/1 codec refuses in a request's headers before any filter sees them, and its answer.
//
// The codec parses with Balsa (runtime guard http1_use_balsa_parser, on by default), configured with
// disallow_multiple_content_length (http1 balsa_parser.cc BalsaParser::BalsaParser): a Content-Length field given more
// than once, with equal values or not, is BalsaFrame MULTIPLE_CONTENT_LENGTH_KEYS, which BalsaParser::HandleError
// names HPE_UNEXPECTED_CONTENT_LENGTH. ConnectionImpl::dispatchSlice then calls
// ServerConnectionImpl::sendProtocolError(HttpCodecError): the stream (begun at the request's first byte,
// onMessageBegin) gets sendLocalReply(400, "Bad Request", details "http1.codec_error"); the filter manager creates the
// filter chain for it (FilterManager::sendLocalReplyViaFilterChain → createFilterChain, "to ensure access logging"),
// and the stream's reset (the request never completed) sets DownstreamProtocolError from the encoder's details
// (conn_manager_impl.cc ActiveStream::onResetStream). The request headers reach no filter.
//
// The request's framing is checked next, once the headers are complete (codec_impl.cc
// ServerConnectionImpl::onHeadersCompleteImpl, balsa taking both fields: disallow_transfer_encoding_with_content_length
// false): a Transfer-Encoding, whatever its value, beside a Content-Length is answered 400 (details
// http1.content_length_and_chunked_not_allowed; allow_chunked_length, off by default, would drop the Content-Length of
// a chunked one instead), then a Transfer-Encoding other than "chunked" 501 "Not Implemented" (details
// http1.invalid_transfer_encoding). Both through sendProtocolError, as above.
import type { HeaderList } from "./header-map.ts";

/** The codec's answer to refused request headers: the local reply's status and its response code details. */
export interface Http1CodecRefusal {
  status: number;
  /** The status's text, the reply's body (CodeUtility::toString). */
  text: string;
  details: string;
}

/** Http1ResponseCodeDetails HttpCodecError. */
export const HTTP1_CODEC_ERROR_DETAILS = "http1.codec_error";
/** A parse error: BalsaParser::HandleError, the codec's 400. */
export const HTTP1_CODEC_ERROR: Http1CodecRefusal = { status: 400, text: "Bad Request", details: HTTP1_CODEC_ERROR_DETAILS };
/** Http1ResponseCodeDetails InvalidTransferEncoding. */
export const HTTP1_INVALID_TRANSFER_ENCODING: Http1CodecRefusal = { status: 501, text: "Not Implemented", details: "http1.invalid_transfer_encoding" };
/** Http1ResponseCodeDetails ChunkedContentLength. */
export const HTTP1_CHUNKED_CONTENT_LENGTH: Http1CodecRefusal = { status: 400, text: "Bad Request", details: "http1.content_length_and_chunked_not_allowed" };

/** Http1ResponseCodeDetails HeadersTooLarge: the codec's 431 (error_code_ RequestHeaderFieldsTooLarge). */
export const HTTP1_HEADERS_TOO_LARGE: Http1CodecRefusal = { status: 431, text: "Request Header Fields Too Large", details: "http1.headers_too_large" };
/** Http1ResponseCodeDetails TooManyHeaders, also a 431. */
export const HTTP1_TOO_MANY_HEADERS: Http1CodecRefusal = { status: 431, text: "Request Header Fields Too Large", details: "http1.too_many_headers" };
/** Http1ResponseCodeDetails InvalidCharacters: a 400. */
export const HTTP1_INVALID_CHARACTERS: Http1CodecRefusal = { status: 400, text: "Bad Request", details: "http1.invalid_characters" };
/** ResponseCodeDetails LowVersion: ServerConnectionImpl::checkProtocolVersion's 426 to a request not HTTP/1.1 while
 *  Http1ProtocolOptions.accept_http_10 is off (its default). */
export const HTTP1_LOW_VERSION: Http1CodecRefusal = { status: 426, text: "Upgrade Required", details: "low_version" };

/** The HTTP connection manager's limits on a request's headers (HttpConnectionManager.max_request_headers_kb, default
 *  60; common_http_protocol_options.max_headers_count, default 100). */
export interface Http1HeaderLimits {
  maxRequestHeadersKb: number;
  maxRequestHeadersCount: number;
}
export const ENVOY_HEADER_LIMITS: Http1HeaderLimits = { maxRequestHeadersKb: 60, maxRequestHeadersCount: 100 };

/** A request's head as a parser took it: the request line's parts and the header fields, in order, as sent. */
export interface Http1RequestHead {
  method: string;
  url: string;
  /** "1.1", "1.0", ... */
  httpVersion: string;
  /** Names and values, alternating (Node's rawHeaders). */
  rawHeaders: string[];
}

/**
 * The codec's answer to a request head its parser took whole, or null when the codec takes it, in the order the codec
 * checks: the head's size (Balsa's framer: BalsaFrame::ProcessInput's HEADERS_TOO_LONG once the header block, request
 * line and line ends included, passes max_header_length = max_request_headers_kb * 1024; codec_impl.cc
 * ConnectionImpl::dispatchSlice names it headers_too_large), the field count (ConnectionImpl::completeCurrentHeader:
 * more than max_headers_count; Envoy's header map joins a repeated inline header into one entry, counted here each
 * time), the framing fields (http1RequestHeadersError, onHeadersCompleteImpl), then the version
 * (ServerConnectionImpl::checkProtocolVersion, from onHeadersCompleteBase).
 */
export function http1RequestHeadError(head: Http1RequestHead, limits: Http1HeaderLimits = ENVOY_HEADER_LIMITS): Http1CodecRefusal | null {
  const fields = head.rawHeaders;
  // "<method> <url> HTTP/x.y\r\n", each "<name>: <value>\r\n", then the blank line: optional whitespace around a
  // value is not kept by the parser, so a head sent with it is a little longer than this.
  let bytes = head.method.length + 1 + head.url.length + 1 + 5 + head.httpVersion.length + 2 + 2;
  for (let i = 0; i + 1 < fields.length; i += 2) bytes += fields[i].length + 2 + fields[i + 1].length + 2;
  if (bytes > limits.maxRequestHeadersKb * 1024) return HTTP1_HEADERS_TOO_LARGE;
  if (fields.length / 2 > limits.maxRequestHeadersCount) return HTTP1_TOO_MANY_HEADERS;
  const pairs: HeaderList = [];
  for (let i = 0; i + 1 < fields.length; i += 2) pairs.push([fields[i], fields[i + 1]]);
  const framing = http1RequestHeadersError(pairs);
  if (framing !== null) return framing;
  return head.httpVersion === "1.1" ? null : HTTP1_LOW_VERSION;
}

const CONTENT_LENGTH = "content-length";
const TRANSFER_ENCODING = "transfer-encoding";

/** The codec's answer to these request headers off an HTTP/1 connection, or null when it takes them. */
export function http1RequestHeadersError(headers: HeaderList): Http1CodecRefusal | null {
  let contentLengths = 0;
  let transferEncoding: string | null = null;
  for (let i = 0; i < headers.length; i++) {
    // Only a name of the same length lower-cases to either (the one length-changing lower-casing, U+0130 to "i"
    // and U+0307, leaves a character neither has), so the others are not lower-cased.
    const name = headers[i][0];
    const length = name.length;
    if (length !== CONTENT_LENGTH.length && length !== TRANSFER_ENCODING.length) continue;
    const lower = name.toLowerCase();
    if (lower === CONTENT_LENGTH && ++contentLengths > 1) return HTTP1_CODEC_ERROR;
    if (lower === TRANSFER_ENCODING && transferEncoding === null) transferEncoding = headers[i][1];
  }
  if (transferEncoding === null) return null;
  if (contentLengths > 0) return HTTP1_CHUNKED_CONTENT_LENGTH;
  return transferEncoding.toLowerCase() !== "chunked" ? HTTP1_INVALID_TRANSFER_ENCODING : null;
}
