// The callback of Higress's Redis calls; exported by the Higress entry only. Signature as in
// higress-group/proxy-wasm-go-sdk proxywasm/internal/abi_callback_l7.go proxyOnRedisCallResponse
// (pluginContextID, calloutID, status, responseSize): it goes to the root context that made the call
// (proxy-wasm-cpp-host src/context.cc ContextBase::onRedisCallResponse); status 0 is success and anything else
// a failed call (higress-group/wasm-go pkg/wrapper/redis_wrapper.go treats every non-zero status as
// "cannot connect").
import { rootById } from "./context";

export function proxy_on_redis_call_response(rootContextId: u32, token: u32, status: u32, responseSize: u32): void {
  const root = rootById(rootContextId);
  if (root !== null) root.onRedisCallResponse(token, status, responseSize);
}
