// Runs the conformance plugin under the host and collects its CHECK lines.
import { compileFixture } from "./compile.ts";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { ClusterRegistry, type Cluster } from "../../src-host/host/cluster.ts";
import { PluginHost, type PluginHostOptions } from "../../src-host/host/plugin-host.ts";

export interface Harness {
  host: PluginHost;
  clock: VirtualClock;
  checks: Array<[string, string]>;
  logs: string[];
  /** All values logged for a check name, in order. */
  values(name: string): string[];
  /** The last value logged for a check name. */
  last(name: string): string | undefined;
}

export async function conformanceHost(options: Partial<PluginHostOptions> = {}, clusters: Cluster[] = []): Promise<Harness> {
  const wasm = await compileFixture("tests/guest/conformance-plugin.ts");
  const clock = new VirtualClock();
  const registry = new ClusterRegistry();
  for (const c of clusters) registry.add(c);
  const checks: Array<[string, string]> = [];
  const logs: string[] = [];
  const host = PluginHost.create({
    wasm,
    flavor: "higress",
    pluginConfig: "conformance",
    vmConfig: "vm-config",
    rootId: "conformance_root",
    vmId: "conformance_vm",
    pluginName: "conformance_plugin",
    clock,
    clusters: registry,
    log: (_level, message) => {
      logs.push(message);
      const m = /^CHECK (\S+) ?(.*)$/s.exec(message);
      if (m) checks.push([m[1], m[2]]);
    },
    ...options,
  });
  return {
    host,
    clock,
    checks,
    logs,
    values: (name) => checks.filter(([n]) => n === name).map(([, v]) => v),
    last: (name) => checks.filter(([n]) => n === name).at(-1)?.[1],
  };
}
