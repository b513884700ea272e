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

/** The codec's answer to these request headers off an HTTP/1 connection, or null when it takes them. */
export function http1RequestHeadersError(headers: HeaderList): Http1CodecRefusal | null {
  let contentLengths = 0;
  let transferEncoding: string | null = null;
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i][0].toLowerCase();
    if (name === "content-length" && ++contentLengths > 1) return HTTP1_CODEC_ERROR;
    if (name === "transfer-encoding" && transferEncoding === null) transferEncoding = headers[i][1];
  }
  if (transferEncoding === null) return null;
  if (contentLengths > 0) return HTTP1_CHUNKED_CONTENT_LENGTH;
  return transferEncoding.toLowerCase() !== "chunked" ? HTTP1_INVALID_TRANSFER_ENCODING : null;
}
