// A long run of short requests through the Higress build with endpoints coming and going, overlapping streams
// that end every way a stream can (200, 5xx, reset before or after the body, a 413 local reply, an invalid body, an
// earlier filter's answer before the stream reached this one), a quarter of them on HTTP/3 (logged after their
// filters go), to show that leases always come back and memory stays flat. Used by tests/integration/leases-soak.test.ts and the
// `--soak` mode of the fuzz CLI.
import type { StaticCluster } from "../host/cluster.ts";
import type { FilterStream } from "../host/filter-stream.ts";
import { StaticClusterHarness, upstreamHosts } from "../harness/static-cluster-harness.ts";
import { pickerCounters, sendBody } from "./picker-driver.ts";
import { chosenEndpoint } from "../harness/plugin-request.ts";
import { SeededRandom } from "../util/seeded-random.ts";

export const SOAK_ADDRESSES = Array.from({ length: 12 }, (_, i) => `10.6.0.${i + 1}:8000`);
const enc = new TextEncoder();
const BODIES = Array.from({ length: 64 }, (_, i) => enc.encode(`{"model":"m","messages":[{"role":"user","content":"q${i}"}]}`));
const BIG = enc.encode(`{"model":"m","messages":[{"role":"user","content":"${"x".repeat(600)}"}]}`);
const INVALID = enc.encode(`{"model":"m","messages":[`);

export interface SoakOptions {
  requests: number;
  seed: number;
  workers?: number;
  /** Streams kept open at most (they end in random order). */
  maxOpen?: number;
  /** Requests between host-list changes. */
  churnEvery?: number;
}

export interface SoakResult {
  requests: number;
  decisions: number;
  memoryAfterWarmup: number;
  memoryAtEnd: number;
  inflightGauge: number;
  outstandingAtEnd: number;
  /** Per worker: how 2 × endpoints held-open requests spread over the endpoints afterwards. */
  spread: Array<Map<string, number>>;
  /** Endpoints in the host list at the end. */
  liveEndpoints: number;
  ms: number;
}

export function makeSoakHost(workers: number): StaticClusterHarness {
  return new StaticClusterHarness({
    // Inflight only, so that a lost or stray lease shows in where requests go.
    // Each worker's own leases decide (not the process-wide counts), so its held-open requests spread evenly.
    pluginConfig: JSON.stringify({
      weights: { queue: 0, kvCache: 0, prefixCache: 0, inflight: 1 }, scoring: { shareLoadAcrossWorkers: false }, loadGuard: { factor: 0 },
      limits: { maxEndpoints: 8 },
    }),
    workers,
    // Small, so that the big body gets Envoy's 413 local reply.
    bufferLimitBytes: 400,
    log: () => {},
  });
}

function setHosts(cluster: StaticCluster, addresses: string[]): void {
  cluster.hostList = upstreamHosts(addresses.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
}

function end(rng: SeededRandom, s: FilterStream): void {
  const r = rng.int(10);
  if (r < 5) {
    s.encodeHeaders([[":status", r === 0 ? "503" : "200"]], false);
    s.encodeData(enc.encode("{}"), true);
    s.finish();
  } else if (r < 8) s.reset();
  else {
    s.encodeHeaders([[":status", "500"]], true);
    s.finish();
  }
}

export function runLeaseSoak(o: SoakOptions): SoakResult {
  const started = performance.now();
  const workers = o.workers ?? 2;
  const { host, cluster, clock } = makeSoakHost(workers);
  const rng = new SeededRandom(o.seed);
  const maxOpen = o.maxOpen ?? 40;
  const churnEvery = o.churnEvery ?? 5000;
  const open: FilterStream[] = [];
  // 6 to 8 of the 12 addresses at a time, so slots get reused by other endpoints while leases are out.
  const pickHosts = () => SOAK_ADDRESSES.filter(() => rng.chance(0.6)).slice(0, 8);
  setHosts(cluster, pickHosts());
  const memory = () => host.workers.reduce((n, w) => n + w.vm.linearMemoryBytes(), 0);
  let memoryAfterWarmup = 0;
  for (let i = 0; i < o.requests; i++) {
    if (i % churnEvery === churnEvery - 1) setHosts(cluster, pickHosts());
    if (i === Math.floor(o.requests / 10)) memoryAfterWarmup = memory();
    clock.advanceTo(clock.nowMs() + 1);
    const kind = rng.int(20);
    let s: FilterStream;
    if (kind === 0) {
      // Reset before the body arrives.
      s = host.newStream({ clusterName: "backends" });
      s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"], ["content-length", "40"]], false);
      s.reset();
      continue;
    }
    const protocol = rng.chance(0.25) ? "HTTP/3" : "HTTP/2";
    if (kind === 3) {
      // An earlier filter answers it (a 401): it never reaches this one, which only logs it.
      s = host.newStream({ clusterName: "backends", protocol });
      s.encodeHeaders([[":status", "401"]], true);
      s.finish();
      continue;
    }
    const body = kind === 1 ? BIG : kind === 2 ? INVALID : BODIES[rng.int(BODIES.length)];
    s = sendBody(host, body, { protocol });
    if (s.requestState === "local-reply" || s.requestState === "reset") {
      s.finish();
      continue;
    }
    open.push(s);
    while (open.length > maxOpen || (open.length > 0 && rng.chance(0.45))) end(rng, open.splice(rng.int(open.length), 1)[0]);
  }
  for (const s of open.splice(0)) end(rng, s);
  const counters = pickerCounters(host);
  const memoryAtEnd = memory();
  // Per endpoint and worker: with every lease back, held-open requests spread evenly over the endpoints.
  // Two refreshes per worker first: near capacity, endpoints new to the registry get their slots on the
  // refresh after the one that drops the departed ones.
  for (let round = 0; round < 2; round++) {
    clock.advanceTo(clock.nowMs() + 1000);
    for (let w = 0; w < workers; w++) sendBody(host, BODIES[0], { worker: w }).reset();
  }
  const live = cluster.hostList.length;
  const spread: SoakResult["spread"] = [];
  const held: FilterStream[] = [];
  for (let w = 0; w < workers; w++) {
    const seen = new Map<string, number>();
    for (let k = 0; k < 2 * live; k++) {
      const s = sendBody(host, BODIES[k % BODIES.length], { worker: w });
      const c = chosenEndpoint(host, s) ?? "none";
      seen.set(c, (seen.get(c) ?? 0) + 1);
      held.push(s);
    }
    spread.push(seen);
  }
  for (const s of held) s.reset();
  const result: SoakResult = {
    requests: o.requests,
    decisions: counters.get("decisions") ?? 0,
    memoryAfterWarmup,
    memoryAtEnd,
    inflightGauge: counters.get("inflight") ?? NaN,
    outstandingAtEnd: pickerCounters(host).get("inflight") ?? NaN,
    spread,
    liveEndpoints: live,
    ms: performance.now() - started,
  };
  host.close();
  return result;
}
