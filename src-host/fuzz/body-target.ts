// Fuzz target "bodies": request bodies of every shape and damage through both builds, against a fixed set of
// endpoints with clean metrics. Each request must be forwarded, decided or counted as one fail-open, and leave
// no lease behind.
import { StaticCluster } from "../host/cluster.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { Flavor } from "../host/vm.ts";
import { StaticClusterHarness, upstreamHosts } from "../harness/static-cluster-harness.ts";
import { pickerCounters, requestViolations, sendBody } from "./picker-driver.ts";
import { completeStream } from "../harness/plugin-request.ts";
import { generateBody } from "./request-bodies.ts";
import type { SeededRandom } from "../util/seeded-random.ts";
import { b64, type FuzzTarget } from "./target.ts";

export const BODY_PODS = ["10.2.0.1:8000", "10.2.0.2:8000", "10.2.0.3:8000", "10.2.0.4:8000"];

export interface BodyInput {
  flavor: Flavor;
  path: string;
  kind: string;
  chunks: number;
  body: Uint8Array;
}

function makeHost(flavor: Flavor, log: (m: string) => void): PluginHost {
  const endpoints = BODY_PODS.map((address, i) => ({ address, health: i === 3 ? "Unhealthy" : "Healthy", waiting: i, running: 2 * i, kv: 0.1 * i }));
  const config = flavor === "envoy" ? { endpoints: BODY_PODS.slice(0, 3).map((address, i) => ({ address, metricsCluster: `m${i}` })) } : {};
  return new StaticClusterHarness({
    flavor,
    pluginConfig: JSON.stringify({ ...config, limits: { maxRequestBodyBytes: 1 << 20 } }),
    bufferLimitBytes: 8 << 20,
    cluster: new StaticCluster("backends", upstreamHosts(endpoints)),
    log: (_l, m) => log(m),
  }).host;
}

export class BodyTarget implements FuzzTarget<BodyInput> {
  readonly name = "bodies";
  readonly logs: string[] = [];
  private readonly hosts: Record<Flavor, PluginHost>;

  constructor(private readonly maxLong = 300_000) {
    const log = (m: string) => {
      if (this.logs.length < 10_000) this.logs.push(m);
    };
    this.hosts = { higress: makeHost("higress", log), envoy: makeHost("envoy", log) };
  }

  generate(rng: SeededRandom): BodyInput {
    const b = generateBody(rng, this.maxLong);
    return { flavor: rng.chance(0.7) ? "higress" : "envoy", path: b.path, kind: b.kind, chunks: rng.chance(0.8) ? 1 : rng.range(2, 5), body: b.bytes };
  }

  run(input: BodyInput): string[] {
    const host = this.hosts[input.flavor];
    const before = pickerCounters(host);
    const traps = host.traps;
    const s = sendBody(host, input.body, { path: input.path, chunks: input.chunks });
    const routable = new Set(BODY_PODS.slice(0, 3)); // the fourth is unhealthy (Higress) or not configured (stock)
    const v = requestViolations(host, s, before, traps, routable);
    completeStream(s);
    const inflight = pickerCounters(host).get("inflight") ?? 0;
    if (inflight !== 0) v.push(`inflight gauge ${inflight} after the stream ended`);
    if (host.traps !== traps) v.push("trap while completing the stream");
    return v;
  }

  toJson(i: BodyInput): unknown {
    return { flavor: i.flavor, path: i.path, kind: i.kind, chunks: i.chunks, body: b64.encode(i.body) };
  }

  fromJson(j: unknown): BodyInput {
    const o = j as Record<string, unknown>;
    return { flavor: o.flavor as Flavor, path: String(o.path), kind: String(o.kind), chunks: Number(o.chunks ?? 1), body: b64.decode(String(o.body)) };
  }

  memoryBytes(): number {
    return this.hosts.higress.workers[0].vm.linearMemoryBytes() + this.hosts.envoy.workers[0].vm.linearMemoryBytes();
  }

  close(): void {
    this.hosts.higress.close();
    this.hosts.envoy.close();
  }
}
