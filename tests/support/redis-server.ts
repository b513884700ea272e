// A real redis-server for the tests (Debian's redis-server package; `.ci/run` installs it): started on
// 127.0.0.1 at a free port with persistence off, stopped by the test. `command` talks to it with the host's
// own RESP framing.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import { encodeCommand, replyLength } from "../../src-host/host/redis-resp.ts";
import type { RedisConnectOptions, RedisConnection, RedisTarget } from "../../src-host/host/redis-client.ts";

export function redisServerAvailable(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Sends one command; resolves with the raw reply as text. */
export async function command(port: number, ...parts: string[]): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis ${parts[0]}: no reply`));
    }, 3000);
    socket.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const n = replyLength(buf);
      if (n < 0) return;
      clearTimeout(timer);
      socket.end();
      resolve(buf.subarray(0, n).toString("utf8"));
    });
    socket.write(encodeCommand(parts));
  });
}

export class RedisServer {
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async start(port?: number): Promise<RedisServer> {
    const server = new RedisServer(port ?? (await freePort()));
    await server.restart();
    return server;
  }

  async restart(): Promise<void> {
    if (this.child) return;
    const child = spawn(
      "redis-server",
      ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning"],
      { stdio: "ignore" },
    );
    this.child = child;
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      try {
        if ((await command(this.port, "PING")).startsWith("+PONG")) return;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    throw new Error(`redis-server did not start on port ${this.port}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }

  /** Every key with the prefix and its remaining TTL in ms (-1: none). */
  async keys(prefix: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const list = await command(this.port, "KEYS", prefix + "*");
    const names = [...list.matchAll(/\$\d+\r\n([^\r]*)\r\n/g)].map((m) => m[1]);
    for (const k of names) out.set(k, Number((await command(this.port, "PTTL", k)).slice(1).trim()));
    return out;
  }
}

/** A RedisTarget that counts the calls sent through it and not yet answered (a reply or a failure), so a test can
 *  wait for "the publish landed" (Redis executed it before it replied) instead of sleeping a guessed while. */
export class CountedRedis implements RedisTarget {
  private outstanding = 0;

  constructor(private readonly target: RedisTarget) {}

  connect(options: RedisConnectOptions): RedisConnection {
    const connection = this.target.connect(options);
    return {
      send: (query, onReply) => {
        this.outstanding++;
        connection.send(query, (reply) => {
          this.outstanding--;
          onReply(reply);
        });
      },
      close: () => connection.close(),
    };
  }

  /** Resolves once every call sent so far is answered; throws past the deadline. */
  async answered(deadlineMs = 15_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (this.outstanding > 0) {
      if (Date.now() > deadline) throw new Error(`${this.outstanding} Redis calls still unanswered after ${deadlineMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
