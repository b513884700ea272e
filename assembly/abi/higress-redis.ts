// Higress's Redis host calls (not in proxy-wasm 0.2.1; stock Envoy refuses a module importing them, so only
// code reachable from the Higress entry may reference this file). ABI as read from Higress's sources:
//  - higress-group/proxy-wasm-go-sdk proxywasm/internal/abi_hostcalls.go: ProxyRedisInit(upstream, username,
//    password as ptr/len pairs, timeout u32) and ProxyRedisCall(upstream ptr/len, query ptr/len, calloutID *u32),
//    both returning a proxy-wasm Status; proxywasm/hostcall.go RedisInit / DispatchRedisCall / GetRedisCallResponse.
//  - higress-group/proxy-wasm-cpp-host src/exports.cc redis_init (the last argument is `timeout_milliseconds`;
//    the call acts on the root context of the current context) and redis_call (writes the token first, so a bad
//    token pointer is InvalidMemoryAccess before anything is sent); include/proxy-wasm/wasm.h nextRedisCallId
//    (tokens are callout ids with the low two bits 3).
//  - the query is one raw RESP command; the reply is the raw RESP reply (higress-group/wasm-go
//    pkg/wrapper/redis_wrapper.go respString / redisCallInternal, which parses it with a RESP reader).

/** proxywasm/internal/abi_enums.go BufferTypeRedisCallResponse: the reply, readable in the callback only. */
export const BUFFER_REDIS_CALL_RESPONSE: i32 = 9;

@external("env", "proxy_redis_init")
export declare function proxy_redis_init(
  clusterPtr: usize, clusterLen: usize, usernamePtr: usize, usernameLen: usize,
  passwordPtr: usize, passwordLen: usize, timeoutMs: u32,
): i32;

@external("env", "proxy_redis_call")
export declare function proxy_redis_call(clusterPtr: usize, clusterLen: usize, queryPtr: usize, queryLen: usize, tokenPtr: usize): i32;
