// The host's proxy_redis_init / proxy_redis_call against a real redis-server, made by a test plugin
// (tests/guest/redis-calls.ts) exactly as the test asks: the client behaves as Higress's Envoy builds it
// (raw_client_impl.cc RawClientImpl, async_client_impl.cc AsyncClientImpl, context.cc Context::redisInit /
// redisCall / onRedisCallFailure; see src-host/host/redis-client.ts). A slow reply is a BLPOP that the test
// answers (or never answers) with LPUSH: CLIENT PAUSE would also hold the test's own commands until it ends.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { RealClock } from "../../src-host/host/clock.ts";
import { PluginHost } from "../../src-host/host/plugin-host.ts";
import { encodeCommand } from "../../src-host/host/redis-resp.ts";
import { tcpRedis, type RedisTarget } from "../../src-host/host/redis-client.ts";
import { compileFixture } from "../support/compile.ts";
import { RedisServer, command, redisServerAvailable } from "../support/redis-server.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const skip = redisServerAvailable() ? false : "redis-server is not installed (apt-get install -y redis-server)";
const enc = new TextEncoder();

let server: RedisServer;
let wasm: Uint8Array;
before(async () => {
  if (skip) return;
  [server, wasm] = await Promise.all([RedisServer.start(), compileFixture("tests/guest/redis-calls.ts")]);
});
after(async () => {
  await server?.stop();
});

interface Reply {
  /** ms since the call was made (from just before proxy_redis_call) */
  afterMs: number;
  at: number;
  status: number;
  /** proxy_get_status during the callback */
  code: number;
  message: string;
  /** proxy_get_buffer_bytes(9, 0, size) during the callback */
  read: number;
  reply: string;
}

class Plugin {
  readonly host: PluginHost;
  private readonly replies = new Map<number, { at: number; line: string }>();
  private readonly sentAt = new Map<number, number>();
  private readonly statuses: string[] = [];
  readonly lines: string[] = [];

  constructor(target: RedisTarget) {
    this.host = PluginHost.create({
      wasm, flavor: "higress", clock: new RealClock(), redis: new Map([[CLUSTER, target]]),
      log: (_level, message) => {
        const m = /^REPLY (\d+) /.exec(message);
        if (m) this.replies.set(Number(m[1]), { at: Date.now(), line: message });
        else if (message.startsWith("STATUS ")) this.statuses.push(message.slice(7));
        else this.lines.push(message);
      },
    });
  }

  private get worker() {
    return this.host.workers[0];
  }

  private put(text: string | Uint8Array): [number, number] {
    const bytes = typeof text === "string" ? enc.encode(text) : text;
    if (bytes.length === 0) return [0, 0];
    const exports = this.worker.vm.instance.exports;
    const ptr = (exports.malloc as (n: number) => number)(bytes.length) >>> 0;
    new Uint8Array((exports.memory as WebAssembly.Memory).buffer, ptr, bytes.length).set(bytes);
    return [ptr, bytes.length];
  }

  private run(name: string, args: number[]): number {
    const r = this.worker.safeCall(name, args, this.worker.rootContextId);
    assert.ok(r.ok, `${name} trapped`);
    return r.value;
  }

  init(cluster: string, timeoutMs: number, username = "", password = ""): number {
    return this.run("fixture_redis_init", [...this.put(cluster), ...this.put(username), ...this.put(password), timeoutMs]);
  }

  /** The call's token, or minus the host's status. */
  call(cluster: string, ...parts: string[]): number {
    const [c, q] = [this.put(cluster), this.put(encodeCommand(parts))];
    // Timed from before the call: the host starts the call's timers during it (the connect timeout with the
    // connection), and a first call can take a few hundred ms under load (the first net.connect to a host name
    // runs cold code).
    const at = Date.now();
    const token = this.run("fixture_redis_call", [...c, ...q]);
    if (token > 0) this.sentAt.set(token, at);
    return token;
  }

  /** proxy_get_status outside any callback: "<code> <message>". */
  status(): string {
    this.run("fixture_status", []);
    return this.statuses.at(-1)!;
  }

  async reply(token: number, waitMs = 4000): Promise<Reply> {
    assert.ok(token > 0, `the call went out (status ${-token})`);
    const deadline = Date.now() + waitMs;
    while (!this.replies.has(token) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    const got = this.replies.get(token);
    assert.ok(got, `no reply to call ${token} within ${waitMs} ms`);
    const m = /^REPLY \d+ (\d+) (\d+) (\S+) (\d+) (.*)$/s.exec(got.line)!;
    return {
      afterMs: got.at - this.sentAt.get(token)!, at: got.at, status: Number(m[1]), code: Number(m[2]), message: m[3],
      read: Number(m[4]), reply: m[5],
    };
  }

  /** Reads buffer type 9 outside any callback: [get_buffer_bytes status, bytes, get_buffer_status status, size]. */
  readReplyBuffer(): number[] {
    this.run("fixture_read_reply_buffer", []);
    return this.lines.at(-1)!.replace(/^BUFFER /, "").split(" ").map(Number);
  }

  /** The next failed call's callback calls again with this command. */
  callAgainOnFailure(cluster: string, ...parts: string[]): void {
    this.run("fixture_call_again_on_failure", [...this.put(cluster), ...this.put(encodeCommand(parts))]);
  }

  close(): void {
    this.host.close();
  }
}

const BAD_ARGUMENT = 2;
const BROKEN_CONNECTION = 11;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a call on a cluster never initialised goes out with ConfigImpl's defaults: no AUTH, a 1000 ms op timeout", { skip }, async () => {
  const p = new Plugin(tcpRedis(server.port));
  assert.equal(p.call("outbound|6379||nowhere", "PING"), -BAD_ARGUMENT, "an unknown cluster is BadArgument");
  const pong = await p.reply(p.call(CLUSTER, "PING"));
  assert.deepEqual([pong.status, pong.code, pong.reply], [0, 0, "+PONG\r\n"]);
  assert.match((await p.reply(p.call(CLUSTER, "ACL", "WHOAMI"))).reply, /default/);
  // A reply that takes 3 s: the call fails at the 1000 ms default.
  const slow = await p.reply(p.call(CLUSTER, "BLPOP", "host-client:never", "3"));
  assert.equal(slow.status, 1, "RedisStatus::NetworkError");
  assert.ok(slow.afterMs >= 800 && slow.afterMs < 2500, `failed after ${slow.afterMs} ms`);
  // Context::onRedisCallFailure: BrokenConnection and "reset" during the callback; the code stays.
  assert.deepEqual([slow.code, slow.message], [BROKEN_CONNECTION, "reset"]);
  assert.equal(p.status(), `${BROKEN_CONNECTION} -`);
  // The next call opens a new connection.
  assert.equal((await p.reply(p.call(CLUSTER, "PING"))).reply, "+PONG\r\n");
  p.close();
});

test("the op timer: armed by the first request in flight, restarted by each reply, and on expiry every request fails", { skip }, async () => {
  const p = new Plugin(tcpRedis(server.port));
  assert.equal(p.init(CLUSTER + "?buffer_flush_timeout=0&max_buffer_size_before_flush=0", 600), 0);
  await p.reply(p.call(CLUSTER, "PING")); // connected
  // Two replies 350 and 800 ms on: the second comes 800 ms after it was sent, but 450 ms after the first reply.
  const first = p.call(CLUSTER, "BLPOP", "host-client:a", "10");
  const second = p.call(CLUSTER, "BLPOP", "host-client:b", "10");
  await sleep(350);
  await command(server.port, "LPUSH", "host-client:a", "1");
  await sleep(450);
  await command(server.port, "LPUSH", "host-client:b", "2");
  const [a, b] = [await p.reply(first), await p.reply(second)];
  assert.deepEqual([a.status, b.status], [0, 0], `replies after ${a.afterMs} and ${b.afterMs} ms`);
  assert.match(b.reply, /host-client:b/);

  // A reply that never comes: the head request fails at the op timeout, and with it the one sent 400 ms later
  // (a later request does not restart the timer).
  const head = p.call(CLUSTER, "BLPOP", "host-client:never", "10");
  await sleep(400);
  const behind = p.call(CLUSTER, "PING");
  const [h, k] = [await p.reply(head), await p.reply(behind)];
  assert.deepEqual([h.status, k.status], [1, 1]);
  assert.ok(h.afterMs >= 500 && h.afterMs < 850, `the head failed after ${h.afterMs} ms (op timeout 600)`);
  assert.ok(Math.abs(k.at - h.at) < 75, `both failed together (${k.at - h.at} ms apart)`);
  assert.deepEqual([k.code, k.message], [BROKEN_CONNECTION, "reset"]);
  p.close();
});

test("a connect that never completes is bounded by the cluster's connect timeout, not the op timeout", { skip }, async () => {
  // A resolver that never answers stands for a blackholed address: the connect neither succeeds nor fails.
  const never = new Plugin(tcpRedis(server.port, "redis.blackhole.test", { connectTimeoutMs: 500, lookup: () => {} }));
  assert.equal(never.init(CLUSTER, 50), 0);
  const r = await never.reply(never.call(CLUSTER, "PING"));
  assert.equal(r.status, 1);
  assert.ok(r.afterMs >= 450 && r.afterMs < 3000, `failed after ${r.afterMs} ms (op timeout 50, connect timeout 500)`);
  never.close();
  // A connect slower than the op timeout (its name takes 200 ms to resolve) still gets its reply.
  const slowLookup = (_host: string, options: { all?: boolean }, cb: (e: Error | null, ...answer: unknown[]) => void) =>
    setTimeout(() => (options.all ? cb(null, [{ address: "127.0.0.1", family: 4 }]) : cb(null, "127.0.0.1", 4)), 200);
  const slow = new Plugin(tcpRedis(server.port, "redis.slow.test", { lookup: slowLookup as never }));
  assert.equal(slow.init(CLUSTER, 50), 0);
  const pong = await slow.reply(slow.call(CLUSTER, "PING"));
  assert.equal(pong.reply, "+PONG\r\n", `after ${pong.afterMs} ms`);
  slow.close();
});

test("writes are buffered: buffer_flush_timeout and max_buffer_size_before_flush come from the cluster name", { skip }, async () => {
  const p = new Plugin(tcpRedis(server.port));
  assert.equal(p.init(CLUSTER + "?buffer_flush_timeout=250&max_buffer_size_before_flush=64", 2000), 0);
  await p.reply(p.call(CLUSTER, "PING")); // connected
  const small = await p.reply(p.call(CLUSTER, "PING"));
  assert.ok(small.afterMs >= 200, `a 14-byte command waits for the flush timer (${small.afterMs} ms)`);
  // A small command waits until a later one fills the buffer to 64 bytes: both go then.
  const waiting = p.call(CLUSTER, "PING");
  await sleep(30);
  const big = p.call(CLUSTER, "ECHO", "x".repeat(100));
  const [w, b] = [await p.reply(waiting), await p.reply(big)];
  assert.ok(w.afterMs < 200 && b.afterMs < 150, `flushed when full: ${w.afterMs} and ${b.afterMs} ms`);
  // What the plugin passes to send at once.
  assert.equal(p.init(CLUSTER + "?buffer_flush_timeout=0&max_buffer_size_before_flush=0", 2000), 0);
  await p.reply(p.call(CLUSTER, "PING"));
  const now = await p.reply(p.call(CLUSTER, "PING"));
  assert.ok(now.afterMs < 150, `sent at once (${now.afterMs} ms)`);
  p.close();
});

test("initialize: AUTH with username and password, AUTH with the password alone, then SELECT from ?db=", { skip }, async () => {
  await command(server.port, "ACL", "SETUSER", "host-client", "on", ">pw", "~*", "&*", "+@all");
  const p = new Plugin(tcpRedis(server.port));
  assert.equal(p.init(CLUSTER + "?db=5", 2000, "host-client", "pw"), 0);
  const info = (await p.reply(p.call(CLUSTER, "CLIENT", "INFO"))).reply;
  assert.match(info, / user=host-client /);
  assert.match(info, / db=5 /);
  // The default user with a password (requirepass): AUTH <password> goes before SELECT, or SELECT would be refused.
  assert.match((await p.reply(p.call(CLUSTER, "CONFIG", "SET", "requirepass", "secret"))).reply, /^\+OK/);
  assert.equal(p.init(CLUSTER + "?db=3", 2000, "", "secret"), 0);
  const defaultInfo = (await p.reply(p.call(CLUSTER, "CLIENT", "INFO"))).reply;
  assert.match(defaultInfo, / user=default /);
  assert.match(defaultInfo, / db=3 /);
  assert.match((await p.reply(p.call(CLUSTER, "CONFIG", "SET", "requirepass", ""))).reply, /^\+OK/);
  // Without db in the name there is no SELECT.
  assert.equal(p.init(CLUSTER, 2000), 0);
  assert.match((await p.reply(p.call(CLUSTER, "CLIENT", "INFO"))).reply, / db=0 /);
  p.close();
  await command(server.port, "ACL", "DELUSER", "host-client");
});

test("init keeps the connection for the configuration in use and closes it for another, failing the calls on it", { skip }, async () => {
  const p = new Plugin(tcpRedis(server.port));
  // The first init replaces the default client even when nothing differs (AsyncClientImpl::initialized_).
  const beforeInit = p.call(CLUSTER, "BLPOP", "host-client:x", "0.3");
  assert.equal(p.init(CLUSTER, 1000), 0);
  assert.equal((await p.reply(beforeInit)).status, 1);
  const kept = p.call(CLUSTER, "BLPOP", "host-client:x", "0.3");
  assert.equal(p.init(CLUSTER, 1000), 0);
  const k = await p.reply(kept);
  assert.deepEqual([k.status, k.reply], [0, "*-1\r\n"], "the same configuration: the call is answered");
  const dropped = p.call(CLUSTER, "BLPOP", "host-client:x", "0.3");
  assert.equal(p.init(CLUSTER + "?db=1", 1000), 0);
  const d = await p.reply(dropped);
  assert.ok(d.status === 1 && d.afterMs < 200, `another configuration: the call fails at once (${d.afterMs} ms)`);
  p.close();
});

test("the reply buffer (type 9) is always there: empty outside the callback and in a failed call's callback", { skip }, async () => {
  // envoy context.cc Context::getBuffer: RedisCallResponse is buffer_.set(rootContext()->redis_call_response_), never
  // null; the string is the reply during proxy_on_redis_call_response and cleared after it (onRedisCallSuccess),
  // empty for a failure (onRedisCallFailure). cpp-host exports.cc get_buffer_bytes: an empty buffer is Ok, size 0.
  const p = new Plugin(tcpRedis(server.port));
  assert.deepEqual(p.readReplyBuffer(), [0, 0, 0, 0], "before any call");
  const pong = await p.reply(p.call(CLUSTER, "PING"));
  assert.deepEqual([pong.read, pong.reply], [0, "+PONG\r\n"]);
  assert.deepEqual(p.readReplyBuffer(), [0, 0, 0, 0], "after the callback");
  assert.equal(p.init(CLUSTER, 100), 0);
  const failed = await p.reply(p.call(CLUSTER, "BLPOP", "host-client:never", "2"));
  assert.deepEqual([failed.status, failed.read, failed.reply], [1, 0, ""], "a failure's callback reads an empty reply");
  p.close();
});

test("a call made while a closing connection fails its calls goes on that connection and fails with it", { skip }, async () => {
  // raw_client_impl.cc RawClientImpl::onEvent(LocalClose/RemoteClose) calls each pending request's onFailure, and
  // Context::onRedisCallFailure runs the callback at once outside a module call; the cluster's client still maps
  // the host to this RawClient (AsyncClientImpl::ThreadLocalActiveClient::onEvent, registered after it, runs
  // later), so AsyncClientImpl::send puts a call made in that callback on the closing connection, where the same
  // loop fails it.
  const p = new Plugin(tcpRedis(server.port));
  assert.equal(p.init(CLUSTER + "?buffer_flush_timeout=0&max_buffer_size_before_flush=0", 300), 0);
  await p.reply(p.call(CLUSTER, "PING")); // connected
  p.callAgainOnFailure(CLUSTER, "PING");
  const head = await p.reply(p.call(CLUSTER, "BLPOP", "host-client:never", "10"));
  assert.equal(head.status, 1);
  const retry = /^RETRY (\d+)$/.exec(p.lines.find((l) => l.startsWith("RETRY ")) ?? "");
  assert.ok(retry, "the callback called again");
  const again = await p.reply(Number(retry[1]));
  assert.deepEqual([again.status, again.reply], [1, ""], "the call made in the failure's callback failed too");
  assert.ok(again.at - head.at < 50, `and at once (${again.at - head.at} ms later)`);
  // The next call opens a new connection.
  assert.equal((await p.reply(p.call(CLUSTER, "PING"))).reply, "+PONG\r\n");

  // A close made by proxy_redis_init is inside a module call: its failures come after the call returns, when the
  // client no longer maps the host (onRedisCallFailure defers while current_context_ is set), so a call made in
  // their callback goes out on a new connection.
  p.lines.length = 0;
  p.callAgainOnFailure(CLUSTER, "PING");
  const dropped = p.call(CLUSTER, "BLPOP", "host-client:never", "10");
  assert.equal(p.init(CLUSTER + "?buffer_flush_timeout=0&max_buffer_size_before_flush=0&db=1", 300), 0);
  assert.equal((await p.reply(dropped)).status, 1);
  const retry2 = /^RETRY (\d+)$/.exec(p.lines.find((l) => l.startsWith("RETRY ")) ?? "");
  assert.ok(retry2);
  assert.deepEqual((await p.reply(Number(retry2[1]))).reply, "+PONG\r\n");
  p.close();
});

test("an error reply is a reply: status Ok, the -ERR bytes readable, proxy_get_status untouched; a refused AUTH fails nothing", { skip }, async () => {
  // raw_client_impl.cc RawClientImpl::onRawResponse hands any decoded value, an error too, to onResponse
  // (Context::onRedisCallSuccess: RedisStatus::Ok). initialize's AUTH / SELECT replies go to
  // null_raw_client_callbacks: a wrong password shows only in the replies to later calls.
  const p = new Plugin(tcpRedis(server.port));
  const err = await p.reply(p.call(CLUSTER, "NOSUCHCOMMAND"));
  assert.deepEqual([err.status, err.read, err.code, err.message], [0, 0, 0, "-"]);
  assert.match(err.reply, /^-ERR unknown command/);
  assert.match((await p.reply(p.call(CLUSTER, "CONFIG", "SET", "requirepass", "secret"))).reply, /^\+OK/);
  try {
    assert.equal(p.init(CLUSTER, 1000, "", "wrong"), 0);
    const refused = await p.reply(p.call(CLUSTER, "PING"));
    assert.equal(refused.status, 0);
    assert.match(refused.reply, /^-NOAUTH/);
    assert.equal(p.init(CLUSTER, 1000, "", "secret"), 0);
    assert.equal((await p.reply(p.call(CLUSTER, "PING"))).reply, "+PONG\r\n");
  } finally {
    const q = new Plugin(tcpRedis(server.port));
    q.init(CLUSTER, 1000, "", "secret");
    await q.reply(q.call(CLUSTER, "CONFIG", "SET", "requirepass", ""));
    q.close();
  }
  p.close();
});
