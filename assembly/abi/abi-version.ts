// The ABI version mark of the stock-Envoy build: proxy-wasm 0.2.1. Envoy turns a headers StopIteration into
// StopAllIterationAndWatermark unless the filter sets allow_on_headers_stop_iteration (proxy-wasm-cpp-host
// context.cc ContextBase::convertVmCallResultToFilterHeadersStatus).
export function proxy_abi_version_0_2_1(): void {}
