// Fuzz target "configs": configure must accept a config, or reject it with an error log line, and never trap.
// An accepted config must then route a normal request within the per-request properties.
import { LogLevel } from "../host/abi.ts";
import { StaticCluster } from "../host/cluster.ts";
import { ConfigRejectedError, type PluginHost } from "../host/plugin-host.ts";
import type { Flavor } from "../host/vm.ts";
import { StaticClusterHarness, upstreamHosts } from "../harness/static-cluster-harness.ts";
import { pickerCounters, requestViolations, sendBody } from "./picker-driver.ts";
import { completeStream } from "../harness/plugin-request.ts";
import { generateConfig } from "./plugin-configs.ts";
import type { SeededRandom } from "../util/seeded-random.ts";
import type { FuzzTarget } from "./target.ts";

export interface ConfigInput {
  flavor: Flavor;
  config: string;
}

const PODS = ["10.4.0.1:8000", "10.4.0.2:8000"];

export class ConfigTarget implements FuzzTarget<ConfigInput> {
  readonly name = "configs";
  accepted = 0;
  rejected = 0;

  generate(rng: SeededRandom): ConfigInput {
    return { flavor: rng.chance(0.6) ? "higress" : "envoy", config: generateConfig(rng) };
  }

  run(input: ConfigInput): string[] {
    const logs: Array<[number, string]> = [];
    const cluster = new StaticCluster("backends", upstreamHosts(PODS.map((address) => ({ address, waiting: 1, running: 1, kv: 0.1 }))));
    let host: PluginHost;
    try {
      host = new StaticClusterHarness({
        flavor: input.flavor,
        pluginConfig: input.config,
        cluster,
        log: (l, m) => logs.push([l, m]),
        logLevel: LogLevel.Trace,
      }).host;
    } catch (e) {
      if (!(e instanceof ConfigRejectedError)) return [`configure threw ${String(e)}`];
      this.rejected++;
      const v: string[] = [];
      if (logs.some(([l, m]) => l === LogLevel.Critical || m.includes("wasm trap"))) v.push(`trap while configuring: ${logs.map(([, m]) => m).join(" | ").slice(0, 300)}`);
      if (!logs.some(([l, m]) => l === LogLevel.Error && m.startsWith("endpoint-picker: "))) v.push("rejected without an error log line");
      return v;
    }
    this.accepted++;
    try {
      const v: string[] = [];
      if (logs.some(([l]) => l >= LogLevel.Error)) v.push(`accepted with an error logged: ${logs.find(([l]) => l >= LogLevel.Error)![1]}`);
      const before = pickerCounters(host);
      const s = sendBody(host, new TextEncoder().encode(JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] })));
      // The stock build routes among its configured endpoints, which the config chose.
      const routable = input.flavor === "higress" ? new Set(PODS) : configuredAddresses(input.config);
      v.push(...requestViolations(host, s, before, 0, routable));
      completeStream(s);
      if (host.traps !== 0) v.push("trap");
      return v;
    } finally {
      host.close();
    }
  }

  toJson(i: ConfigInput): unknown {
    return i;
  }

  fromJson(j: unknown): ConfigInput {
    const o = j as ConfigInput;
    return { flavor: o.flavor, config: String(o.config) };
  }

  memoryBytes(): null {
    return null;
  }

  close(): void {}
}

function configuredAddresses(text: string): Set<string> {
  try {
    const o = JSON.parse(text);
    const list = (o?.lb_config ?? o)?.endpoints;
    return new Set(Array.isArray(list) ? list.map((e: { address?: unknown }) => String(e?.address)) : []);
  } catch {
    return new Set();
  }
}
