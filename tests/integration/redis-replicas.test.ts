// Gateway replicas sharing prefix affinity through a real redis-server (Higress build, redis.* keys): turns of
// one conversation that reach different replicas return to the same pod; tenants never see each other's
// keys; every key has a TTL; and Redis stopped, restarted, paused past the timeout, refusing commands, full or
// answering garbage costs only the affinity: counted fail-opens, every request routed, no trap.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { RealClock } from "../../src-host/host/clock.ts";
import { tcpRedis, type RedisTarget } from "../../src-host/host/redis-client.ts";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";
import { chat, pickerHost, text, type PickerHarness } from "../support/picker.ts";
import { parseDebugHeader } from "../../src-host/fuzz/debug-header.ts";
import { CountedRedis, RedisServer, command, freePort, redisServerAvailable } from "../support/redis-server.ts";
import { vllmPage } from "../../src-host/harness/vllm-page.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000", "10.0.0.4:8000"];
const skip = redisServerAvailable() ? false : "redis-server is not installed (apt-get install -y redis-server)";

let server: RedisServer;
before(async () => {
  if (!skip) server = await RedisServer.start();
});
after(async () => {
  await server?.stop();
});

// A generous timeout: the tests share a loaded machine, and only the slow-Redis test is about timeouts.
const TIMEOUT_MS = 5000;
const counted = new WeakMap<PickerHarness<RealClock>, CountedRedis>();

function replica(target: RedisTarget, redis: object = {}, config: object = {}): PickerHarness<RealClock> {
  const redisCalls = new CountedRedis(target);
  const h = pickerHost({
    workers: 3,
    clock: new RealClock(),
    redis: new Map([[CLUSTER, redisCalls]]),
    config: { metrics: { snapshotTtlMs: 0 }, redis: { cluster: CLUSTER, timeoutMs: TIMEOUT_MS, keyPrefix: "t:", ttlMs: 60000, ...redis }, ...config },
  });
  counted.set(h, redisCalls);
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  return h;
}

/** Waits until every Redis call these replicas sent is answered: the fire-and-forget publishes have landed. */
async function landed(...hs: PickerHarness<RealClock>[]): Promise<void> {
  for (const h of hs) await counted.get(h)!.answered();
}

/** Sends and waits until the plugin let the request go (it may wait for Redis first). */
async function route(h: PickerHarness<RealClock>, body: object, headers: Array<[string, string]> = [], worker?: number): Promise<FilterStream> {
  const s = h.send(body, headers, { worker });
  const deadline = Date.now() + 2 * TIMEOUT_MS;
  while (s.requestState === "paused" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  assert.equal(s.requestState, "forwarded", "the request went on");
  h.complete(s);
  return s;
}

/** Lets time pass (a back-off run out). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function conversation(i: number, turns = 0): object {
  const history: Array<[string, string]> = [];
  for (let t = 0; t < turns; t++) history.push([`question ${t} of ${i}`, text(1000 * i + t, 1500)]);
  return chat(text(50 + i, 4000), history, `question ${turns} of ${i}`);
}

function debugOf(s: FilterStream) {
  return parseDebugHeader(s.state.responseHeaders!.get("x-endpoint-picker-debug")!)!;
}

function closeAll(...hs: PickerHarness<RealClock>[]) {
  for (const h of hs) h.host.close();
}

test("turns of one conversation on different replicas return to the same pod", { skip }, async () => {
  const a = replica(tcpRedis(server.port));
  const b = replica(tcpRedis(server.port));
  const first: string[] = [];
  for (let i = 0; i < 12; i++) first.push(a.chosen(await route(a, conversation(i), [], i % 3))!);
  await landed(a);
  for (let i = 0; i < 12; i++) {
    const s = await route(b, conversation(i, 1), [], i % 3);
    assert.equal(b.chosen(s), first[i], `conversation ${i}`);
  }
  assert.equal(b.counter("redis.hits"), 12);
  assert.ok(a.counter("redis.publishes") >= 12);
  assert.equal(a.host.traps + b.host.traps, 0);
  closeAll(a, b);
});

test("a turn that waited for Redis still publishes its conversation for the next turn on another worker", { skip }, async () => {
  const a = replica(tcpRedis(server.port), { keyPrefix: "conv:" }, { debug: { header: true } });
  // Every conversation shares a 9-chunk system prompt. The first one is new to the worker, so it waits for Redis;
  // the later ones do not, and take over the landmark inside that prompt which carried the first one's tail.
  const system = text(15, 4700);
  const firsts: Array<{ endpoint: string; chain: number; question: string }> = [];
  for (let conv = 0; conv < 6; conv++) {
    const lookups = a.counter("redis.lookups");
    const question = "question " + conv + " " + text(1100 + conv, 500 + 60 * conv);
    const d = debugOf(await route(a, chat(system, [], question), [], 0));
    if (conv == 0) assert.equal(a.counter("redis.lookups"), lookups + 1, "the first conversation waited for Redis");
    firsts.push({ endpoint: d.endpoint, chain: d.chain, question });
  }
  await landed(a);
  for (let conv = 0; conv < 6; conv++) {
    const first = firsts[conv];
    const d = debugOf(await route(a, chat(system, [[first.question, text(1300 + conv, 400)]], "and then? " + text(1400 + conv, 300)), [], 1));
    const score = d.scores.get(first.endpoint);
    assert.ok(score !== undefined && score !== "excluded");
    assert.equal(score.m, first.chain, `conversation ${conv}'s second turn is credited with its whole first turn`);
  }
  assert.equal(a.host.traps, 0);
  closeAll(a);
});

test("a request spread to an endpoint without the hot tool prompt is no prefix hit after a Redis wait either", { skip }, async () => {
  const a = replica(tcpRedis(server.port), { keyPrefix: "spread:" }, { prefix: { spreadHotPreambles: true } });
  // Each task runs past the tool prompt by more than the tail probes, so the worker asks Redis every time.
  const tools = text(21, 6000);
  const holders = new Set<string>();
  let toHolders = 0;
  for (let conv = 0; conv < 12; conv++) {
    const lookups = a.counter("redis.lookups");
    const s = await route(a, chat(tools, [], `task ${conv}: ` + text(100 + conv, 5000)), [], 0);
    assert.equal(a.counter("redis.lookups"), lookups + 1, `request ${conv} waited for Redis`);
    const chosen = a.chosen(s)!;
    if (holders.has(chosen)) toHolders++;
    holders.add(chosen);
  }
  assert.ok(a.counter("hot_preamble_spreads") >= 2);
  assert.ok(holders.size >= 3, `the tool prompt went to ${holders.size} endpoints`);
  assert.equal(a.counter("prefix_hits"), toHolders, "hits are the requests sent to an endpoint that held the tool prompt");
  assert.equal(a.host.traps, 0);
  closeAll(a);
});

/**
 * Turn 0 of a conversation through replica a; turn 1 through replica b, which sees turn 0's pod swamped and sends
 * the turn elsewhere. Then turn 2 goes through replica a, which knows turn 0 but not turn 1.
 */
async function turnMovedByAnotherReplica(keyPrefix: string, system: string, q0: string, a0: string, q1: string) {
  const a = replica(tcpRedis(server.port), { keyPrefix }, { debug: { header: true } });
  const b = replica(tcpRedis(server.port), { keyPrefix }, { debug: { header: true } });
  const home = a.chosen(await route(a, chat(system, [], q0), [], 0))!;
  await landed(a);
  b.setPods(PODS.map((address) => ({ address, waiting: address === home ? 40 : 0, running: 1, kv: 0.2 })));
  const moved = b.chosen(await route(b, chat(system, [[q0, a0]], q1), [], 0))!;
  assert.notEqual(moved, home);
  await landed(b);
  return { a, b, moved };
}

test("a replica that missed the previous turn asks Redis even when it knows the turn before", { skip }, async () => {
  const system = text(31, 4000);
  const [q0, a0, q1, a1] = [text(32, 1000), text(33, 600), text(34, 300), text(35, 600)];
  const { a, b, moved } = await turnMovedByAnotherReplica("prev:", system, q0, a0, q1);
  // Turn 0 lies within the last 8 chunks of turn 2's chain.
  const lookups = a.counter("redis.lookups");
  const s = await route(a, chat(system, [[q0, a0], [q1, a1]], text(36, 300)), [], 0);
  assert.equal(a.counter("redis.lookups"), lookups + 1, "replica a asked Redis");
  assert.equal(a.chosen(s), moved, "turn 2 follows turn 1 to the pod that holds it");
  assert.equal(a.host.traps + b.host.traps, 0);
  closeAll(a, b);
});

test("a previous turn that added more chunks than the tail probes is found at its own tail", { skip }, async () => {
  const system = text(41, 4000);
  const [q0, a0, q1, a1] = [text(42, 5000), text(43, 600), text(44, 5000), text(45, 600)];
  // Turn 0 has 17 chunks, turn 1 about 28: turn 1's hint at landmark 15 replaces turn 0's, so below the tail
  // only turn 1's own tail says more than turn 0 did.
  const { a, b, moved } = await turnMovedByAnotherReplica("long:", system, q0, a0, q1);
  // Turn 2 adds about 10 chunks: turn 1's tail lies below the last 8 positions.
  const s = await route(a, chat(system, [[q0, a0], [q1, a1]], text(46, 4500)), [], 0);
  const d = debugOf(s);
  assert.equal(a.chosen(s), moved, "turn 2 follows turn 1");
  const credited = d.scores.get(moved);
  assert.ok(credited !== undefined && credited !== "excluded");
  assert.ok(credited.m >= 27, `credited with turn 1's whole prompt (m ${credited.m} of ${d.chain})`);
  assert.equal(a.host.traps + b.host.traps, 0);
  closeAll(a, b);
});

test("a hint for an endpoint whose engine restarted after it was published is not credited", { skip }, async () => {
  const a = replica(tcpRedis(server.port), { keyPrefix: "restart:" });
  const b = replica(tcpRedis(server.port), { keyPrefix: "restart:" }, { debug: { header: true } });
  // Every pod idle, its prefix-cache counters at `queries` (a restarted engine's start again from zero).
  const pods = (restarted: string | null, restartedQueries = 10) =>
    PODS.map((address) => ({
      address, healthStatus: "Healthy", metrics: vllmPage({ waiting: 0, running: 1, kv: 0.2 }, { metrics: { prefixCacheQueries: address === restarted ? restartedQueries : 100_000, prefixCacheHits: 10 } }),
    }));
  a.cluster.hostList = pods(null);
  b.cluster.hostList = pods(null);
  await route(b, conversation(600), [], 0); // b's worker 0 reads the counters before the restart
  const first: string[] = [];
  for (let i = 0; i < 6; i++) first.push(a.chosen(await route(a, conversation(610 + i), [], 0))!);
  await landed(a);
  const restarted = first[0];
  b.cluster.hostList = pods(restarted);
  await route(b, conversation(690), [], 0); // b's worker 0 reads the low counters once: not believed alone
  await new Promise((r) => setTimeout(r, 5));
  b.cluster.hostList = pods(restarted, 20); // a later page reads low too: the engine restarted
  const stale = b.counter("redis.stale");
  const d = debugOf(await route(b, conversation(610, 1), [], 0));
  const score = d.scores.get(restarted);
  assert.ok(score !== undefined && score !== "excluded");
  assert.equal(score.m, 0, "the restarted engine is credited with nothing");
  assert.ok(b.counter("redis.stale") > stale, "the refused hint is counted");
  // A conversation on an engine that kept running is still found.
  const kept = first.findIndex((pod) => pod !== restarted);
  assert.ok(kept > 0, "the six conversations did not all go to one pod");
  const other = debugOf(await route(b, conversation(610 + kept, 1), [], 0));
  const credited = other.scores.get(first[kept]);
  assert.ok(credited !== undefined && credited !== "excluded" && credited.m > 0, "credited through Redis");
  assert.equal(a.host.traps + b.host.traps, 0);
  closeAll(a, b);
});

test("a replica asks Redis only when its own index knows nothing", { skip }, async () => {
  const a = replica(tcpRedis(server.port));
  await route(a, conversation(100), [], 0);
  await landed(a);
  const lookups = a.counter("redis.lookups");
  await route(a, conversation(100, 1), [], 0);
  assert.equal(a.counter("redis.lookups"), lookups, "the worker's own index answered");
  closeAll(a);
});

test("one tenant's hints are invisible to another", { skip }, async () => {
  const config = { prefix: { saltHeader: "x-tenant" } };
  const a = replica(tcpRedis(server.port), {}, config);
  const b = replica(tcpRedis(server.port), {}, config);
  for (let i = 0; i < 6; i++) await route(a, conversation(200 + i), [["x-tenant", "acme"]]);
  await landed(a);
  for (let i = 0; i < 6; i++) await route(b, conversation(200 + i, 1), [["x-tenant", "globex"]]);
  assert.equal(b.counter("redis.hits"), 0);
  assert.equal(b.counter("redis.misses"), 6);
  for (let i = 0; i < 6; i++) await route(b, conversation(200 + i, 1), [["x-tenant", "acme"]], 1);
  assert.equal(b.counter("redis.hits"), 6, "the same tenant meets its hints");
  closeAll(a, b);
});

test("every key carries a TTL no longer than redis.ttlMs, and the key count is bounded by what was published", { skip }, async () => {
  await command(server.port, "FLUSHALL");
  const a = replica(tcpRedis(server.port), { keyPrefix: "ttl:", ttlMs: 5000 });
  // The plugin stamps hints with the host's wall clock (RealClock.nowNs), which Date.now can drift from by milliseconds
  // in a long test process: the window is read on the clock the plugin reads.
  const wallMs = () => Number(a.clock.nowNs() / 1_000_000n);
  const start = wallMs();
  for (let i = 0; i < 10; i++) await route(a, conversation(300 + i, i % 3), [], i % 3);
  await landed(a);
  const end = wallMs();
  const keys = await server.keys("ttl:");
  assert.ok(keys.size > 0);
  assert.ok(keys.size <= a.counter("redis.publishes") * 9, `${keys.size} keys`);
  // PTTL is -1 for a key without a TTL, -2 for one that expired since KEYS listed it.
  for (const [k, ttl] of keys) assert.ok(ttl === -2 || (ttl > 0 && ttl <= 5000), `${k} has TTL ${ttl}`);
  // Each value says when it was published, when its request was expected to end, which gateway published it (the
  // same for all its workers), and where it went.
  const gateways = new Set<string>();
  for (const k of keys.keys()) {
    const value = /^\$\d+\r\n@(\d+),(\d+),([0-9a-f]{16}),(.+)\r\n$/.exec(await command(server.port, "GET", k));
    if (value === null && keys.get(k) === -2) continue; // expired since KEYS listed it
    assert.ok(value !== null, "a bulk string @<published>,<held until>,<gateway>,<address>");
    const [published, heldUntil] = [Number(value[1]), Number(value[2])];
    assert.ok(published >= start - 1 && published <= end, `published at ${published}, within ${start}..${end}`);
    assert.ok(heldUntil >= published);
    gateways.add(value[3]);
    assert.ok(PODS.includes(value[4]), value[4]);
  }
  assert.equal(gateways.size, 1, `one gateway published them all: ${[...gateways].join(" ")}`);
  closeAll(a);
});

test("Redis stopped mid-run and restarted: counted fail-opens, then sharing resumes", { skip }, async () => {
  const own = await RedisServer.start();
  const a = replica(tcpRedis(own.port));
  const b = replica(tcpRedis(own.port));
  await route(a, conversation(400));
  await landed(a);
  await own.stop();
  for (let i = 0; i < 8; i++) {
    const s = await route(b, conversation(410 + i));
    assert.ok(b.chosen(s), "still routed by load");
    await landed(b); // the failure is counted before the next request, which backs off
    await sleep(10);
  }
  assert.ok(b.counter("redis.unavailable") >= 1, "the lost connection is counted");
  assert.ok(b.counter("redis.backoff") >= 1, "and the next calls back off");
  await own.restart();
  await sleep(700); // b's back-off runs out
  const first = a.chosen(await route(a, conversation(420)))!;
  await landed(a);
  await sleep(700);
  const again = await route(b, conversation(420, 1));
  assert.equal(b.chosen(again), first, "sharing resumes after the restart");
  assert.equal(a.host.traps + b.host.traps, 0);
  closeAll(a, b);
  await own.stop();
});

test("Redis slower than redis.timeoutMs: the request waits at most the timeout and is routed by load", { skip }, async () => {
  const a = replica(tcpRedis(server.port), { timeoutMs: 30 });
  await route(a, conversation(500)); // connects
  await command(server.port, "CLIENT", "PAUSE", "400", "ALL");
  const started = Date.now();
  const s = await route(a, conversation(501));
  assert.ok(a.chosen(s));
  assert.ok(Date.now() - started < 300, "did not wait for Redis");
  assert.ok(a.counter("redis.timeout") >= 1);
  await command(server.port, "CLIENT", "UNPAUSE");
  assert.equal(a.host.traps, 0);
  closeAll(a);
});

test("Redis refusing commands, out of memory, or answering garbage: counted, routed, no trap", { skip }, async () => {
  // A user that may only authenticate: every MGET and EVAL is refused (-NOPERM).
  await command(server.port, "ACL", "SETUSER", "limited", "on", ">secret", "~*", "-@all", "+auth", "+ping");
  const refused = replica(tcpRedis(server.port), { username: "limited", password: "secret" });
  for (let i = 0; i < 3; i++) {
    assert.ok(refused.chosen(await route(refused, conversation(600 + i))));
    await landed(refused);
    await sleep(250); // the back-off after the refusal runs out
  }
  assert.ok(refused.counter("redis.error") >= 2, `errors ${refused.counter("redis.error")}`);

  // Full: writes are refused with -OOM.
  await command(server.port, "CONFIG", "SET", "maxmemory", "1");
  await command(server.port, "CONFIG", "SET", "maxmemory-policy", "noeviction");
  const full = replica(tcpRedis(server.port));
  assert.ok(full.chosen(await route(full, conversation(610))));
  await landed(full);
  assert.ok(full.counter("redis.full") >= 1);
  await command(server.port, "CONFIG", "SET", "maxmemory", "0");

  // Garbage: a server that answers +OK to anything (not what MGET returns) and one that breaks the protocol.
  const fake = net.createServer((c) => c.on("data", () => c.write(c.localPort === okPort ? "+OK\r\n" : "%%%garbage\r\n")));
  const okPort = await freePort();
  await new Promise<void>((r) => fake.listen(okPort, "127.0.0.1", r));
  const badPort = await freePort();
  const fake2 = net.createServer((c) => c.on("data", () => c.write("%%%garbage\r\n")));
  await new Promise<void>((r) => fake2.listen(badPort, "127.0.0.1", r));
  const garbage = replica(tcpRedis(okPort));
  const broken = replica(tcpRedis(badPort));
  assert.ok(garbage.chosen(await route(garbage, conversation(620))));
  assert.ok(broken.chosen(await route(broken, conversation(621))));
  await landed(garbage, broken);
  assert.ok(garbage.counter("redis.garbage") >= 1);
  assert.ok(broken.counter("redis.unavailable") >= 1, "a reply that is not RESP closes the connection");
  for (const h of [refused, full, garbage, broken]) assert.equal(h.host.traps, 0);
  closeAll(refused, full, garbage, broken);
  fake.close();
  fake2.close();
  await command(server.port, "ACL", "DELUSER", "limited");
});

test("a reply far longer than any hint (its keys overwritten by something else) is read only so far: garbage, memory kept", { skip }, async () => {
  const a = replica(tcpRedis(server.port), { keyPrefix: "big:" });
  // Time enough to read the whole reply.
  const b = replica(tcpRedis(server.port), { keyPrefix: "big:", timeoutMs: 5000 });
  await route(a, conversation(800), [], 0);
  await landed(a);
  const keys = await server.keys("big:");
  assert.ok(keys.size > 0, "a published");
  const huge = "x".repeat(2 << 20);
  for (const k of keys.keys()) await command(server.port, "SET", k, huge);
  const memoryBefore = b.host.workers[0].vm.linearMemoryBytes();
  const lookups = b.counter("redis.lookups");
  assert.ok(b.chosen(await route(b, conversation(800, 1), [], 0)), "routed");
  assert.equal(b.counter("redis.lookups"), lookups + 1, "b asked Redis");
  const grown = b.host.workers[0].vm.linearMemoryBytes() - memoryBefore;
  assert.ok(grown < 1 << 20, `linear memory grew by ${grown} bytes for a reply of up to ${keys.size} x 2 MiB`);
  assert.equal(b.counter("redis.garbage"), 1, "the reply is not one the lookup can return");
  assert.equal(a.host.traps + b.host.traps, 0);
  closeAll(a, b);
  for (const k of keys.keys()) await command(server.port, "DEL", k);
});

test("an unknown Redis cluster: proxy_redis_init refused, counted, requests routed", { skip }, async () => {
  const h = pickerHost({
    workers: 2,
    clock: new RealClock(),
    redis: new Map(),
    config: { metrics: { snapshotTtlMs: 0 }, redis: { cluster: "outbound|6379||nowhere" } },
  });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  assert.ok(h.chosen(await route(h, conversation(700))));
  assert.ok(h.counter("redis.init_failed") >= 1);
  assert.equal(h.host.traps, 0);
  h.host.close();
});
