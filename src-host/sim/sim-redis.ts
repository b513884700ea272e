// An in-process model of the Redis the gateway replicas share, for the simulator: it answers the commands the
// plugin sends (MGET; EVAL of its SET ... PX script) after a round-trip time on the virtual clock, and fails a
// call whose round trip exceeds the client's timeout. The plugin reaches it through the same host import path
// as a real Redis (redis-imports.ts); only the transport differs. Keys expire at their TTL; expired keys are
// dropped lazily and by a periodic sweep, so the model's memory stays bounded like a real Redis with TTLs.
import type { Clock } from "../host/clock.ts";
import type { RedisConnectOptions, RedisConnection, RedisReplyCallback, RedisTarget } from "../host/redis-client.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const SWEEP_EVERY = 4096;

/** The bulk strings of one RESP command array. */
function parseCommand(q: Uint8Array): Uint8Array[] | null {
  let pos = 0;
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
  return parts;
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
    return {
      send: (query, onReply) => this.call(query, options.timeoutMs, onReply),
      close: () => {},
    };
  }

  get keys(): number {
    return this.store.size;
  }

  private call(query: Uint8Array, timeoutMs: number, onReply: RedisReplyCallback): void {
    this.counters.calls++;
    if (this.rttMs > timeoutMs) {
      this.counters.timeouts++;
      this.clock.after(timeoutMs, () => onReply(null));
      return;
    }
    const copy = query.slice();
    this.clock.after(this.rttMs, () => onReply(this.execute(copy)));
  }

  private execute(query: Uint8Array): Uint8Array {
    const now = this.clock.nowMs();
    if (++this.ops % SWEEP_EVERY === 0) for (const [k, v] of this.store) if (v.expiresAt <= now) this.store.delete(k);
    const parts = parseCommand(query);
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
