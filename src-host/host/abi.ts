// proxy-wasm ABI 0.2.1 constants as the host sees them (proxy-wasm/spec abi-versions/v0.2.1, "Types"),
// plus Envoy's filter status values.

export const Status = {
  Ok: 0,
  NotFound: 1,
  BadArgument: 2,
  SerializationFailure: 3,
  ParseFailure: 4,
  InvalidMemoryAccess: 6,
  Empty: 7,
  CasMismatch: 8,
  InternalFailure: 10,
  BrokenConnection: 11,
  Unimplemented: 12,
} as const;

export const LogLevel = { Trace: 0, Debug: 1, Info: 2, Warn: 3, Error: 4, Critical: 5 } as const;
export const LOG_LEVEL_NAMES = ["trace", "debug", "info", "warn", "error", "critical"];

export const HeadersStatus = { Continue: 0, StopIteration: 1, StopAllIterationAndBuffer: 3, StopAllIterationAndWatermark: 4 } as const;
export const DataStatus = { Continue: 0, StopIterationAndBuffer: 1, StopIterationAndWatermark: 2, StopIterationNoBuffer: 3 } as const;

export const BufferType = {
  HttpRequestBody: 0,
  HttpResponseBody: 1,
  DownstreamData: 2,
  UpstreamData: 3,
  HttpCallResponseBody: 4,
  GrpcCallMessage: 5,
  VmConfiguration: 6,
  PluginConfiguration: 7,
  /** The context's own buffer as its last proxy_get_buffer_* left it (call-data.ts). */
  CallData: 8,
  /** Higress only: a proxy_redis_call's reply (higress-group/proxy-wasm-go-sdk proxywasm/internal/abi_enums.go). */
  RedisCallResponse: 9,
} as const;

export const MapType = {
  HttpRequestHeaders: 0,
  HttpRequestTrailers: 1,
  HttpResponseHeaders: 2,
  HttpResponseTrailers: 3,
  GrpcCallInitialMetadata: 4,
  GrpcCallTrailingMetadata: 5,
  HttpCallResponseHeaders: 6,
  HttpCallResponseTrailers: 7,
} as const;

export const StreamType = { HttpRequest: 0, HttpResponse: 1, Downstream: 2, Upstream: 3 } as const;
export const MetricType = { Counter: 0, Gauge: 1, Histogram: 2 } as const;

export type FailurePolicy = "FAIL_OPEN" | "FAIL_CLOSED" | "FAIL_RELOAD";
