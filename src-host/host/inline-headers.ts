// Envoy's O(1) "inline" headers: a header map keeps at most one entry for each, and adding one that is there already
// appends the value to it instead of adding an entry (header_map_impl.cc HeaderMapImpl::insertByKey → appendToHeader,
// delimiter ","). Which headers are inline depends on the map type: envoy/http/header_map.h INLINE_REQ_HEADERS,
// INLINE_RESP_HEADERS, INLINE_REQ_RESP_HEADERS and INLINE_RESP_HEADERS_TRAILERS, named as in
// source/common/http/headers.h with the default "x-envoy" prefix; request trailers have none. Headers an extension
// registers at start-up (CustomInlineHeaderRegistry: authorization, accept-encoding, ... depending on the build) and
// bootstrap inline_headers are not modelled: they differ between Envoy builds.

const REQUEST_AND_RESPONSE = [
  "connection", "content-type", "x-envoy-decorator-operation", "keep-alive", "proxy-connection", "proxy-status",
  "x-request-id", "transfer-encoding", "upgrade", "via", "content-length", "x-envoy-attempt-count",
];

const RESPONSE_AND_TRAILERS = ["grpc-message", "grpc-status"];

/** INLINE_REQ_HEADERS and INLINE_REQ_RESP_HEADERS (RequestHeaderMapImpl). */
export const REQUEST_HEADERS_INLINE: ReadonlySet<string> = new Set([
  "x-client-trace-id", "x-envoy-downstream-service-cluster", "x-envoy-downstream-service-node", "x-envoy-external-address",
  "x-envoy-force-trace", "x-envoy-hedge-on-per-try-timeout", "x-envoy-internal", "x-envoy-ip-tags", "x-envoy-retry-on",
  "x-envoy-retry-grpc-on", "x-envoy-retriable-status-codes", "x-envoy-retriable-header-names", "x-envoy-is-timeout-retry",
  "x-envoy-original-path", "x-envoy-original-url", "x-envoy-upstream-alt-stat-name", "x-envoy-upstream-rq-timeout-alt-response",
  "expect", "x-forwarded-client-cert", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "grpc-timeout", ":authority",
  ":method", ":path", ":protocol", ":scheme", "te", "user-agent", "x-envoy-expected-rq-timeout-ms", "x-envoy-max-retries",
  "x-envoy-upstream-rq-timeout-ms", "x-envoy-upstream-rq-per-try-timeout-ms", "x-envoy-upstream-stream-duration-ms",
  "x-forwarded-port",
  ...REQUEST_AND_RESPONSE,
]);

/** INLINE_RESP_HEADERS, INLINE_REQ_RESP_HEADERS and INLINE_RESP_HEADERS_TRAILERS (ResponseHeaderMapImpl). */
export const RESPONSE_HEADERS_INLINE: ReadonlySet<string> = new Set([
  "date", "x-envoy-degraded", "x-envoy-immediate-health-check-fail", "x-envoy-ratelimited", "x-envoy-upstream-canary",
  "x-envoy-upstream-healthchecked-cluster", "location", "server", "x-envoy-upstream-service-time", ":status",
  ...REQUEST_AND_RESPONSE,
  ...RESPONSE_AND_TRAILERS,
]);

/** INLINE_RESP_HEADERS_TRAILERS (ResponseTrailerMapImpl). */
export const RESPONSE_TRAILERS_INLINE: ReadonlySet<string> = new Set(RESPONSE_AND_TRAILERS);

/** RequestTrailerMapImpl has no inline headers. */
export const NO_INLINE: ReadonlySet<string> = new Set();
