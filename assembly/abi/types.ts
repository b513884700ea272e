// Enumerations of proxy-wasm ABI 0.2.1 ("Types" in proxy-wasm/spec abi-versions/v0.2.1/README.md),
// plus the Envoy filter status values that the 0.2.1 hosts accept from the HTTP callbacks.

export enum LogLevel {
  Trace = 0,
  Debug = 1,
  Info = 2,
  Warn = 3,
  Error = 4,
  Critical = 5,
}

export enum Status {
  Ok = 0,
  NotFound = 1,
  BadArgument = 2,
  SerializationFailure = 3,
  ParseFailure = 4,
  InvalidMemoryAccess = 6,
  Empty = 7,
  CasMismatch = 8,
  InternalFailure = 10,
  BrokenConnection = 11,
  Unimplemented = 12,
}

// Returned from proxy_on_request_headers / proxy_on_response_headers (Envoy's FilterHeadersStatus).
export enum HeadersAction {
  Continue = 0,
  StopIteration = 1,
  StopAllIterationAndBuffer = 3,
  StopAllIterationAndWatermark = 4,
}

// Returned from proxy_on_request_body / proxy_on_response_body (Envoy's FilterDataStatus).
export enum DataAction {
  Continue = 0,
  StopIterationAndBuffer = 1,
  StopIterationAndWatermark = 2,
  StopIterationNoBuffer = 3,
}

export enum BufferType {
  HttpRequestBody = 0,
  HttpResponseBody = 1,
  DownstreamData = 2,
  UpstreamData = 3,
  HttpCallResponseBody = 4,
  GrpcCallMessage = 5,
  VmConfiguration = 6,
  PluginConfiguration = 7,
}

export enum MapType {
  HttpRequestHeaders = 0,
  HttpRequestTrailers = 1,
  HttpResponseHeaders = 2,
  HttpResponseTrailers = 3,
  GrpcCallInitialMetadata = 4,
  GrpcCallTrailingMetadata = 5,
  HttpCallResponseHeaders = 6,
  HttpCallResponseTrailers = 7,
}

export enum StreamType {
  HttpRequest = 0,
  HttpResponse = 1,
  Downstream = 2,
  Upstream = 3,
}

export enum MetricType {
  Counter = 0,
  Gauge = 1,
  Histogram = 2,
}
