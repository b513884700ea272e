// How replica hints reach Redis. Only the Higress build has an implementation (higress-redis-transport.ts);
// keeping the host calls behind this class keeps them out of the stock build's imports.
import { Returned } from "../abi/memory";
import { HostResult } from "../abi/host";

export abstract class RedisTransport {
  /** Connects the plugin to the cluster (proxy_redis_init); returns the host status. */
  abstract init(cluster: ArrayBuffer, username: ArrayBuffer, password: ArrayBuffer, timeoutMs: u32): i32;
  /** Sends one raw RESP command: the call's token, with which the reply arrives later, or the host's refusal. */
  abstract call(cluster: ArrayBuffer, queryPtr: usize, queryLen: usize): HostResult;
  /** During the reply callback: reads the reply into `out`; returns the host status. */
  abstract readReply(size: u32, out: Returned): i32;
}
