// A small Redis client over TCP for the host's proxy_redis_call: one connection per worker VM and cluster,
// replies matched to requests in order, AUTH on connect, and Envoy's failure semantics as Higress builds on
// them (higress-group/envoy source/common/redis/async_client_impl.cc): a request that cannot be sent or whose
// connection closes fails; an operation that outlives the timeout fails, and the connection is closed with
// every request still on it failing too (Envoy's redis ClientImpl::onOpTimeout closes the connection).
import net from "node:net";
import type { Clock } from "./clock.ts";
import { RespProtocolError, encodeCommand, replyLength } from "./redis-resp.ts";

/** How a reply ends: the raw RESP reply, or null when the call failed (connection, timeout). */
export type RedisReplyCallback = (reply: Uint8Array | null) => void;

export interface RedisConnection {
  send(query: Uint8Array, onReply: RedisReplyCallback): void;
  close(): void;
}

export interface RedisConnectOptions {
  username: string;
  password: string;
  timeoutMs: number;
  clock: Clock;
}

/** Where a Higress Redis cluster name leads. */
export interface RedisTarget {
  connect(options: RedisConnectOptions): RedisConnection;
}

/** A Redis server at host:port (the tests' real redis-server). */
export function tcpRedis(port: number, host = "127.0.0.1"): RedisTarget {
  return { connect: (o) => new TcpRedisConnection(host, port, o) };
}

interface Pending {
  onReply: RedisReplyCallback;
  cancelTimer: () => void;
  /** The AUTH sent on connect: its reply is not a caller's. */
  internal: boolean;
}

class TcpRedisConnection implements RedisConnection {
  private socket: net.Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Pending[] = [];

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly options: RedisConnectOptions,
  ) {}

  send(query: Uint8Array, onReply: RedisReplyCallback): void {
    const socket = this.socket ?? this.open();
    const cancelTimer = this.options.clock.after(Math.max(1, this.options.timeoutMs), () => this.fail(socket, "timeout"));
    this.pending.push({ onReply, cancelTimer, internal: false });
    socket.write(query);
  }

  close(): void {
    if (this.socket) this.fail(this.socket, "closed");
  }

  private open(): net.Socket {
    const socket = net.connect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    const { username, password } = this.options;
    if (password.length > 0) {
      const auth = username.length > 0 ? ["AUTH", username, password] : ["AUTH", password];
      this.pending.push({ onReply: () => {}, cancelTimer: () => {}, internal: true });
      socket.write(encodeCommand(auth));
    }
    socket.on("data", (chunk: Buffer) => this.onData(socket, chunk));
    socket.on("error", () => this.fail(socket, "error"));
    socket.on("close", () => this.fail(socket, "close"));
    return socket;
  }

  private onData(socket: net.Socket, chunk: Buffer): void {
    if (socket !== this.socket) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length > 0) {
      let n: number;
      try {
        n = replyLength(this.buffer);
      } catch (e) {
        if (e instanceof RespProtocolError) return this.fail(socket, "protocol");
        throw e;
      }
      if (n < 0) return;
      const reply = Uint8Array.prototype.slice.call(this.buffer, 0, n);
      this.buffer = this.buffer.subarray(n);
      const p = this.pending.shift();
      if (!p) return this.fail(socket, "unexpected reply");
      p.cancelTimer();
      if (!p.internal) p.onReply(reply);
    }
  }

  /** Closes the connection and fails everything on it; the next send connects again. */
  private fail(socket: net.Socket, _why: string): void {
    if (socket !== this.socket) return;
    this.socket = null;
    socket.destroy();
    const failed = this.pending;
    this.pending = [];
    for (const p of failed) {
      p.cancelTimer();
      if (!p.internal) p.onReply(null);
    }
  }
}
