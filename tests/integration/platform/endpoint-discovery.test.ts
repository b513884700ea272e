// assembly/platform/endpoint-discovery.ts through the stock Envoy build: the endpoints are the healthy hosts of the
// serving cluster as Envoy's admin /clusters?format=json lists them (host/admin-clusters.ts); each one's /metrics is
// fetched through one ORIGINAL_DST cluster that takes the pod from x-envoy-original-dst-host
// (host/original-dst-cluster.ts). A host that joins is used with nothing remembered, one that leaves is evicted and
// forgotten, one failing Envoy's health check is excluded and remembered, and a failed admin poll changes nothing.
// Each member holds a slot of the published list (assembly/platform/member-slots.ts) that names its shared data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, StaticCluster, type UpstreamHost } from "../../../src-host/host/cluster.ts";
import { Router } from "../../../src-host/gateway/router.ts";
import { AdminCluster } from "../../../src-host/host/admin-clusters.ts";
import { OriginalDstCluster, ORIGINAL_DST_HOST_HEADER } from "../../../src-host/host/original-dst-cluster.ts";
import { PICKER_ROOT_ID, StaticClusterHarness } from "../../../src-host/harness/static-cluster-harness.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";
import type { DebugScores } from "../../../src-host/fuzz/debug-header.ts";
import { debugOf, matchedOn } from "../../support/picker.ts";

const POLL_MS = 200;
const PROMPT = {
  model: "m",
  messages: [{ role: "user", content: Array.from({ length: 300 }, (_, i) => `rule ${i} of the house style`).join("; ") }],
};
const OTHER_PROMPT = { model: "m", messages: [{ role: "user", content: "what time is it?" }] };

interface Stock {
  harness: StaticClusterHarness;
  serving: StaticCluster;
  /** The addresses the metrics calls reached, in order. */
  reached: string[];
  /** Whether the admin listener answers 503; an answer it gives instead of its own (200). */
  admin: { down: boolean; answer?: string };
  /** The plugin's log lines. */
  logs: string[];
  /** Pods whose /metrics answers 503. */
  down: Set<string>;
  /** Pods whose /metrics never answers (the call times out). */
  silent: Set<string>;
}

function host(address: string, healthStatus = "Healthy"): UpstreamHost {
  return { address, healthStatus, metrics: "" };
}

function stock(hosts: UpstreamHost[], extra: Record<string, unknown> = {}): Stock {
  const clusters = new ClusterRegistry();
  const serving = new StaticCluster("vllm", hosts);
  const reached: string[] = [];
  const admin: Stock["admin"] = { down: false };
  const logs: string[] = [];
  const down = new Set<string>();
  const silent = new Set<string>();
  clusters.add(serving);
  clusters.add(
    new OriginalDstCluster("vllm_metrics", (address, _req, respond) => {
      reached.push(address);
      if (silent.has(address)) return;
      if (down.has(address)) return respond({ headers: [[":status", "503"]], body: new Uint8Array(0), trailers: [] });
      respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(vllmPage({ waiting: 0, kv: 0.1 })), trailers: [] });
    }),
  );
  const adminCluster = new AdminCluster("envoy_admin", () => clusters.all());
  clusters.add({
    name: adminCluster.name,
    hosts: () => [],
    dispatch(req, respond) {
      if (admin.down) respond({ headers: [[":status", "503"]], body: new Uint8Array(0), trailers: [] });
      else if (admin.answer !== undefined) respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(admin.answer), trailers: [] });
      else adminCluster.dispatch(req, respond);
    },
  });
  const harness = new StaticClusterHarness({
    flavor: "envoy",
    workers: 1,
    clusters,
    pluginConfig: JSON.stringify({
      discovery: { cluster: "envoy_admin", servingCluster: "vllm", metricsCluster: "vllm_metrics", intervalMs: POLL_MS },
      metrics: { pollIntervalMs: POLL_MS, pollTimeoutMs: 100, snapshotTtlMs: 0 },
      debug: { header: true },
      ...extra,
    }),
    log: (_level, message) => logs.push(message),
  });
  return { harness, serving, reached, admin, logs, down, silent };
}

function advance(s: Stock, ms: number): void {
  s.harness.clock.advanceTo(s.harness.clock.nowMs() + ms);
}

function decide(s: Stock, prompt: object = PROMPT): DebugScores {
  const stream = s.harness.send(prompt);
  const debug = debugOf(stream);
  s.harness.complete(stream);
  return debug;
}

/** The pod's engine dies: its metrics polls fail for five poll intervals while requests go on. */
function pollsFail(s: Stock, address: string): void {
  s.down.add(address);
  for (let t = 0; t < 5; t++) {
    advance(s, POLL_MS);
    decide(s, OTHER_PROMPT);
  }
}

function tracked(d: DebugScores): string[] {
  return [...d.scores.keys()].sort();
}

test("the endpoints are the serving cluster's hosts, their metrics polled through the ORIGINAL_DST cluster", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000"), host("10.8.0.3:8000", "Unhealthy"), host("[fd00::7]:8000")]);
  const early = s.harness.send(OTHER_PROMPT);
  assert.equal(s.harness.chosen(early), null, "nothing known before the first admin poll: Envoy's own balancer decides");
  s.harness.complete(early);
  advance(s, POLL_MS * 2);
  const d = decide(s);
  assert.deepEqual(tracked(d), ["10.8.0.1:8000", "10.8.0.2:8000", "10.8.0.3:8000", "[fd00::7]:8000"]);
  assert.equal(matchedOn(d, "10.8.0.3:8000"), "excluded", "the host failing Envoy's health check is a member, not a candidate");
  assert.deepEqual([...new Set(s.reached)].sort(), ["10.8.0.1:8000", "10.8.0.2:8000", "10.8.0.3:8000", "[fd00::7]:8000"], "each endpoint's page, by its header");
  assert.equal(s.harness.counter("discovery_failures"), 0);
});

test("a host that joins is used, with nothing remembered; one that leaves is evicted and forgotten", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000")]);
  advance(s, POLL_MS * 2);
  const holder = decide(s).endpoint;
  const held = matchedOn(decide(s), holder);
  assert.ok(typeof held === "number" && held > 0, `the index remembers the prompt on ${holder}: ${held}`);

  s.serving.hostList = [...s.serving.hostList, host("10.8.0.9:8000")];
  advance(s, POLL_MS * 2);
  const joined = decide(s);
  assert.equal(matchedOn(joined, "10.8.0.9:8000"), 0, "the joiner is a candidate, holding nothing");
  assert.ok(s.reached.includes("10.8.0.9:8000"), "its metrics are polled");

  s.serving.hostList = s.serving.hostList.filter((h) => h.address !== holder);
  advance(s, POLL_MS * 2);
  const left = decide(s, OTHER_PROMPT);
  assert.equal(matchedOn(left, holder), "untracked", "the host that left is no endpoint");
  assert.notEqual(left.endpoint, holder);
  assert.equal(s.harness.counter("evicted_endpoints"), 1);

  s.serving.hostList = [...s.serving.hostList, host(holder)];
  advance(s, POLL_MS * 2);
  assert.equal(matchedOn(decide(s), holder), 0, "back, with its index entries forgotten");
});

test("a host that rejoins is not taken for gone by the failed polls of its previous life", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000")]);
  advance(s, POLL_MS * 2);
  decide(s);
  // The pod's engine dies: its polls fail until it is taken for gone, then Envoy's health check drops it.
  pollsFail(s, "10.8.0.1:8000");
  s.serving.hostList = [host("10.8.0.2:8000")];
  advance(s, POLL_MS * 2);
  assert.equal(matchedOn(decide(s, OTHER_PROMPT), "10.8.0.1:8000"), "untracked");
  const evicted = s.harness.counter("evicted_endpoints");
  // It restarts at the same address, healthy; its last record (unhealthy, last polled long ago) is still published.
  s.down.delete("10.8.0.1:8000");
  s.serving.hostList = [host("10.8.0.1:8000"), host("10.8.0.2:8000")];
  const seen: Array<ReturnType<typeof matchedOn>> = [];
  for (let t = 0; t < 30; t++) {
    advance(s, POLL_MS / 10);
    seen.push(matchedOn(decide(s, OTHER_PROMPT), "10.8.0.1:8000"));
  }
  const listed = seen.findIndex((m) => m !== "untracked");
  assert.ok(listed >= 0, `the joiner is an endpoint: ${seen.join(",")}`);
  assert.ok(seen.slice(listed).every((m) => m !== "untracked"), `once listed it stays: ${seen.join(",")}`);
  assert.equal(s.harness.counter("evicted_endpoints"), evicted, "nothing evicted on its return");
});

test("a failed admin poll is counted and keeps the endpoints known", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000")]);
  advance(s, POLL_MS * 2);
  assert.equal(tracked(decide(s)).length, 2);
  s.admin.down = true;
  s.serving.hostList = [];
  advance(s, POLL_MS * 3);
  assert.ok(s.harness.counter("discovery_failures") >= 2, "each failed poll counted");
  assert.equal(s.harness.counter("discovery_unreadable_answers"), 0, "no answer is no unreadable answer");
  assert.deepEqual(tracked(decide(s)), ["10.8.0.1:8000", "10.8.0.2:8000"], "the last list stands");
  s.admin.down = false;
  advance(s, POLL_MS * 2);
  assert.equal(s.harness.chosen(s.harness.send(OTHER_PROMPT)), null, "an empty serving cluster leaves the choice to Envoy");
});

test("an admin answer that cannot be read is counted apart, logged once per run, and keeps the endpoints known", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000")]);
  advance(s, POLL_MS * 2);
  assert.equal(tracked(decide(s)).length, 2);
  const warned = () => s.logs.filter((l) => l.includes("discovery:")).length;
  const answers = ["{\"cluster_statuses\": [", "{\"clusters\": []}", "cluster_statuses", JSON.stringify({ cluster_statuses: [{ name: "other" }] })];
  for (const answer of answers) {
    s.admin.answer = answer;
    const before = s.harness.counter("discovery_unreadable_answers");
    advance(s, POLL_MS);
    assert.equal(s.harness.counter("discovery_unreadable_answers"), before + 1, answer);
  }
  assert.equal(warned(), 1, "one warning for the run");
  assert.equal(s.harness.counter("discovery_failures"), answers.length);
  assert.deepEqual(tracked(decide(s)), ["10.8.0.1:8000", "10.8.0.2:8000"], "the last list stands");
  s.admin.answer = undefined;
  advance(s, POLL_MS);
  s.admin.answer = "x".repeat(1_100_000);
  advance(s, POLL_MS * 2);
  assert.equal(s.harness.counter("discovery_unreadable_answers"), answers.length + 2, "answers over discovery.maxBodyBytes");
  assert.equal(warned(), 2, "a new run after a readable answer warns again, once");
  assert.match(s.logs.filter((l) => l.includes("discovery:"))[0], /GET \/clusters\?format=json is not an admin \/clusters JSON answer listing cluster vllm; keeping the last list$/);
  assert.match(s.logs.filter((l) => l.includes("discovery:"))[1], /is over discovery\.maxBodyBytes \(1100000 bytes\); keeping the last list$/);
});

test("a host failing Envoy's health check for a while is excluded, and keeps its index entries when it passes again", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000")]);
  advance(s, POLL_MS * 2);
  const holder = decide(s).endpoint;
  const held = matchedOn(decide(s), holder);
  assert.ok(typeof held === "number" && held > 0, `the index remembers the prompt on ${holder}: ${held}`);
  const other = holder === "10.8.0.1:8000" ? "10.8.0.2:8000" : "10.8.0.1:8000";
  s.serving.hostList = [host(holder, "Unhealthy"), host(other)];
  advance(s, POLL_MS * 2);
  const failing = decide(s);
  assert.equal(matchedOn(failing, holder), "excluded", "excluded from picks while Envoy counts it unhealthy");
  assert.equal(failing.endpoint, other);
  s.serving.hostList = [host(holder), host(other)];
  advance(s, POLL_MS * 2);
  const back = decide(s);
  assert.equal(back.endpoint, holder, "its cached prefix brings the prompt back to it");
  assert.equal(matchedOn(back, holder), held, "its index entries were kept");
  assert.equal(s.harness.counter("evicted_endpoints"), 0);
});

const OTHERS = ["10.8.0.4:8000", "10.8.0.5:8000", "10.8.0.6:8000", "10.8.0.7:8000"];

test("no healthy host: the choice is Envoy's, and nothing is forgotten", () => {
  // Five healthy of seven: Envoy's healthy availability is 140 x 5 / 7 = 100, the degraded hosts get no share.
  const healthy = ["10.8.0.1:8000", ...OTHERS];
  const s = stock([host("10.8.0.2:8000", "Degraded"), host("10.8.0.3:8000", "DegradedActiveHc"), ...healthy.map((a) => host(a))]);
  advance(s, POLL_MS * 2);
  const first = decide(s);
  assert.ok(healthy.includes(first.endpoint), "degraded hosts are left for when the healthy ones fall short");
  assert.equal(matchedOn(first, "10.8.0.2:8000"), "excluded");
  assert.equal(matchedOn(first, "10.8.0.3:8000"), "excluded");
  const holder = first.endpoint;
  const held = matchedOn(decide(s), holder);
  s.serving.hostList = [host("10.8.0.2:8000", "Degraded"), host("10.8.0.3:8000", "DegradedActiveHc"), ...healthy.map((a) => host(a, "Unhealthy"))];
  advance(s, POLL_MS * 2);
  const panic = s.harness.send(PROMPT);
  assert.equal(s.harness.chosen(panic), null, "no override: Envoy's balancer (degraded hosts, or all in panic) decides");
  s.harness.complete(panic);
  s.serving.hostList = [host("10.8.0.2:8000"), host("10.8.0.3:8000", "PendingActiveHc"), ...healthy.map((a) => host(a))];
  advance(s, POLL_MS * 2);
  const back = decide(s);
  assert.equal(matchedOn(back, holder), held, "back with its index entries");
  assert.equal(matchedOn(back, "10.8.0.3:8000"), "excluded", "pending its first check");
  assert.equal(s.harness.counter("evicted_endpoints"), 0);
});
test("healthy hosts short by Envoy's rule: the plugin names none, and Envoy's balancer gives the degraded hosts their share", () => {
  const healthy = ["10.8.1.1:8000", "10.8.1.2:8000", "10.8.1.3:8000"];
  const degraded = ["10.8.1.4:8000", "10.8.1.5:8000", "10.8.1.6:8000"];
  const s = stock([...healthy.map((a) => host(a)), ...degraded.map((a) => host(a, "Degraded"))]);
  const router = new Router(s.serving, "envoy");
  advance(s, POLL_MS * 2);
  // Three healthy of six: availability 140 x 3 / 6 = 70 each, so Envoy sends 70% to the healthy hosts, 30% to the
  // degraded ones (load_balancer_impl.cc recalculatePerPriorityState).
  const reached = new Map<string, number>();
  for (let i = 0; i < 100; i++) {
    const stream = s.harness.send(i % 2 ? PROMPT : OTHER_PROMPT);
    assert.equal(s.harness.chosen(stream), null, `request ${i}: no host named`);
    const route = router.route({ overrideHost: null, requestHeaders: stream.requestHeaders })!;
    reached.set(route.host.address, (reached.get(route.host.address) ?? 0) + 1);
    s.harness.complete(stream);
  }
  assert.equal(s.harness.counter("fallback.degraded_share"), 100);
  const toDegraded = degraded.reduce((n, a) => n + (reached.get(a) ?? 0), 0);
  assert.equal(toDegraded, 30, "the degraded hosts' share");
  assert.ok(degraded.every((a) => (reached.get(a) ?? 0) > 0), "each degraded host is used");
  // Eight healthy of eleven: 140 x 8 / 11 = 101, enough: the plugin picks again among the healthy hosts.
  s.serving.hostList = [...healthy, ...OTHERS, "10.8.1.8:8000"].map((a) => host(a)).concat(degraded.map((a) => host(a, "Degraded")));
  advance(s, POLL_MS * 2);
  const d = decide(s);
  assert.ok(d.endpoint !== null && !degraded.includes(d.endpoint), "a healthy host is named");
  assert.equal(matchedOn(d, degraded[0]), "excluded");
});

test("hosts pending their first check are out of Envoy's host count: healthy ones that suffice without them keep the choice", () => {
  // Four healthy, one degraded, two pending their first check (excluded: upstream_impl.cc excludeBasedOnHealthFlag).
  // Envoy counts five hosts: healthy availability 140 x 4 / 5 = 112, capped at 100: the degraded host gets no share.
  const healthy = ["10.8.2.1:8000", "10.8.2.2:8000", "10.8.2.3:8000", "10.8.2.4:8000"];
  const s = stock([
    ...healthy.map((a) => host(a)),
    host("10.8.2.5:8000", "Degraded"),
    host("10.8.2.6:8000", "PendingActiveHc"),
    host("10.8.2.7:8000", "PendingActiveHc"),
  ]);
  const router = new Router(s.serving, "envoy");
  advance(s, POLL_MS * 2);
  for (let i = 0; i < 100; i++) {
    const route = router.route({ overrideHost: null, requestHeaders: [] })!;
    assert.ok(healthy.includes(route.host.address), "Envoy's own balancer uses only the healthy hosts");
  }
  const d = decide(s);
  assert.ok(d.endpoint !== null && healthy.includes(d.endpoint), "a healthy host is named");
  assert.equal(s.harness.counter("fallback.degraded_share"), 0);
});

test("hosts draining by EDS are out of Envoy's host count: healthy ones that suffice without them keep the choice", () => {
  // Four healthy, one degraded, two that EDS marks DRAINING (the admin prints eds_health_status DRAINING; Envoy leaves
  // them out: upstream_impl.cc excludeBasedOnHealthFlag, EDS_STATUS_DRAINING). Envoy counts five hosts: 140 x 4 / 5 =
  // 112, capped at 100. Counted, the two would make it 140 x 4 / 7 = 80 and give the degraded host a 20% share.
  const healthy = ["10.8.3.1:8000", "10.8.3.2:8000", "10.8.3.3:8000", "10.8.3.4:8000"];
  const s = stock([
    ...healthy.map((a) => host(a)),
    host("10.8.3.5:8000", "Degraded"),
    host("10.8.3.6:8000", "Draining"),
    host("10.8.3.7:8000", "Draining"),
  ]);
  const router = new Router(s.serving, "envoy");
  advance(s, POLL_MS * 2);
  for (let i = 0; i < 100; i++) {
    const route = router.route({ overrideHost: null, requestHeaders: [] })!;
    assert.ok(healthy.includes(route.host.address), "Envoy's own balancer uses only the healthy hosts");
  }
  const d = decide(s);
  assert.ok(d.endpoint !== null && healthy.includes(d.endpoint), "a healthy host is named");
  assert.equal(matchedOn(d, "10.8.3.6:8000"), "excluded", "a draining host is not picked");
  assert.equal(s.harness.counter("fallback.degraded_share"), 0);
});

function sharedKeys(s: Stock): string[] {
  return s.harness.host.process.sharedData.keys(PICKER_ROOT_ID).filter((k) => k.startsWith("endpoint_picker/endpoint/") || k.startsWith("endpoint_picker/discovery/"));
}

test("a pod restarting at a new address takes the slot of the one it replaces: the shared-data names stay bounded", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000"), host("10.8.0.3:8000")], { limits: { maxEndpoints: 4 } });
  advance(s, POLL_MS * 2);
  decide(s);
  const before = sharedKeys(s).length;
  for (let i = 10; i < 40; i++) {
    // One pod restarts at a new IP: Envoy lists the new one and drops the old.
    const kept = s.serving.hostList.slice(1);
    s.serving.hostList = [...kept, host(`10.8.1.${i}:8000`)];
    advance(s, POLL_MS * 2);
    const d = decide(s, OTHER_PROMPT);
    assert.deepEqual(tracked(d), s.serving.hostList.map((h) => h.address).sort());
  }
  const after = sharedKeys(s);
  assert.ok(after.length <= 2 + 2 * 4, `at most two names per slot and two for the list: ${after.length}`);
  assert.equal(after.length, before, `no name added by the thirty new pods: ${after.join(" ")}`);
  assert.ok(after.every((k) => !k.includes("10.8.")), "no name carries an address");
  assert.equal(s.harness.counter("evicted_endpoints"), 30);
});

test("a joiner in a departed pod's slot does not read that pod's record as its own", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000")]);
  advance(s, POLL_MS * 2);
  decide(s);
  // The first pod's engine dies: its polls fail, its record (in its slot) says unhealthy since long ago.
  pollsFail(s, "10.8.0.1:8000");
  const evicted = s.harness.counter("evicted_endpoints");
  assert.equal(evicted, 1, "taken for gone after its failed polls");
  // Envoy replaces it by a new pod, which takes its slot; the new pod's first poll has not answered yet.
  s.silent.add("10.8.0.9:8000");
  s.serving.hostList = [host("10.8.0.2:8000"), host("10.8.0.9:8000")];
  const seen: Array<ReturnType<typeof matchedOn>> = [];
  for (let t = 0; t < 20; t++) {
    advance(s, POLL_MS / 10);
    seen.push(matchedOn(decide(s, OTHER_PROMPT), "10.8.0.9:8000"));
  }
  const listed = seen.findIndex((m) => m !== "untracked");
  assert.ok(listed >= 0, `the joiner is an endpoint: ${seen.join(",")}`);
  assert.equal(seen[listed], 0, `a candidate with nothing polled yet, not the old pod's unhealthy record: ${seen.join(",")}`);
  assert.ok(seen.slice(listed).every((m) => m !== "untracked"), `never taken for gone: ${seen.join(",")}`);
  assert.equal(s.harness.counter("evicted_endpoints"), evicted, "nothing more evicted");
});

test("serving hosts beyond limits.maxEndpoints are left out and counted", () => {
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000"), host("10.8.0.3:8000")], { limits: { maxEndpoints: 2 } });
  advance(s, POLL_MS * 2);
  assert.deepEqual(tracked(decide(s)), ["10.8.0.1:8000", "10.8.0.2:8000"]);
  assert.ok(s.harness.counter("discovery_dropped_endpoints") >= 1);
});

test("the metrics call names its pod in x-envoy-original-dst-host", () => {
  const seen: Array<string | undefined> = [];
  const clusters = new ClusterRegistry();
  const c = new OriginalDstCluster("m", (address, req, respond) => {
    seen.push(req.headers.find(([k]) => k === ORIGINAL_DST_HOST_HEADER)?.[1]);
    respond({ headers: [[":status", "200"]], body: new Uint8Array(0), trailers: [] });
  });
  clusters.add(c);
  let status = "";
  c.dispatch({ headers: [[":path", "/metrics"]], body: new Uint8Array(0), trailers: [], timeoutMs: 100 }, (r) => {
    status = r !== null && r !== "reset" ? r.headers[0][1] : "";
  });
  assert.equal(status, "503", "no header: no host, the router's local 503");
  assert.deepEqual(seen, []);
});

test("a member is known by its slot, generation and address: a list giving its slot and generation to another address replaces it", () => {
  // Two workers that both find no list publish without a cas (cpp-host shared_data.cc SharedData::set: a cas of 0
  // always succeeds), both numbering their joiners from generation 1: the second list gives the first one's slots and
  // generations to other addresses. A reader that applied the first must not keep its members for the second's.
  const s = stock([host("10.8.0.1:8000"), host("10.8.0.2:8000")]);
  advance(s, POLL_MS * 2);
  assert.deepEqual(tracked(decide(s)), ["10.8.0.1:8000", "10.8.0.2:8000"]);
  const shared = s.harness.host.process.sharedData;
  const key = shared.keys(PICKER_ROOT_ID).find((k) => k.startsWith("endpoint_picker/discovery/") && k.endsWith("/members"));
  assert.ok(key !== undefined, "the list is published");
  const list = shared.get(PICKER_ROOT_ID, key).value!.slice();
  const text = new TextDecoder().decode(list);
  const at = text.indexOf("10.8.0.1:8000");
  assert.ok(at > 0, "the first pod is listed");
  list.set(new TextEncoder().encode("10.8.0.3:8000"), at);
  assert.equal(shared.set(PICKER_ROOT_ID, key, list, 0), 0);
  s.serving.hostList = [host("10.8.0.3:8000"), host("10.8.0.2:8000")];
  advance(s, POLL_MS * 2);
  const d = decide(s, OTHER_PROMPT);
  assert.deepEqual(tracked(d), ["10.8.0.2:8000", "10.8.0.3:8000"], "the endpoints are the listed hosts");
  assert.ok(s.reached.includes("10.8.0.3:8000"), "the new pod's metrics are polled");
});
