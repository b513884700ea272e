// A Higress test plugin that makes exactly the Redis host calls the test asks for (its exports take pointers to
// strings the test wrote with malloc) and logs each reply as "REPLY <token> <status> <get_status code>
// <get_status message> <get_buffer_bytes status> <reply>"; tests/integration/redis-host-client.test.ts reads the lines.
export * from "../../assembly/abi/exports";
export * from "../../assembly/abi/higress-abi-version";
export * from "../../assembly/abi/redis-exports";
import "../../assembly/abi/abort";
import * as host from "../../assembly/abi/host";
import { RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { BUFFER_REDIS_CALL_RESPONSE, proxy_redis_call, proxy_redis_init } from "../../assembly/abi/higress-redis";
import { proxy_get_buffer_status, proxy_get_status } from "../../assembly/abi/imports";
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

/** Reads the Redis reply buffer (type 9) now: "BUFFER <get_buffer_bytes status> <bytes> <get_buffer_status status> <size>". */
export function fixture_read_reply_buffer(): void {
  const s = host.getBufferBytes(BUFFER_REDIS_CALL_RESPONSE, 0, 64, out);
  let bytes = -1;
  if (s == Status.Ok) {
    bytes = <i32>out.len;
    out.release();
  }
  clearOutParams();
  const st = proxy_get_buffer_status(BUFFER_REDIS_CALL_RESPONSE, OUT_LEN, OUT_EXTRA);
  host.log(LogLevel.Info, "BUFFER " + s.toString() + " " + bytes.toString() + " " + st.toString() + " " + load<u32>(OUT_LEN).toString());
}

let retryCluster: ArrayBuffer | null = null;
let retryQuery: ArrayBuffer | null = null;

/** The next failed call's callback makes this call once and logs "RETRY <token or -status>". */
export function fixture_call_again_on_failure(cPtr: usize, cLen: usize, qPtr: usize, qLen: usize): void {
  const c = new ArrayBuffer(<i32>cLen);
  memory.copy(changetype<usize>(c), cPtr, cLen);
  const q = new ArrayBuffer(<i32>qLen);
  memory.copy(changetype<usize>(q), qPtr, qLen);
  retryCluster = c;
  retryQuery = q;
}

class RedisCallsRoot extends RootContext {
  onRedisCallResponse(token: u32, callStatus: u32, size: u32): void {
    let reply = "";
    // Read whatever the size (wasm-go's redisCallInternal reads it on a failure too).
    const read = host.getBufferBytes(BUFFER_REDIS_CALL_RESPONSE, 0, size, out);
    if (read == Status.Ok) {
      reply = out.toString();
      out.release();
    }
    host.log(LogLevel.Info, "REPLY " + token.toString() + " " + callStatus.toString() + " " + status() + " " + read.toString() + " " + reply);
    const c = retryCluster;
    const q = retryQuery;
    if (callStatus != 0 && c !== null && q !== null) {
      retryCluster = null;
      retryQuery = null;
      store<u32>(OUT_EXTRA, 0);
      const s = proxy_redis_call(changetype<usize>(c), c.byteLength, changetype<usize>(q), q.byteLength, OUT_EXTRA);
      host.log(LogLevel.Info, "RETRY " + (s == Status.Ok ? load<u32>(OUT_EXTRA).toString() : (-s).toString()));
    }
  }
}

setRootContextFactory((id: u32): RootContext => new RedisCallsRoot(id));
