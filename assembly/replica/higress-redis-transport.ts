// RedisTransport over Higress's proxy_redis_init / proxy_redis_call (see abi/higress-redis.ts for the ABI and
// its sources). The reply is read with proxy_get_buffer_bytes on buffer type 9 during
// proxy_on_redis_call_response, as proxywasm/hostcall.go GetRedisCallResponse does.
import { getBufferBytes, HostResult, Returned } from "../abi/host";
import { BUFFER_REDIS_CALL_RESPONSE, proxy_redis_call, proxy_redis_init } from "../abi/higress-redis";
import { OUT_EXTRA } from "../abi/memory";
import { Status } from "../abi/types";
import { RedisTransport } from "./redis-transport";

export class HigressRedisTransport extends RedisTransport {
  init(cluster: ArrayBuffer, username: ArrayBuffer, password: ArrayBuffer, timeoutMs: u32): i32 {
    return proxy_redis_init(
      changetype<usize>(cluster), cluster.byteLength, changetype<usize>(username), username.byteLength,
      changetype<usize>(password), password.byteLength, timeoutMs,
    );
  }

  call(cluster: ArrayBuffer, queryPtr: usize, queryLen: usize): HostResult {
    store<u32>(OUT_EXTRA, 0);
    const s = proxy_redis_call(changetype<usize>(cluster), cluster.byteLength, queryPtr, queryLen, OUT_EXTRA);
    return s == Status.Ok ? <i64>load<u32>(OUT_EXTRA) : -<i64>s;
  }

  readReply(size: u32, out: Returned): i32 {
    return getBufferBytes(BUFFER_REDIS_CALL_RESPONSE, 0, size, out);
  }
}
