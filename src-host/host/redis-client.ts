// The Redis client behind Higress's proxy_redis_call, as Higress's Envoy builds it (higress-group/envoy):
//  - each cluster has one client per worker, made on first use with ConfigImpl's defaults
//    (source/common/upstream/cluster_manager_impl.cc ClusterEntry::redisAsyncClient,
//    source/common/redis/async_client_impl.h ConfigImpl()) and reconfigured by proxy_redis_init;
//  - it keeps one connection to the cluster's host (a RawClientImpl), made by the first request after the last
//    one closed (async_client_impl.cc AsyncClientImpl::threadLocalActiveClient, ThreadLocalActiveClient::onEvent);
//  - the connection's timers, write buffer, AUTH / SELECT and failures are RawClientImpl's
//    (source/extensions/filters/network/common/redis/raw_client_impl.cc): see RawClient below.
import net from "node:net";
import type { Clock } from "./clock.ts";
import { RespProtocolError, encodeCommand, replyLength } from "./redis-resp.ts";
import { ByteQueue } from "./byte-queue.ts";

/** How a reply ends: the raw RESP reply, or null when the call failed (connection closed, timeout). */
export type RedisReplyCallback = (reply: Uint8Array | null) => void;

export interface RedisConnection {
  send(query: Uint8Array, onReply: RedisReplyCallback): void;
  /** Closes the connection; every request on it fails. */
  close(): void;
}

/** A cluster client's configuration (envoy/redis/async_client.h AsyncClientConfig, read by ConfigImpl). */
export interface RedisClientConfig {
  username: string;
  password: string;
  opTimeoutMs: number;
  /** The cluster name's query: db, buffer_flush_timeout, max_buffer_size_before_flush, ... */
  params: ReadonlyMap<string, string>;
  maxBufferSizeBeforeFlush: number;
  bufferFlushTimeoutMs: number;
}

export interface RedisConnectOptions extends RedisClientConfig {
  clock: Clock;
}

/** async_client_impl.h ConfigImpl(): a cluster's client before any proxy_redis_init. */
export const DEFAULT_CLIENT_CONFIG: RedisClientConfig = {
  username: "", password: "", opTimeoutMs: 1000, params: new Map(), maxBufferSizeBeforeFlush: 1024, bufferFlushTimeoutMs: 3,
};

/** source/common/http/utility.cc Utility::parseQueryString: after the first "?", "&"-separated, not decoded; a
 *  name without "=" has the value ""; the first of a repeated name wins (std::map::emplace). */
export function parseQueryString(url: string): Map<string, string> {
  const params = new Map<string, string>();
  const q = url.indexOf("?");
  if (q < 0) return params;
  for (let start = q + 1; start < url.length; ) {
    let end = url.indexOf("&", start);
    if (end < 0) end = url.length;
    const part = url.slice(start, end);
    const eq = part.indexOf("=");
    const [name, value] = eq < 0 ? [part, ""] : [part.slice(0, eq), part.slice(eq + 1)];
    if (!params.has(name)) params.set(name, value);
    start = end + 1;
  }
  return params;
}

/** AsyncClientConfig::parseUint32FromParams (higress-group/envoy envoy-1.36 envoy/redis/async_client.h):
 *  std::stoul of the value, the default when it does not parse or exceeds uint32. */
function uint32Param(params: ReadonlyMap<string, string>, key: string, fallback: number): number {
  const value = params.get(key);
  const m = value === undefined ? null : /^[ \t\n\v\f\r]*([+-]?)(\d+)/.exec(value);
  if (m === null) return fallback;
  const n = BigInt(m[2]);
  if (n >= 1n << 64n) return fallback; // std::out_of_range
  const v = m[1] === "-" && n !== 0n ? (1n << 64n) - n : n; // strtoul negates in unsigned long
  return v <= 0xffffffffn ? Number(v) : fallback;
}

/**
 * What proxy_redis_init configures (Context::redisInit: AsyncClientConfig(username, password, timeout,
 * Http::Utility::parseQueryString(cluster))). Envoy 1.36 (what alibaba/higress pins) reads buffer_flush_timeout and
 * max_buffer_size_before_flush from the query (AsyncClientConfig constructor); the envoy-1.27 branch fixed them at
 * 3 ms and 1024 bytes. Both read db (raw_client_impl.cc RawClientImpl::initialize).
 */
export function clientConfig(clusterName: string, username: string, password: string, timeoutMs: number): RedisClientConfig {
  const params = parseQueryString(clusterName);
  return {
    username, password, opTimeoutMs: timeoutMs, params,
    maxBufferSizeBeforeFlush: uint32Param(params, "max_buffer_size_before_flush", 1024),
    bufferFlushTimeoutMs: uint32Param(params, "buffer_flush_timeout", 3),
  };
}

/** Whether two configurations are the same for AsyncClientImpl::initialize (envoy-1.36 currentConfigEquals). */
export function sameClientConfig(a: RedisClientConfig, b: RedisClientConfig): boolean {
  if (a.username !== b.username || a.password !== b.password || a.opTimeoutMs !== b.opTimeoutMs) return false;
  if (a.maxBufferSizeBeforeFlush !== b.maxBufferSizeBeforeFlush || a.bufferFlushTimeoutMs !== b.bufferFlushTimeoutMs) return false;
  if (a.params.size !== b.params.size) return false;
  for (const [k, v] of a.params) if (b.params.get(k) !== v) return false;
  return true;
}

/** Where a Higress Redis cluster name leads. */
export interface RedisTarget {
  connect(options: RedisConnectOptions): RedisConnection;
}

/** What a connection reports (Envoy's Network::ConnectionCallbacks events and its read filter). */
export interface WireEvents {
  connected(): void;
  data(chunk: Uint8Array): void;
  /** The peer closed or the connect failed (RemoteClose). */
  closed(): void;
}

/** A byte stream to the cluster's host (Envoy's Network::ClientConnection): writes made before it is
 *  connected are held and sent once it is. */
export interface RedisWire {
  write(bytes: Uint8Array): void;
  close(): void;
}

export type OpenWire = (events: WireEvents) => RedisWire;

export interface TcpRedisOptions {
  /** The cluster's connect_timeout (envoy cluster.proto: 5 s when not set). */
  connectTimeoutMs?: number;
  /** net.connect's resolver, for a host name (tests: one that never answers stands for a blackholed address). */
  lookup?: net.LookupFunction;
}

/** A Redis server at host:port (the tests' real redis-server). */
export function tcpRedis(port: number, host = "127.0.0.1", options: TcpRedisOptions = {}): RedisTarget {
  const open: OpenWire = (events) => {
    const socket = net.connect({ host, port, lookup: options.lookup });
    socket.setNoDelay(true);
    socket.on("connect", () => events.connected());
    socket.on("data", (chunk: Buffer) => events.data(chunk));
    socket.on("error", () => {}); // "close" follows
    socket.on("close", () => events.closed());
    return { write: (bytes) => void socket.write(bytes), close: () => void socket.destroy() };
  };
  return { connect: (o) => new RedisClusterClient(o, options.connectTimeoutMs ?? 5000, open) };
}

/** A cluster client's connection slot: a RawClient, replaced by a new one on the first request after it closed. */
export class RedisClusterClient implements RedisConnection {
  private raw: RawClient | null = null;

  constructor(
    private readonly options: RedisConnectOptions,
    private readonly connectTimeoutMs: number,
    private readonly open: OpenWire,
  ) {}

  send(query: Uint8Array, onReply: RedisReplyCallback): void {
    // AsyncClientImpl::threadLocalActiveClient: the host's client stays in client_map_ until its
    // ThreadLocalActiveClient::onEvent(close), which the connection raises after RawClientImpl::onEvent (callbacks
    // run in the order they were added: RawClientImpl::create adds the RawClientImpl first). So a call made while
    // the closing client fails its requests (from a failure's callback) goes on that client, and fails with them.
    if (this.raw === null || (this.raw.closed && !this.raw.failingRequests)) this.raw = new RawClient(this.options, this.connectTimeoutMs, this.open);
    this.raw.makeRawRequest(query, onReply);
  }

  close(): void {
    this.raw?.close();
    this.raw = null;
  }
}

/** raw_client_impl.cc RawClientImpl: one connection, its requests answered in order. */
class RawClient {
  closed = false;
  /** onClose is failing the pending requests (RawClientImpl::onEvent's loop). */
  failingRequests = false;
  private connected = false;
  /** Callbacks in request order; null for initialize's requests (null_raw_client_callbacks). */
  private readonly pending: Array<RedisReplyCallback | null> = [];
  private encoderBuffer: Uint8Array[] = [];
  private encoderLength = 0;
  private cancelFlushTimer: (() => void) | null = null;
  private cancelConnectOrOpTimer: (() => void) | null = null;
  private readonly input = new ByteQueue();
  private readonly wire: RedisWire;

  constructor(
    private readonly o: RedisConnectOptions,
    connectTimeoutMs: number,
    open: OpenWire,
  ) {
    // RawClientImpl::RawClientImpl: the connect timeout runs until Connected; then RawClientFactoryImpl::create
    // calls initialize.
    this.enableConnectOrOpTimer(connectTimeoutMs);
    this.wire = open({ connected: () => this.onConnected(), data: (c) => this.onData(c), closed: () => this.onClose() });
    this.initialize();
  }

  /** RawClientImpl::initialize: AUTH (with the username when there is one), then SELECT when the cluster name has db. */
  private initialize(): void {
    const { username, password, params } = this.o;
    if (username.length > 0) this.makeRawRequest(encodeCommand(["AUTH", username, password]), null);
    else if (password.length > 0) this.makeRawRequest(encodeCommand(["AUTH", password]), null);
    const db = params.get("db");
    if (db !== undefined) this.makeRawRequest(encodeCommand(["SELECT", db]), null);
  }

  /** RawClientImpl::makeRawRequest. */
  makeRawRequest(request: Uint8Array, onReply: RedisReplyCallback | null): void {
    const emptyBuffer = this.encoderLength === 0;
    this.pending.push(onReply);
    this.encoderBuffer.push(request);
    this.encoderLength += request.length;
    if (this.encoderLength >= this.o.maxBufferSizeBeforeFlush) this.flushBufferAndResetTimer();
    else if (emptyBuffer) this.cancelFlushTimer = this.o.clock.after(this.o.bufferFlushTimeoutMs, () => this.flushBufferAndResetTimer());
    // Before Connected the connect timeout governs; after, the op timer starts with the first request in flight.
    if (this.connected && this.pending.length === 1) this.enableConnectOrOpTimer(this.o.opTimeoutMs);
  }

  /** RawClientImpl::close (ConnectionCloseType::NoFlush), which raises LocalClose. */
  close(): void {
    if (this.closed) return;
    this.wire.close();
    this.onClose();
  }

  private flushBufferAndResetTimer(): void {
    this.cancelFlushTimer?.();
    this.cancelFlushTimer = null;
    if (this.closed || this.encoderLength === 0) return;
    const bytes = this.encoderBuffer.length === 1 ? this.encoderBuffer[0] : Buffer.concat(this.encoderBuffer);
    this.encoderBuffer = [];
    this.encoderLength = 0;
    this.wire.write(bytes);
  }

  private enableConnectOrOpTimer(ms: number): void {
    this.cancelConnectOrOpTimer?.();
    this.cancelConnectOrOpTimer = this.o.clock.after(ms, () => this.close()); // onConnectOrOpTimeout
  }

  private disableConnectOrOpTimer(): void {
    this.cancelConnectOrOpTimer?.();
    this.cancelConnectOrOpTimer = null;
  }

  /** RawClientImpl::onEvent(Connected). */
  private onConnected(): void {
    if (this.closed) return;
    this.connected = true;
    this.enableConnectOrOpTimer(this.o.opTimeoutMs);
  }

  /** RawClientImpl::onData: a reply that is not RESP closes the connection. */
  private onData(chunk: Uint8Array): void {
    if (this.closed) return;
    this.input.append(chunk);
    while (this.input.length > 0 && !this.closed) {
      const pending = this.input.view();
      let n: number;
      try {
        n = replyLength(pending);
      } catch (e) {
        if (e instanceof RespProtocolError) return this.close();
        throw e;
      }
      if (n < 0) return;
      const reply = pending.slice(0, n);
      this.input.consume(n);
      this.onRawResponse(reply);
    }
  }

  /** RawClientImpl::onRawResponse: the request is popped before its callback; the op timer restarts while
   *  requests remain and stops when none do. */
  private onRawResponse(reply: Uint8Array): void {
    if (this.pending.length === 0) return this.close(); // a reply nobody asked for: Envoy asserts
    const onReply = this.pending.shift()!;
    onReply?.(reply);
    if (this.closed) return;
    if (this.pending.length === 0) this.disableConnectOrOpTimer();
    else this.enableConnectOrOpTimer(this.o.opTimeoutMs);
  }

  /** RawClientImpl::onEvent(RemoteClose / LocalClose): every pending request fails, in order, including one added
   *  by a failure's callback (`while (!pending_requests_.empty())`); then the connect-or-op timer stops. */
  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.failingRequests = true;
    try {
      while (this.pending.length > 0) this.pending.shift()?.(null);
    } finally {
      this.failingRequests = false;
    }
    this.disableConnectOrOpTimer();
    this.cancelFlushTimer?.();
    this.cancelFlushTimer = null;
  }
}
