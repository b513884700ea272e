// An in-process model of the Redis the gateway replicas share, for the simulator: it answers the commands the
// plugin sends (MGET; EVAL of its SET ... PX script) after a round-trip time on the virtual clock. The plugin
// reaches it through the same host import path and the same client as a real Redis (redis-imports.ts,
// redis-client.ts: Envoy's write buffer, its flush timer and its connect-or-op timer, on the virtual clock); only
// the connection differs: it connects at once and delivers each command's reply rttMs after the client wrote it.
// Keys expire at their TTL; expired keys are dropped lazily and by a periodic sweep, so the model's memory stays
// bounded like a real Redis with TTLs.
import type { Clock } from "../host/clock.ts";
import { RedisClusterClient, type RedisConnectOptions, type RedisConnection, type RedisTarget, type RedisWire, type WireEvents } from "../host/redis-client.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const SWEEP_EVERY = 4096;

/** The bulk strings of the RESP command array at `from`, and where it ends; null when it is not one. */
function parseCommand(q: Uint8Array, from: number): { parts: Uint8Array[]; end: number } | null {
  let pos = from;
  const line = (): string | null => {
    for (let i = pos; i + 1 < q.length; i++) {
      if (q[i] === 13 && q[i + 1] === 10) {
        const s = dec.decode(q.subarray(pos, i));
        pos = i + 2;
        return s;
      }
    }
    return null;
  };
  const head = line();
  if (head === null || head[0] !== "*") return null;
  const parts: Uint8Array[] = [];
  for (let n = Number(head.slice(1)); n > 0; n--) {
    const h = line();
    if (h === null || h[0] !== "$") return null;
    const len = Number(h.slice(1));
    parts.push(q.subarray(pos, pos + len));
    pos += len + 2;
  }
  return { parts, end: pos };
}

export class SimRedis implements RedisTarget {
  private readonly store = new Map<string, { value: Uint8Array; expiresAt: number }>();
  private ops = 0;
  readonly counters = { calls: 0, timeouts: 0, maxKeys: 0 };

  constructor(
    private readonly clock: Clock,
    readonly rttMs: number,
  ) {}

  connect(options: RedisConnectOptions): RedisConnection {
    // 5000: the default connect_timeout; the model connects at once.
    const client = new RedisClusterClient(options, 5000, (events) => this.wire(events));
    return {
      send: (query, onReply) => {
        this.counters.calls++;
        client.send(query, (reply) => {
          // The model never drops a connection: a call fails when the op timer fired, or when proxy_redis_init or
          // a shutdown closed the connection (counted here too).
          if (reply === null) this.counters.timeouts++;
          onReply(reply);
        });
      },
      close: () => client.close(),
    };
  }

  get keys(): number {
    return this.store.size;
  }

  private wire(events: WireEvents): RedisWire {
    let open = true;
    this.clock.after(0, () => {
      if (open) events.connected();
    });
    return {
      write: (bytes) => {
        const copy = bytes.slice();
        for (let at = 0; at < copy.length; ) {
          const command = parseCommand(copy, at);
          const end = command === null ? copy.length : command.end;
          const parts = command?.parts ?? null;
          // Redis runs the command whether or not the client is still there for the reply.
          this.clock.after(this.rttMs, () => {
            const reply = this.execute(parts);
            if (open) events.data(reply);
          });
          at = end;
        }
      },
      close: () => {
        open = false;
      },
    };
  }

  private execute(parts: Uint8Array[] | null): Uint8Array {
    const now = this.clock.nowMs();
    if (++this.ops % SWEEP_EVERY === 0) for (const [k, v] of this.store) if (v.expiresAt <= now) this.store.delete(k);
    if (parts === null || parts.length === 0) return enc.encode("-ERR protocol error\r\n");
    const name = dec.decode(parts[0]).toUpperCase();
    if (name === "MGET") {
      const chunks: Uint8Array[] = [enc.encode(`*${parts.length - 1}\r\n`)];
      for (const k of parts.slice(1)) {
        const key = dec.decode(k);
        const e = this.store.get(key);
        if (e === undefined || e.expiresAt <= now) {
          if (e) this.store.delete(key);
          chunks.push(enc.encode("$-1\r\n"));
        } else {
          chunks.push(enc.encode(`$${e.value.length}\r\n`), e.value, enc.encode("\r\n"));
        }
      }
      return Buffer.concat(chunks);
    }
    if (name === "EVAL" && parts.length >= 3) {
      // The plugin's publish script: SET every KEYS[i] to ARGV[1] with PX ARGV[2].
      const script = dec.decode(parts[1]);
      const numKeys = Number(dec.decode(parts[2]));
      if (!script.includes("'SET',KEYS[i],ARGV[1],'PX',ARGV[2]") || parts.length !== 3 + numKeys + 2) {
        return enc.encode("-ERR the simulated Redis runs only the plugin's publish script\r\n");
      }
      const value = parts[3 + numKeys].slice();
      const ttl = Number(dec.decode(parts[4 + numKeys]));
      for (let i = 0; i < numKeys; i++) this.store.set(dec.decode(parts[3 + i]), { value, expiresAt: now + ttl });
      this.counters.maxKeys = Math.max(this.counters.maxKeys, this.store.size);
      return enc.encode(`:${numKeys}\r\n`);
    }
    return enc.encode(`-ERR unknown command '${name}'\r\n`);
  }
}
