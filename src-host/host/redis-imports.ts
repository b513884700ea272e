// Higress's Redis host calls, with the semantics of Higress's sources:
//  - proxy_redis_init / proxy_redis_call act on the root context of the current context and write the token
//    before starting anything (higress-group/proxy-wasm-cpp-host src/exports.cc redis_init, redis_call);
//    tokens are callout ids whose low two bits are 3 (include/proxy-wasm/wasm.h nextRedisCallId).
//  - the cluster name may carry options after "?" (higress-group/wasm-go pkg/wrapper/redis_wrapper.go Init
//    appends db / buffer_flush_timeout / max_buffer_size_before_flush); the cluster is the part before it.
//  - init with the configuration already in use keeps the connection (higress-group/envoy
//    source/common/redis/async_client_impl.cc AsyncClientImpl::initialize, "skip teardown when nothing changed").
//  - an unknown cluster is refused with BadArgument, as Envoy's Context::httpCall refuses an unknown cluster;
//    a call on a cluster that was never initialised is refused too.
//  - the reply reaches proxy_on_redis_call_response(root, token, status, size) on a later turn of the worker's
//    event loop, never inside proxy_redis_call; status 0 is a reply (readable as buffer type 9 during the
//    callback), any other status a failed call with no reply (the SDKs only test status != 0,
//    redis_wrapper.go redisCallInternal). A timeout or a lost connection fails the call.
import { Status } from "./abi.ts";
import type { VmHooks } from "./envoy-imports.ts";
import { guarded } from "./envoy-imports.ts";
import type { RedisConnection, RedisTarget } from "./redis-client.ts";
import type { WasmVm } from "./vm.ts";

/** Buffer type of the reply (higress-group/proxy-wasm-go-sdk proxywasm/internal/abi_enums.go). */
export const REDIS_CALL_RESPONSE_BUFFER = 9;
/** The status a failed call reports. */
export const REDIS_CALL_FAILED = 1;

interface ClusterClient {
  connection: RedisConnection;
  settings: string;
}

function baseCluster(name: string): string {
  const q = name.indexOf("?");
  return q < 0 ? name : name.slice(0, q);
}

export function redisImports(vm: WasmVm, hooks: () => VmHooks): Record<string, WebAssembly.ImportValue> {
  const clients = new Map<string, ClusterClient>();
  let lastToken = 3;
  const mem = () => vm.memory;
  const rootOf = (contextId: number): number | null => {
    if (vm.roots.has(contextId)) return contextId;
    return vm.streams.has(contextId) ? (vm.roots.keys().next().value ?? null) : null;
  };
  const target = (cluster: string): RedisTarget | undefined => vm.options.redis?.get(cluster);

  return {
    "env.proxy_redis_init": guarded(vm, "proxy_redis_init", (
      cPtr: number, cLen: number, uPtr: number, uLen: number, pPtr: number, pLen: number, timeoutMs: number,
    ) => {
      const name = mem().readString(cPtr, cLen);
      const username = mem().readString(uPtr, uLen);
      const password = mem().readString(pPtr, pLen);
      if (rootOf(vm.effectiveContextId) === null) return Status.BadArgument;
      const cluster = baseCluster(name);
      const t = target(cluster);
      if (!t) return Status.BadArgument;
      const settings = JSON.stringify([name, username, password, timeoutMs >>> 0]);
      const existing = clients.get(cluster);
      if (existing && existing.settings === settings) return Status.Ok;
      if (existing) {
        existing.connection.close();
        vm.redisConnections.delete(existing.connection);
      }
      const connection = t.connect({ username, password, timeoutMs: timeoutMs >>> 0, clock: vm.options.clock });
      vm.redisConnections.add(connection);
      clients.set(cluster, { connection, settings });
      return Status.Ok;
    }) as WebAssembly.ImportValue,

    "env.proxy_redis_call": guarded(vm, "proxy_redis_call", (cPtr: number, cLen: number, qPtr: number, qLen: number, tokenPtr: number) => {
      const name = mem().readString(cPtr, cLen);
      const query = mem().read(qPtr, qLen);
      mem().writeU32(tokenPtr, 0);
      const rootId = rootOf(vm.effectiveContextId);
      if (rootId === null) return Status.BadArgument;
      const client = clients.get(baseCluster(name));
      if (!client) return Status.BadArgument;
      lastToken += 4;
      const token = lastToken >>> 0;
      mem().writeU32(tokenPtr, token);
      client.connection.send(query, (reply) => {
        vm.options.clock.after(0, () => {
          if (vm.failed) return;
          vm.redisCallResponse = reply;
          try {
            hooks().redisCallResponse(rootId, token, reply ? 0 : REDIS_CALL_FAILED, reply ? reply.length : 0);
          } finally {
            vm.redisCallResponse = null;
          }
        });
      });
      return Status.Ok;
    }) as WebAssembly.ImportValue,
  };
}
