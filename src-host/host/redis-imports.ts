// Higress's Redis host calls, with the semantics of Higress's sources:
//  - proxy_redis_init / proxy_redis_call act on the root context of the current context and write the token
//    before starting anything (higress-group/proxy-wasm-cpp-host src/exports.cc redis_init, redis_call);
//    tokens are callout ids whose low two bits are 3 (include/proxy-wasm/wasm.h nextRedisCallId).
//  - the cluster is the name up to "?"; what follows is a query of options (higress-group/envoy
//    source/extensions/common/wasm/context.cc Context::redisInit / Context::redisCall; higress-group/wasm-go
//    pkg/wrapper/redis_wrapper.go Init appends db / buffer_flush_timeout / max_buffer_size_before_flush).
//  - an unknown cluster is BadArgument (Context::redisInit / redisCall). A known cluster always has a client
//    (cluster_manager_impl.cc ClusterEntry::redisAsyncClient makes it with ConfigImpl's defaults: 1000 ms, no
//    AUTH), so a call on a cluster that was never initialised goes out.
//  - init closes the cluster's connection (failing its requests) and takes the new configuration, except when
//    the client was already initialised with the same one (higress-group/envoy envoy-1.36
//    source/common/redis/async_client_impl.cc AsyncClientImpl::initialize, currentConfigEquals; envoy-1.27 always
//    closes).
//  - the reply reaches proxy_on_redis_call_response(root, token, status, size) from the event that ends the call (the
//    reply read, the connection closed), never inside a module call (a failure caused during one, when
//    proxy_redis_init closes the connection, comes when that call returns); none comes once the VM is shut down
//    (Context::~Context cancels); status RedisStatus::Ok (0) is a reply, readable as buffer type 9 (BufferType.RedisCallResponse) during the
//    callback (empty, never missing, otherwise: buffer-calls.ts), RedisStatus::NetworkError (1) a
//    failed call with no reply (higress-group/proxy-wasm-cpp-sdk proxy_wasm_enums.h RedisStatus; context.cc
//    Context::onRedisCallSuccess / onRedisCallFailure). A failure also sets the root context's status, read by
//    proxy_get_status, to BrokenConnection with the message "reset" during the callback (Context::onRedisCallFailure).
import { Status } from "./abi.ts";
import type { VmHooks } from "./envoy-imports.ts";
import { guarded } from "./envoy-imports.ts";
import { DEFAULT_CLIENT_CONFIG, clientConfig, sameClientConfig, type RedisClientConfig, type RedisConnection, type RedisTarget } from "./redis-client.ts";
import type { WasmVm } from "./vm.ts";

/** RedisStatus::NetworkError, the status of every failed call. */
export const REDIS_CALL_FAILED = 1;

/** A cluster's AsyncClientImpl on this worker. */
interface ClusterClient {
  connection: RedisConnection;
  config: RedisClientConfig;
  initialized: boolean;
}

function baseCluster(name: string): string {
  const q = name.indexOf("?");
  return q < 0 ? name : name.slice(0, q);
}

export function redisImports(vm: WasmVm, hooks: () => VmHooks): Record<string, WebAssembly.ImportValue> {
  // higress-group/proxy-wasm-cpp-host src/wasm.cc WasmBase::registerCallbacks registers redis_init and redis_call
  // for the 0.2.1 and 0.2.100 ABIs only: a 0.1.0 or 0.2.0 module importing them fails to load.
  if (vm.abiVersion !== "0.2.1" && vm.abiVersion !== "0.2.100") return {};
  const clients = new Map<string, ClusterClient>();
  let lastToken = 3;
  const mem = () => vm.memory;
  const target = (cluster: string): RedisTarget | undefined => vm.options.redis?.get(cluster);
  const connect = (t: RedisTarget, config: RedisClientConfig): RedisConnection => {
    const connection = t.connect({ ...config, clock: vm.options.clock });
    vm.redisConnections.add(connection);
    return connection;
  };

  return {
    "env.proxy_redis_init": guarded(vm, "proxy_redis_init", (
      cPtr: number, cLen: number, uPtr: number, uLen: number, pPtr: number, pLen: number, timeoutMs: number,
    ) => {
      const name = mem().readString(cPtr, cLen);
      const username = mem().readString(uPtr, uLen);
      const password = mem().readString(pPtr, pLen);
      if (vm.rootOf(vm.effectiveContextId) === null) return Status.BadArgument;
      const cluster = baseCluster(name);
      const t = target(cluster);
      if (!t) return Status.BadArgument;
      const config = clientConfig(name, username, password, timeoutMs >>> 0);
      const existing = clients.get(cluster);
      if (existing?.initialized && sameClientConfig(existing.config, config)) return Status.Ok;
      if (existing) {
        existing.connection.close();
        vm.redisConnections.delete(existing.connection);
      }
      clients.set(cluster, { connection: connect(t, config), config, initialized: true });
      return Status.Ok;
    }) as WebAssembly.ImportValue,

    "env.proxy_redis_call": guarded(vm, "proxy_redis_call", (cPtr: number, cLen: number, qPtr: number, qLen: number, tokenPtr: number) => {
      const name = mem().readString(cPtr, cLen);
      const query = mem().read(qPtr, qLen);
      mem().writeU32(tokenPtr, 0);
      const rootId = vm.rootOf(vm.effectiveContextId);
      if (rootId === null) return Status.BadArgument;
      const cluster = baseCluster(name);
      const t = target(cluster);
      if (!t) return Status.BadArgument;
      let client = clients.get(cluster);
      if (!client) {
        client = { connection: connect(t, DEFAULT_CLIENT_CONFIG), config: DEFAULT_CLIENT_CONFIG, initialized: false };
        clients.set(cluster, client);
      }
      lastToken += 4;
      const token = lastToken >>> 0;
      mem().writeU32(tokenPtr, token);
      client.connection.send(query, (reply) => {
        const deliver = () => {
          if (vm.failed || vm.shutDown) return;
          const root = vm.roots.get(rootId);
          if (!root) return;
          vm.redisCallResponse = reply === null ? null : { rootId, reply };
          if (reply === null) {
            root.statusCode = Status.BrokenConnection;
            root.statusMessage = "reset";
          }
          try {
            hooks().redisCallResponse(rootId, token, reply ? 0 : REDIS_CALL_FAILED, reply ? reply.length : 0);
          } finally {
            vm.redisCallResponse = null;
            root.statusMessage = "";
          }
        };
        // Context::onRedisCallSuccess / onRedisCallFailure: the callback runs at once, from the client's event (a reply
        // read, a close: raw_client_impl.cc RawClientImpl::onRawResponse / onEvent), unless that comes during a
        // module call (proxy_redis_init closing the connection: current_context_ is set), when it runs after the
        // call returns (wasm()->addAfterVmCallAction). WasmVm.addAfterVmCallAction does both.
        vm.addAfterVmCallAction(deliver);
      });
      return Status.Ok;
    }) as WebAssembly.ImportValue,
  };
}
