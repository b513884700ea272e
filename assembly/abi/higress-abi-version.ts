// The ABI version mark of the Higress build: Higress's 0.2.100, the 0.2.1 ABI plus its host calls. Higress's host
// turns a request-headers StopIteration into StopAllIterationAndWatermark for every older ABI, so the body of a
// 0.2.1 module's paused request would never reach it; for 0.2.100 StopIteration stays itself
// (higress-group/proxy-wasm-cpp-host src/context.cc ContextBase::convertVmCallResultToFilterHeadersStatus, src/wasm.cc
// on_request_headers_abi_03_). Higress's Go SDK exports the same mark (proxy-wasm-go-sdk abi_callback_version.go).
export function proxy_abi_version_0_2_100(): void {}
