// A Higress test plugin that makes exactly the Redis host calls the test asks for (its exports take pointers to
// strings the test wrote with malloc) and logs each reply as "REPLY <token> <status> <get_status code>
// <get_status message> <reply>"; tests/integration/redis-host-client.test.ts reads the lines.
export * from "../../assembly/abi/exports";
export * from "../../assembly/abi/higress-abi-version";
export * from "../../assembly/abi/redis-exports";
import "../../assembly/abi/abort";
import * as host from "../../assembly/abi/host";
import { RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { BUFFER_REDIS_CALL_RESPONSE, proxy_redis_call, proxy_redis_init } from "../../assembly/abi/higress-redis";
import { proxy_get_status } from "../../assembly/abi/imports";
import { OUT_EXTRA, OUT_LEN, OUT_PTR, clearOutParams } from "../../assembly/abi/memory";
import { LogLevel, Status } from "../../assembly/abi/types";

const out = new host.Returned();

/** proxy_get_status as "<code> <message>" (message "-" when empty). */
function status(): string {
  clearOutParams();
  if (proxy_get_status(OUT_EXTRA, OUT_PTR, OUT_LEN) != Status.Ok) return "refused -";
  const code = load<u32>(OUT_EXTRA);
  out.take();
  const message = out.toString();
  out.release();
  return code.toString() + " " + (message.length > 0 ? message : "-");
}

export function fixture_redis_init(cPtr: usize, cLen: usize, uPtr: usize, uLen: usize, pPtr: usize, pLen: usize, timeoutMs: u32): i32 {
  return proxy_redis_init(cPtr, cLen, uPtr, uLen, pPtr, pLen, timeoutMs);
}

/** The token, or minus the host's status. */
export function fixture_redis_call(cPtr: usize, cLen: usize, qPtr: usize, qLen: usize): i64 {
  store<u32>(OUT_EXTRA, 0);
  const s = proxy_redis_call(cPtr, cLen, qPtr, qLen, OUT_EXTRA);
  return s == Status.Ok ? <i64>load<u32>(OUT_EXTRA) : -<i64>s;
}

export function fixture_status(): void {
  host.log(LogLevel.Info, "STATUS " + status());
}

class RedisCallsRoot extends RootContext {
  onRedisCallResponse(token: u32, callStatus: u32, size: u32): void {
    let reply = "";
    if (size > 0 && host.getBufferBytes(BUFFER_REDIS_CALL_RESPONSE, 0, size, out) == Status.Ok) {
      reply = out.toString();
      out.release();
    }
    host.log(LogLevel.Info, "REPLY " + token.toString() + " " + callStatus.toString() + " " + status() + " " + reply);
  }
}

setRootContextFactory((id: u32): RootContext => new RedisCallsRoot(id));
