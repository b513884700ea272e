// What the workers of one gateway share besides prefix hints: a conversation's tail (the next turn, routed by
// another worker, is credited with the whole previous turn however much it grew) and the process-wide load per
// endpoint (requests in flight, and those still awaiting their first response byte).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";
import { StaticClusterHarness } from "../../src-host/harness/static-cluster-harness.ts";
import { chat, debugOf, pickerHost, setCountingPods, SHARED_LOAD_KEY, sharedLoadCounts, text, type PickerHarness } from "../support/picker.ts";

const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000", "10.0.0.4:8000"];
const EPOCH_MS = 60_000;

test("the next turn of a conversation on another worker is credited with the whole previous turn", () => {
  const h = pickerHost({ workers: 2, config: { debug: { header: true } } });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  for (let conv = 0; conv < 6; conv++) {
    const history: Array<[string, string]> = [["task " + conv, text(900 + conv, 2000)]];
    const first = h.send(chat(text(600 + conv, 6000), history, "tool output " + text(conv, 3000)), [], { worker: 0 });
    const one = debugOf(first);
    h.complete(first);
    // The next turn adds far more than the landmark stride (16 chunks of 512 characters).
    history.push(["tool output " + text(conv, 3000), text(700 + conv, 200)]);
    const second = h.send(chat(text(600 + conv, 6000), history, text(800 + conv, 40_000)), [], { worker: 1 });
    const two = debugOf(second);
    assert.equal(two.endpoint, one.endpoint, `conversation ${conv} stays`);
    const credited = two.scores.get(one.endpoint);
    assert.ok(credited !== undefined && credited !== "excluded");
    assert.equal(credited.m, one.chain, "the whole previous chain, not a landmark below it");
    assert.ok(two.chain > one.chain + 32);
    h.complete(second);
  }
  assert.ok(h.counter("shared_hint_hits") >= 6);
});

test("a second turn on another worker finds its first turn by the conversation, inside a shared system prompt", () => {
  const h = pickerHost({ workers: 2, config: { debug: { header: true } } });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  // Every conversation shares a 9-chunk system prompt; a first turn of 10-11 chunks carries its tail at the power-of-
  // two landmark 7, inside that prompt, where each later conversation's hint replaces the one before.
  const system = text(5, 4700);
  const firsts: Array<{ endpoint: string; chain: number; question: string }> = [];
  for (let conv = 0; conv < 6; conv++) {
    const question = "question " + conv + " " + text(100 + conv, 500 + 60 * conv);
    const s = h.send(chat(system, [], question), [], { worker: 0 });
    const d = debugOf(s);
    h.complete(s);
    firsts.push({ endpoint: d.endpoint, chain: d.chain, question });
  }
  let credited = 0;
  for (let conv = 0; conv < 6; conv++) {
    const first = firsts[conv];
    const s = h.send(chat(system, [[first.question, text(300 + conv, 400)]], "and then? " + text(400 + conv, 300)), [], { worker: 1 });
    const d = debugOf(s);
    const score = d.scores.get(first.endpoint);
    if (score !== undefined && score !== "excluded" && score.m === first.chain) credited++;
    h.complete(s);
  }
  assert.equal(credited, 6, "every second turn is credited with its whole first turn");
});

// A conversation's first turn inside a shared system prompt (the next conversation takes over its landmarks), then its
// second turn on the other worker `laterS` seconds later, while the engines take in `tokensPerS` computed prompt
// tokens a second into 16,000 tokens of KV cache (a metrics page and a short request each second). Without
// `counters` the pages carry no prefix-cache counters, so the worker cannot tell how long the cache keeps a block.
// Returns the chunks credited to the first turn's endpoint, the first turn's chain, and the hints refused as expired.
// With `grow`, every page after the first `wholePages` (3: each worker has read a whole one) has grown past the 64 KiB
// Higress keeps, cut before vllm:cache_config_info (vLLM writes it last). `metrics` adds to the picker's metrics keys.
function conversationTurnAfter(laterS: number, tokensPerS: number, counters: boolean, grow = false, wholePages = 3, metrics = {}) {
  const h = pickerHost({ workers: 2, config: { debug: { header: true }, metrics } });
  let queries = 0;
  let pages = 0;
  const page = () => {
    setCountingPods(h, PODS, queries, counters);
    if (grow && ++pages > wholePages) h.cluster.hostList = h.cluster.hostList.map((host) => ({ ...host, metrics: grownAndCut(host.metrics!) }));
    queries += tokensPerS;
  };
  page();
  const system = text(5, 4700);
  const question = "question 6 " + text(106, 700);
  const first = h.send(chat(system, [], question), [], { worker: 0 });
  const one = debugOf(first);
  h.complete(first);
  h.complete(h.send(chat(system, [], "question 7 " + text(107, 700)), [], { worker: 0 }));
  for (let s = 0; s < laterS; s++) {
    page();
    h.complete(h.send(chat(text(1, 300), [], "filler " + s), [], { worker: s % 2 }));
  }
  const late = h.send(chat(system, [[question, text(306, 400)]], "and then? " + text(406, 300)), [], { worker: 1 });
  const score = debugOf(late).scores.get(one.endpoint);
  h.complete(late);
  return { credited: score === undefined || score === "excluded" ? 0 : score.m, chain: one.chain, expired: h.counter("shared_hints_expired") };
}

/** The page with 70 KB more series before vllm:cache_config_info, cut at 64 KiB as Higress's store_metrics keeps it. */
function grownAndCut(page: string): string {
  const at = page.indexOf("# HELP vllm:cache_config_info");
  assert.ok(at > 0);
  const filler = Array.from({ length: 1400 }, (_, i) => `vllm:filler_total{engine="0",i="${i}"} 1.0\n`).join("");
  const grown = page.slice(0, at) + filler + page.slice(at);
  assert.ok(grown.length > 65536);
  return grown.slice(0, 65536);
}

test("an endpoint's cache size stands when its page grows past what the gateway keeps: the turn is still credited as long as the cache keeps it", () => {
  const cut = conversationTurnAfter(45, 100, true, true);
  assert.equal(cut.credited, cut.chain, "45 s later the cache still holds it: credited whole");
  assert.equal(cut.expired, 0);
});

test("metrics.kvCacheTokens sizes the cache of an endpoint whose page is always cut before its size", () => {
  // No worker ever reads a whole page: without the key the turn's hint counts for 30 s only.
  const unknown = conversationTurnAfter(45, 100, true, true, 0);
  assert.ok(unknown.credited < unknown.chain, `size unknown: credited ${unknown.credited} of ${unknown.chain}`);
  assert.ok(unknown.expired >= 1);
  // The pods' 16,000 tokens, configured: 100 tokens a second keep the turn for minutes.
  const configured = conversationTurnAfter(45, 100, true, true, 0, { kvCacheTokens: 16000 });
  assert.equal(configured.credited, configured.chain, "45 s later the cache still holds it: credited whole");
  assert.equal(configured.expired, 0);
  // Configured far smaller than the traffic: 4,000 tokens turn over in 40 s.
  const small = conversationTurnAfter(45, 100, true, true, 0, { kvCacheTokens: 4000 });
  assert.ok(small.credited < small.chain, `small cache: credited ${small.credited} of ${small.chain}`);
});

test("a conversation's turn is credited as long as its endpoint's cache keeps it, or 30 s where that is not known", () => {
  // 100 computed tokens a second into 16,000 tokens of cache: a released block stays for about two minutes, so a user
  // who thinks 45 s still finds the first turn.
  const slow = conversationTurnAfter(45, 100, true);
  assert.equal(slow.credited, slow.chain, "45 s later the cache still holds it: credited whole");
  assert.equal(slow.expired, 0);
  // 4,000 tokens a second: the cache has turned over in about 4 s.
  const fast = conversationTurnAfter(45, 4000, true);
  assert.ok(fast.credited < fast.chain, `turned over: credited ${fast.credited} of ${fast.chain}`);
  assert.ok(fast.expired >= 1, "the refused hint is counted");
  // An engine without prefix-cache counters: the pods may have evicted a turn 31 s old.
  const unknown = conversationTurnAfter(31, 100, false);
  assert.ok(unknown.credited < unknown.chain, `not known: credited ${unknown.credited} of ${unknown.chain}`);
  assert.ok(unknown.expired >= 1, "the refused hint is counted");
  const recent = conversationTurnAfter(20, 100, false);
  assert.equal(recent.credited, recent.chain, "not known, 20 s: credited whole");
});

test("a conversation's turn that ran longer than the conversation hint's lifetime is found from its end", () => {
  const h = pickerHost({ workers: 2, config: { debug: { header: true } } });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  const clock = h.clock as unknown as { advanceTo(ms: number): void; nowMs(): number };
  // A shared system prompt whose landmarks the next conversation takes over; the first turn runs 40 s.
  const system = text(5, 4700);
  const question = "question 0 " + text(100, 700);
  const first = h.send(chat(system, [], question), [], { worker: 0 });
  const one = debugOf(first);
  h.complete(h.send(chat(system, [], "question 1 " + text(101, 700)), [], { worker: 0 }));
  clock.advanceTo(clock.nowMs() + 40_000);
  h.complete(first);
  clock.advanceTo(clock.nowMs() + 5_000);
  const next = h.send(chat(system, [[question, text(300, 400)]], "and then? " + text(400, 300)), [], { worker: 1 });
  const score = debugOf(next).scores.get(one.endpoint);
  assert.ok(score !== undefined && score !== "excluded" && score.m === one.chain, "ended 5 s ago: credited whole");
  h.complete(next);
});

test("a turn's end does not date blocks that a later copy of it, sent by another worker, still holds", () => {
  const h = pickerHost({ workers: 2, config: { debug: { header: true } } });
  h.setPods(PODS.slice(0, 1).map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  const clock = h.clock as unknown as { advanceTo(ms: number): void; nowMs(): number };
  // Worker 1's requests run 20 s.
  const filler = h.send(chat(text(1, 300), [], "filler"), [], { worker: 1 });
  clock.advanceTo(clock.nowMs() + 20_000);
  h.complete(filler);
  const hints = () => {
    const shared = h.host.process.sharedData;
    const heldUntil = new Map<string, number>();
    for (const key of shared.keys("endpoint_picker").filter((k) => k.includes("/hint/"))) {
      const v = shared.get("endpoint_picker", key).value!;
      heldUntil.set(key, new DataView(v.buffer, v.byteOffset, v.byteLength).getFloat64(28, true));
    }
    return heldUntil;
  };
  // The same turn on worker 0, then a second later on worker 1, which expects it to hold its blocks 20 s.
  const body = chat(text(5, 4700), [["question " + text(100, 700), text(300, 400)]], "and then? " + text(400, 300));
  const a = h.send(body, [], { worker: 0 });
  clock.advanceTo(clock.nowMs() + 1000);
  const b = h.send(body, [], { worker: 1 });
  clock.advanceTo(clock.nowMs() + 2000);
  const before = hints();
  h.complete(a); // 3 s after it was sent, 18 s before worker 1 expects the copy to end
  const after = hints();
  for (const [key, held] of before) assert.ok(after.get(key)! >= held, `${key}: ${held} -> ${after.get(key)}`);
  h.complete(b);
});

// The next turn, on worker 1, `laterS` seconds after the first turn on worker 0, while the engines take in
// `tokensPerS` computed prompt tokens a second (vLLM's prefix-cache queries minus hits) into 16,000 tokens of
// KV cache. Each second's metrics page is read with a request that runs `requestS` seconds (on worker 1, and when
// they run longer than at once, on both workers in turn, so that each knows how long they take); the last
// `brokenPages` pages before the next turn are error pages instead. The first turn itself runs `firstRunsS` seconds.
// Returns the chunks credited to the first turn's endpoint, the first turn's chain, and the hints passed over as
// expired.
function nextTurnAfter(laterS: number, tokensPerS: number, requestS = 0, pods = PODS, brokenPages = 0, firstRunsS = 0) {
  const h = pickerHost({ workers: 2, config: { debug: { header: true } } });
  let queries = 0;
  const running: FilterStream[] = [];
  const tick = (broken = false) => {
    setCountingPods(h, pods, queries);
    if (broken) h.cluster.hostList = h.cluster.hostList.map((host) => ({ ...host, metrics: "<html><body>503 Service Unavailable</body></html>\n" }));
    queries += tokensPerS;
    const worker = requestS > 0 && (queries / tokensPerS) % 2 === 1 ? 0 : 1;
    running.push(h.send(chat(text(1, 300), [], "filler " + queries), [], { worker }));
    while (running.length > requestS) h.complete(running.shift()!);
  };
  for (let s = 0; s < requestS + 2; s++) tick();
  const history: Array<[string, string]> = [["task", text(900, 2000)]];
  const first = h.send(chat(text(600, 6000), history, "tool output " + text(3, 3000)), [], { worker: 0 });
  const one = debugOf(first);
  if (firstRunsS === 0) h.complete(first);
  for (let s = 0; s < laterS; s++) {
    if (firstRunsS > 0 && s === firstRunsS) h.complete(first);
    tick(s >= laterS - brokenPages);
  }
  history.push(["tool output " + text(3, 3000), text(700, 200)]);
  const second = h.send(chat(text(600, 6000), history, text(800, 4000)), [], { worker: 1 });
  const score = debugOf(second).scores.get(one.endpoint);
  h.complete(second);
  return {
    credited: score === undefined || score === "excluded" ? 0 : score.m,
    chain: one.chain,
    expired: h.counter("shared_hints_expired"),
    parseErrors: h.counter("metrics_parse_errors"),
  };
}

test("another worker's hint is credited only while its endpoint's cache still holds what the hint says", () => {
  // 4,000 computed tokens a second into 16,000 tokens of cache: an untouched block is gone after about 4 s.
  const soon = nextTurnAfter(2, 4000);
  assert.equal(soon.credited, soon.chain, "2 s later the whole first turn is credited");
  assert.equal(soon.expired, 0);
  const late = nextTurnAfter(10, 4000);
  assert.ok(late.credited < late.chain, `10 s later the pod has turned its cache over (credited ${late.credited} of ${late.chain})`);
  assert.ok(late.expired >= 1, "the refused hint is counted");
  // The same 10 s on engines that take in a tenth as much: the cache still holds it.
  const slow = nextTurnAfter(10, 400);
  assert.equal(slow.credited, slow.chain);
  assert.equal(slow.expired, 0);
});

test("an error page in place of an endpoint's metrics does not make the worker forget how fast its cache turns over", () => {
  // The 10 s case above, with the last two pages before the next turn unreadable: the counters were last seen 2 s
  // before it, so the hint is 2 s younger than the 4 s horizon allows, and still too old.
  const late = nextTurnAfter(10, 4000, 0, PODS, 2);
  assert.ok(late.parseErrors >= 2, "the error pages are counted");
  assert.ok(late.credited < late.chain, `credited ${late.credited} of ${late.chain}`);
  assert.ok(late.expired >= 1, "the refused hint is counted");
});

test("an engine starts evicting a request's blocks when the request ends: the hint's credit counts from there", () => {
  // One endpoint, the same horizon of about 4 s. The first turn runs 6 s; the next comes 4 s after it ended.
  const long = nextTurnAfter(10, 4000, 0, PODS.slice(0, 1), 0, 6);
  assert.equal(long.credited, long.chain, "its worker re-stamped the conversation's hint when it ended");
  assert.equal(long.expired, 0);
  // The endpoint's other requests run 6 s, so the first turn's worker expects it to hold its blocks that long
  // (without the re-stamp its hint would look 4 s old, within the horizon), but it ended at once: 10 s later its
  // blocks are gone.
  const early = nextTurnAfter(10, 4000, 6, PODS.slice(0, 1));
  assert.ok(early.credited < early.chain, "re-stamped with its early end");
  // Requests that end at once, this turn too: the same hint is too old.
  const short = nextTurnAfter(10, 4000, 0, PODS.slice(0, 1));
  assert.ok(short.credited < short.chain);
});

function loadRecords(h: PickerHarness): number {
  const v = h.host.process.sharedData.get("endpoint_picker", SHARED_LOAD_KEY).value;
  return v === undefined ? 0 : new DataView(v.buffer, v.byteOffset, v.byteLength).getUint32(0, true);
}

test("every worker sees the requests the others have in flight and still waiting for a first byte", () => {
  const run = (share: boolean) => {
    const h = pickerHost({ workers: 2, config: { debug: { header: true }, scoring: { shareLoadAcrossWorkers: share } } });
    h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
    // Worker 0 sends eight requests no endpoint has answered yet; the pods' metrics still say nothing is queued.
    const open: FilterStream[] = [];
    for (let i = 0; i < 8; i++) open.push(h.send(chat(text(40 + i, 2000), [], "q" + i), [], { worker: 0 }));
    // The endpoints serving the first of them start answering (a streamed response's first chunk).
    const answering = h.chosen(open[0])!;
    for (const s of open.filter((x) => h.chosen(x) === answering)) {
      s.encodeHeaders([[":status", "200"]], false);
      s.encodeData(new TextEncoder().encode("data: {}\n\n"), false);
    }
    // A busy worker writes its changes out within a few milliseconds (at the latest on its next tick).
    h.clock.advanceTo(h.clock.nowMs() + 25);
    const probe = h.send(chat(text(99, 2000), [], "probe"), [], { worker: 1 });
    return { h, open, probe, answering, d: debugOf(probe) };
  };
  const shared = run(true);
  const waiting = shared.open.map((s) => shared.h.chosen(s)!).filter((a) => a !== shared.answering);
  assert.ok(waiting.length > 0);
  const score = (addr: string) => shared.d.scores.get(addr) as { q: number; i: number };
  assert.equal(score(shared.answering).q, 1, "requests that started answering no longer count as queued");
  for (const addr of waiting) assert.ok(score(addr).q < 1, `${addr} has requests awaiting their first byte`);
  assert.equal(score(shared.answering).i, score(waiting[0]).i, "but they are still in flight, like the others");
  assert.notEqual(shared.d.endpoint, waiting[0]);
  for (const s of [...shared.open, shared.probe]) shared.h.complete(s);
  shared.h.clock.advanceTo(shared.h.clock.nowMs() + 25);
  assert.equal(loadRecords(shared.h), 0, "finished requests leave no load behind");

  const isolated = run(false);
  assert.equal(loadRecords(isolated.h), 0, "nothing is shared when disabled");
  const qs = [...isolated.d.scores.values()].map((s) => (s === "excluded" ? -1 : s.q));
  assert.ok(qs.every((x) => x === 1), "without sharing, worker 1 sees no queue anywhere");
});

test("endpoints whose requests have all finished read idle again in another worker's view", () => {
  const h = pickerHost({ workers: 2, config: { debug: { header: true } } });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  // Fewer requests than endpoints: some endpoint stays idle, so the load scores differ.
  const open = Array.from({ length: 3 }, (_, i) => h.send(chat(text(40 + i, 2000), [], "q" + i), [], { worker: 0 }));
  h.clock.advanceTo(h.clock.nowMs() + 25);
  const probe = h.send(chat(text(98, 2000), [], "busy"), [], { worker: 1 });
  const busy = debugOf(probe);
  const loadScores = (d: typeof busy) => [...d.scores.values()].map((s) => (s === "excluded" ? "excluded" : `${s.q}/${s.i}`));
  assert.ok(new Set(loadScores(busy)).size > 1, `worker 1 sees worker 0's requests: ${JSON.stringify(loadScores(busy))}`);
  for (const s of [...open, probe]) h.complete(s);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  // Two probes, each finished before the next: the view each reads has nothing left of the one before.
  for (const q of ["idle1", "idle2"]) {
    const idleProbe = h.send(chat(text(99, 2000), [], q), [], { worker: 1 });
    const idle = loadScores(debugOf(idleProbe));
    assert.deepEqual(idle, PODS.map(() => "1/1"), `no queue and nothing in flight anywhere: ${JSON.stringify(idle)}`);
    h.complete(idleProbe);
    h.clock.advanceTo(h.clock.nowMs() + 25);
  }
});

test("a worker's request not yet written out counts once in each of its views, however many reads it spans", () => {
  const h = pickerHost({ workers: 2, config: { debug: { header: true } } });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 25);
  // The first request goes out at once (the worker had not written for a while); those within the next few
  // milliseconds are held back and added to the worker's own view at every read until its next write.
  const sent: FilterStream[] = [];
  for (let i = 0; i < 3; i++) {
    sent.push(h.send(chat(text(60 + i, 2000), [], "busy" + i), [], { worker: 1 }));
    h.clock.advanceTo(h.clock.nowMs() + 1);
  }
  const busy = new Set(sent.map((s) => h.chosen(s)!));
  assert.equal(busy.size, 3, "three endpoints, one request each");
  const probe = h.send(chat(text(99, 2000), [], "probe"), [], { worker: 1 });
  const d = debugOf(probe);
  const inflight = [...busy].map((addr) => (d.scores.get(addr) as { i: number }).i);
  assert.ok(inflight.every((i) => i === inflight[0]), `each busy endpoint has one request in flight: ${JSON.stringify(inflight)}`);
  for (const s of [...sent, probe]) h.complete(s);
});

test("a worker's view of the shared load follows the endpoints, not their registry slots, when the endpoint set changes", () => {
  // Snapshot TTL 0: the endpoint set is re-read at every request, while the shared load is re-read only every 2 ms.
  const h = new StaticClusterHarness({ workers: 2, pluginConfig: JSON.stringify({ debug: { header: true }, metrics: { snapshotTtlMs: 0 } }), log: () => {} });
  h.setEndpoints(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  const open = Array.from({ length: 8 }, (_, i) => h.send(chat(text(40 + i, 2000), [], "q" + i), { worker: 0 }));
  const busy = h.chosen(open[0])!;
  h.clock.advanceTo(h.clock.nowMs() + 25); // worker 0 writes its load out
  // Worker 1 reads the load twice at one instant: the second read finds the records as the first left them.
  for (const q of ["p1", "p2"]) h.send(chat(text(90, 2000), [], q), { worker: 1 });
  // The busy endpoint leaves and a new one arrives; the new one takes the freed registry slot.
  const fresh = "10.0.0.9:8000";
  h.setEndpoints([...PODS.filter((a) => a !== busy), fresh].map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  const probe = h.send(chat(text(91, 2000), [], "p3"), { worker: 1 });
  const d = debugOf(probe);
  const scoreOf = (addr: string) => d.scores.get(addr) as { q: number; i: number };
  assert.ok(d.scores.has(fresh) && !d.scores.has(busy));
  assert.equal(scoreOf(fresh).q, 1, "the new endpoint has nothing queued");
  const others = PODS.filter((a) => a !== busy).map((a) => scoreOf(a).i);
  assert.ok(scoreOf(fresh).i >= Math.max(...others), `the departed endpoint's requests are not counted on the new one: ${JSON.stringify([...d.scores])}`);
});


test("the shared load stays exact when one write carries many changes to many busy endpoints", () => {
  const pods = Array.from({ length: 96 }, (_, i) => `10.1.${i >> 8}.${i & 255}:8000`);
  const h = new StaticClusterHarness({ workers: 2, pluginConfig: JSON.stringify({ limits: { maxEndpoints: 128 } }), log: () => {} });
  h.setEndpoints(pods.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  // The clock stands still, so worker 0 holds its changes back until 64 endpoints have some (then it must write).
  const open = Array.from({ length: 300 }, (_, i) => h.send(chat(text(500 + i, 600), [], "q" + i), { worker: i % 2 }));
  // Every third starts answering (its first byte: a streamed response's first chunk).
  open.forEach((s, i) => {
    if (i % 3 !== 0) return;
    s.encodeHeaders([[":status", "200"]], false);
    s.encodeData(new TextEncoder().encode("data: {}\n\n"), false);
  });
  const expected = (streams: typeof open) => {
    const per = new Map<string, [number, number]>();
    streams.forEach((s) => {
      const c = per.get(h.chosen(s)!) ?? [0, 0];
      c[0]++;
      if (open.indexOf(s) % 3 !== 0) c[1]++;
      per.set(h.chosen(s)!, c);
    });
    return [...per.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  };
  h.clock.advanceTo(h.clock.nowMs() + 25); // both workers write what they still hold back
  assert.deepEqual(sharedLoadCounts(h), expected(open));
  const finished = open.filter((_, i) => i % 2 === 0);
  for (const s of finished) h.complete(s);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), expected(open.filter((_, i) => i % 2 === 1)));
  for (const s of open.filter((_, i) => i % 2 === 1)) h.complete(s);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), [], "finished requests leave no load behind");
});

test("a shared load value whose record count reads negative as an i32 (2^32 - 1) does not trap the worker", () => {
  const h = new StaticClusterHarness({ workers: 1, pluginConfig: JSON.stringify({}), log: () => {} });
  h.setEndpoints(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  const epoch = Math.floor(h.clock.nowMs() / EPOCH_MS);
  for (const [count, members] of [[0xffff_ffff, 0], [2, 0xffff_ffff], [0xffff_ffff, 0xffff_ffff]]) {
    const value = new Uint8Array(12 + 16 * 2);
    const view = new DataView(value.buffer);
    view.setUint32(0, count, true);
    view.setUint32(4, epoch, true);
    view.setUint32(8, members, true);
    const current = h.host.process.sharedData.get("endpoint_picker", SHARED_LOAD_KEY);
    h.host.process.sharedData.set("endpoint_picker", SHARED_LOAD_KEY, value, current.cas ?? 0);
    const s = h.send(chat(text(7, 2000), [], "q"), { worker: 0 });
    assert.ok(PODS.includes(h.chosen(s)!), "the request is still routed");
    assert.equal(h.host.workers[0].failed, false, "the worker did not trap");
    h.complete(s);
    h.clock.advanceTo(h.clock.nowMs() + 25);
  }
});

test("a worker that dies with requests in flight leaves no load behind, however busy the others keep its endpoints", () => {
  const h = new StaticClusterHarness({ workers: 2, pluginConfig: JSON.stringify({}), log: () => {} });
  h.setEndpoints(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  for (let i = 0; i < 8; i++) h.send(chat(text(40 + i, 2000), [], "dead" + i), { worker: 0 });
  h.clock.advanceTo(h.clock.nowMs() + 25); // worker 0 writes its load out
  assert.equal(sharedLoadCounts(h).reduce((sum, c) => sum + c[0], 0), 8);
  h.host.workers[0].vm.failed = true; // it traps: its streams never reach on_log
  // Worker 1 keeps every endpoint busy for a quarter of an hour, each endpoint touched every 30 s.
  const start = h.clock.nowMs();
  let n = 0;
  while (h.clock.nowMs() - start < 15 * 60_000) {
    const open = Array.from({ length: 12 }, () => h.send(chat(text(1000 + n, 600), [], "live" + n++), { worker: 1 }));
    h.clock.advanceTo(h.clock.nowMs() + 25);
    for (const s of open) h.complete(s);
    h.clock.advanceTo(h.clock.nowMs() + 30_000);
  }
  const open = Array.from({ length: 4 }, () => h.send(chat(text(1000 + n, 600), [], "live" + n++), { worker: 1 }));
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), [[1, 1], [1, 1], [1, 1], [1, 1]], "only worker 1's requests count");
  for (const s of open) h.complete(s);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), []);
});

test("live workers' requests keep counting across epochs, each worker's joined within a tick of the new epoch", () => {
  const h = new StaticClusterHarness({ workers: 2, pluginConfig: JSON.stringify({}), log: () => {} });
  h.setEndpoints(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  const long0 = [0, 1, 2].map((i) => h.send(chat(text(40 + i, 2000), [], "w0-" + i), { worker: 0 }));
  const long1 = [0, 1].map((i) => h.send(chat(text(80 + i, 2000), [], "w1-" + i), { worker: 1 }));
  h.clock.advanceTo(h.clock.nowMs() + 25);
  const total = () => sharedLoadCounts(h).reduce((sum, c) => sum + c[0], 0);
  assert.equal(total(), 5);
  for (let minute = 0; minute < 5; minute++) {
    // Just past the next epoch's start, then one tick later.
    const next = (Math.floor(h.clock.nowMs() / EPOCH_MS) + 1) * EPOCH_MS;
    h.clock.advanceTo(next + 1);
    h.clock.advanceTo(next + 60);
    assert.equal(total(), 5, `minute ${minute}: every live worker's requests count again`);
  }
  for (const s of [...long0, ...long1]) h.complete(s);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), [], "finished requests leave no load behind");
});

test("requests that end after their configuration was replaced take their load out of the shared value at once", () => {
  const h = new StaticClusterHarness({ workers: 2, pluginConfig: JSON.stringify({}), log: () => {} });
  h.setEndpoints(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  const open = Array.from({ length: 4 }, (_, i) => h.send(chat(text(40 + i, 2000), [], "q" + i), { worker: 0 }));
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.equal(sharedLoadCounts(h).reduce((sum, c) => sum + c[0], 0), 4);
  // A new configuration: new streams go to the new root contexts, these four finish under the old ones, at one
  // instant (a worker writes the first end and holds the others back for a few milliseconds), and then the old
  // root contexts go.
  h.host.replaceConfiguration(JSON.stringify({ debug: { header: true } }));
  for (const s of open) h.complete(s);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), [], "no load is left behind by the old configuration");
  const probe = h.send(chat(text(99, 2000), [], "probe"), { worker: 1 });
  const d = debugOf(probe);
  for (const addr of PODS) assert.equal((d.scores.get(addr) as { i: number }).i, 1, `${addr} has nothing in flight`);
});

test("every configuration of a worker, its rules' included, counts its load as one member of the shared value", () => {
  const rules = [{ _match_domain_: ["a.example"], debug: { header: true } }, { _match_domain_: ["b.example"], debug: { header: true } }];
  const h = new StaticClusterHarness({ workers: 2, pluginConfig: JSON.stringify({ _rules_: rules }), log: () => {} });
  h.setEndpoints(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  h.clock.advanceTo(h.clock.nowMs() + 1000);
  const open = ["a.example", "b.example", "b.example", "a.example"].map((domain, i) =>
    h.send(chat(text(40 + i, 2000), [], "q" + i), { worker: i >> 1, headers: [[":authority", domain]] }));
  assert.ok(open.every((s) => h.chosen(s) !== null));
  h.clock.advanceTo(h.clock.nowMs() + 25);
  const v = h.host.process.sharedData.get("endpoint_picker", SHARED_LOAD_KEY).value!;
  assert.equal(new DataView(v.buffer, v.byteOffset, v.byteLength).getUint32(8, true), 2, "one member per worker");
  assert.equal(sharedLoadCounts(h).reduce((sum, c) => sum + c[0], 0), 4);
  for (const s of open) h.complete(s);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), []);
});

test("conversations keep their endpoints across a configuration replaced mid-conversation: the new root contexts find them in the shared hints", () => {
  const pods = Array.from({ length: 8 }, (_, i) => `10.0.0.${i + 1}:8000`);
  const run = (shareAcrossWorkers: boolean) => {
    const h = pickerHost({ workers: 2, config: { debug: { header: true }, prefix: { shareAcrossWorkers } } });
    h.setPods(pods.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
    const convs = Array.from({ length: 24 }, (_, c) => ({ history: [] as Array<[string, string]>, system: text(c % 4, 3000), endpoint: "" }));
    let credited = 0;
    for (let turn = 0; turn < 4; turn++) {
      // A new configuration (another seed) before the third turn: new, empty root contexts take every later request.
      if (turn === 2) h.host.replaceConfiguration(JSON.stringify({ debug: { header: true }, prefix: { shareAcrossWorkers }, seed: 3 }));
      convs.forEach((c, i) => {
        const question = `question ${i}.${turn} ` + text(i * 100 + turn, 1500);
        const s = h.send(chat(c.system, c.history, question), [], { worker: (i + turn) % 2 });
        const d = debugOf(s);
        const score = d.scores.get(c.endpoint);
        if (turn >= 2 && d.endpoint === c.endpoint && score !== undefined && score !== "excluded" && score.m >= d.chain - 4) credited++;
        c.endpoint = d.endpoint;
        c.history.push([question, text(i * 7 + turn, 600)]);
        h.complete(s);
        h.clock.advanceTo(h.clock.nowMs() + 50);
      });
    }
    return credited;
  };
  assert.equal(run(true), 48, "every later turn goes where its history is, credited with it");
  assert.ok(run(false) < 24, "without the shared hints the new configuration starts from nothing");
});

test("a hint's key ends in the six lowercase hex digits of its chain hash's bucket", () => {
  for (const buckets of [1024, 65536, 16777216]) {
    const h = pickerHost({ workers: 2, config: { prefix: { sharedHintBuckets: buckets } } });
    h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
    for (let conv = 0; conv < 8; conv++) {
      h.complete(h.send(chat(text(600 + conv, 6000), [["task " + conv, text(900 + conv, 2000)]], "next " + text(conv, 9000)), [], { worker: conv & 1 }));
    }
    const shared = h.host.process.sharedData;
    const keys = shared.keys("endpoint_picker").filter((k) => k.includes("/hint/"));
    assert.ok(keys.length >= 8 * 3, `${buckets} buckets: ${keys.length} keys`);
    for (const key of keys) {
      const v = shared.get("endpoint_picker", key).value!;
      const bucket = new DataView(v.buffer, v.byteOffset, v.byteLength).getBigUint64(0, true) & BigInt(buckets - 1);
      assert.equal(key, "endpoint_picker/hint/v2/" + bucket.toString(16).padStart(6, "0"));
    }
  }
});
