// Enumerations of proxy-wasm ABI 0.2.1 ("Types" in proxy-wasm/spec abi-versions/v0.2.1/README.md),
// plus the Envoy filter status values that the 0.2.1 hosts accept from the HTTP callbacks.

export namespace LogLevel {
  export const Trace: i32 = 0;
  export const Debug: i32 = 1;
  export const Info: i32 = 2;
  export const Warn: i32 = 3;
  export const Error: i32 = 4;
  export const Critical: i32 = 5;
}

export namespace Status {
  export const Ok: i32 = 0;
  export const NotFound: i32 = 1;
  export const BadArgument: i32 = 2;
  export const SerializationFailure: i32 = 3;
  export const ParseFailure: i32 = 4;
  export const InvalidMemoryAccess: i32 = 6;
  export const Empty: i32 = 7;
  export const CasMismatch: i32 = 8;
  export const InternalFailure: i32 = 10;
  export const BrokenConnection: i32 = 11;
  export const Unimplemented: i32 = 12;
}

// Returned from proxy_on_request_headers / proxy_on_response_headers (Envoy's FilterHeadersStatus).
export namespace HeadersAction {
  export const Continue: i32 = 0;
  export const StopIteration: i32 = 1;
  export const StopAllIterationAndBuffer: i32 = 3;
  export const StopAllIterationAndWatermark: i32 = 4;
}

// Returned from proxy_on_request_body / proxy_on_response_body (Envoy's FilterDataStatus).
export namespace DataAction {
  export const Continue: i32 = 0;
  export const StopIterationAndBuffer: i32 = 1;
  export const StopIterationAndWatermark: i32 = 2;
  export const StopIterationNoBuffer: i32 = 3;
}

export namespace BufferType {
  export const HttpRequestBody: i32 = 0;
  export const HttpResponseBody: i32 = 1;
  export const DownstreamData: i32 = 2;
  export const UpstreamData: i32 = 3;
  export const HttpCallResponseBody: i32 = 4;
  export const GrpcCallMessage: i32 = 5;
  export const VmConfiguration: i32 = 6;
  export const PluginConfiguration: i32 = 7;
}

export namespace MapType {
  export const HttpRequestHeaders: i32 = 0;
  export const HttpRequestTrailers: i32 = 1;
  export const HttpResponseHeaders: i32 = 2;
  export const HttpResponseTrailers: i32 = 3;
  export const GrpcCallInitialMetadata: i32 = 4;
  export const GrpcCallTrailingMetadata: i32 = 5;
  export const HttpCallResponseHeaders: i32 = 6;
  export const HttpCallResponseTrailers: i32 = 7;
}

export namespace StreamType {
  export const HttpRequest: i32 = 0;
  export const HttpResponse: i32 = 1;
  export const Downstream: i32 = 2;
  export const Upstream: i32 = 3;
}

export namespace MetricType {
  export const Counter: i32 = 0;
  export const Gauge: i32 = 1;
  export const Histogram: i32 = 2;
}
