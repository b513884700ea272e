// How replica hints reach Redis. Only the Higress build has an implementation (higress-redis-transport.ts);
// keeping the host calls behind this class keeps them out of the stock build's imports.
import { Returned } from "../abi/memory";

export abstract class RedisTransport {
  /** The callout id of the last successful call(). */
  token: u32 = 0;
  /** Connects the plugin to the cluster (proxy_redis_init); returns the host status. */
  abstract init(cluster: ArrayBuffer, username: ArrayBuffer, password: ArrayBuffer, timeoutMs: u32): i32;
  /** Sends one raw RESP command; on Ok the reply arrives later with `token`. */
  abstract call(cluster: ArrayBuffer, queryPtr: usize, queryLen: usize): i32;
  /** During the reply callback: reads the reply into `out`; returns the host status. */
  abstract readReply(size: u32, out: Returned): i32;
}
