// Fuzz target "hosts": proxy_get_upstream_hosts answers of every kind of damage (pair encoding, JSON, health,
// duplicates, /metrics text) under the Higress build. A decision must name a host a correct reader may route to;
// when every host is clean, the decision and the debug header's scores must match the reference model.
import { Status } from "../host/abi.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { StaticClusterHarness } from "../harness/static-cluster-harness.ts";
import { parseDebugHeader } from "./debug-header.ts";
import { outcomeOf, pickerCounters, requestViolations, sendBody } from "./picker-driver.ts";
import { rawUpstreamHosts } from "./raw-upstream-hosts.ts";
import { bestCandidates, DEFAULT_PARAMS, LoraState, scoreCandidates, type Candidate } from "./reference-scoring.ts";
import type { SeededRandom } from "../util/seeded-random.ts";
import { b64, type FuzzTarget } from "./target.ts";
import { generateHostsPayload, routableAddresses, type CleanHost } from "./upstream-hosts-payload.ts";

const MAX_ENDPOINTS = 64;
/** Decisions are compared with the model only when the best total beats the next by this much. */
const DECISIVE_MARGIN = 1e-6;
/** The debug header prints three decimals. */
const DEBUG_TOLERANCE = 0.0006;

export interface HostsInput {
  payload: Uint8Array;
  clean: CleanHost[] | null;
  nonce: number;
}

/** The reference model's candidates for clean hosts: fresh metrics, nothing in flight, no prefix match. */
export function cleanCandidates(hosts: CleanHost[]): Candidate[] {
  return hosts.map((h) => ({
    healthy: h.health === "Healthy",
    hasMetrics: true,
    waiting: h.load.waiting,
    running: h.load.running,
    kvUsage: h.load.kv,
    hasKv: true,
    inflight: 0,
    prefixMatched: 0,
    loraState: LoraState.Unknown,
    failureEwma: 0,
    sessionMatch: false,
  }));
}

export class HostsTarget implements FuzzTarget<HostsInput> {
  readonly name = "hosts";
  readonly logs: string[] = [];
  private readonly host: PluginHost;
  private current: Uint8Array | { status: number } = { status: Status.NotFound };

  constructor() {
    this.host = new StaticClusterHarness({
      // A fresh host list on every request, and the scores in a response header.
      pluginConfig: JSON.stringify({ metrics: { snapshotTtlMs: 0 }, debug: { header: true } }),
      log: (_l, m) => {
        if (this.logs.length < 10_000) this.logs.push(m);
      },
      extraImports: [rawUpstreamHosts(() => this.current)],
    }).host;
  }

  generate(rng: SeededRandom): HostsInput {
    const p = generateHostsPayload(rng);
    return { payload: p.bytes, clean: p.clean, nonce: rng.u32() };
  }

  run(input: HostsInput): string[] {
    const host = this.host;
    this.current = input.payload;
    const before = pickerCounters(host);
    const traps = host.traps;
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: `request ${input.nonce}` }] });
    const s = sendBody(host, new TextEncoder().encode(body));
    const v = requestViolations(host, s, before, traps, routableAddresses(input.payload, MAX_ENDPOINTS));
    const o = outcomeOf(host, s, before);
    s.encodeHeaders([[":status", "200"]], false);
    const debug = s.state.responseHeaders?.get("x-endpoint-picker-debug") ?? null;
    s.encodeData(new TextEncoder().encode("{}"), true);
    s.finish();
    if (input.clean && o.decisions === 1) v.push(...this.compareWithModel(input.clean, o.chosen!, debug));
    if (input.clean && input.clean.some((h) => h.health === "Healthy") && o.decisions !== 1) {
      v.push(`clean host list with a healthy host, but fail-open ${JSON.stringify([...o.fallbacks.keys()])}`);
    }
    const inflight = pickerCounters(host).get("inflight") ?? 0;
    if (inflight !== 0) v.push(`inflight gauge ${inflight} after the stream ended`);
    return v;
  }

  private compareWithModel(clean: CleanHost[], chosen: string, debug: string | null): string[] {
    const v: string[] = [];
    const c = cleanCandidates(clean);
    const scores = scoreCandidates(c, 0, DEFAULT_PARAMS);
    const best = bestCandidates(c, scores.total);
    const healthyTotals = scores.total.filter((_, i) => c[i].healthy).sort((a, b) => b - a);
    const decisive = best.length === 1 && (healthyTotals.length < 2 || healthyTotals[0] - healthyTotals[1] > DECISIVE_MARGIN);
    if (decisive && clean[best[0]].address !== chosen) v.push(`model picks ${clean[best[0]].address}, plugin ${chosen}`);
    if (!decisive && !best.some((i) => clean[i].address === chosen)) v.push(`plugin ${chosen} is not among the model's best`);
    const parsed = debug === null ? null : parseDebugHeader(debug);
    if (!parsed) return [...v, `unreadable debug header: ${debug}`];
    if (parsed.endpoint !== chosen) v.push(`debug header names ${parsed.endpoint}, override ${chosen}`);
    clean.forEach((h, i) => {
      const d = parsed.scores.get(h.address);
      if (!c[i].healthy) {
        if (d !== "excluded") v.push(`${h.address} is unhealthy but scored in the debug header`);
        return;
      }
      if (d === undefined || d === "excluded") {
        v.push(`${h.address} missing from the debug header`);
        return;
      }
      const pairs: Array<[string, number, number]> = [["t", d.t, scores.total[i]], ["q", d.q, scores.queue[i]], ["kv", d.kv, scores.kv[i]], ["p", d.p, scores.prefix[i]], ["i", d.i, scores.inflight[i]]];
      for (const [k, got, want] of pairs) if (!(Math.abs(got - want) <= DEBUG_TOLERANCE)) v.push(`${h.address} ${k}=${got}, model ${want.toFixed(4)}`);
    });
    return v;
  }

  toJson(i: HostsInput): unknown {
    return { payload: b64.encode(i.payload), clean: i.clean, nonce: i.nonce };
  }

  fromJson(j: unknown): HostsInput {
    const o = j as Record<string, unknown>;
    return { payload: b64.decode(String(o.payload)), clean: (o.clean as CleanHost[] | null) ?? null, nonce: Number(o.nonce ?? 0) };
  }

  memoryBytes(): number {
    return this.host.workers[0].vm.linearMemoryBytes();
  }

  close(): void {
    this.host.close();
  }
}
