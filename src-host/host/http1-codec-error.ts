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
import type { HeaderList } from "./header-map.ts";

/** Http1ResponseCodeDetails HttpCodecError. */
export const HTTP1_CODEC_ERROR_DETAILS = "http1.codec_error";

/** The parser's error for these request headers off an HTTP/1 connection, or null when the codec takes them. */
export function http1RequestHeadersError(headers: HeaderList): string | null {
  let contentLengths = 0;
  for (let i = 0; i < headers.length; i++) {
    if (headers[i][0].toLowerCase() === "content-length" && ++contentLengths > 1) return "HPE_UNEXPECTED_CONTENT_LENGTH";
  }
  return null;
}
