// Lets a test decide the exact bytes the Higress host call proxy_get_upstream_hosts returns, damaged encodings
// included (the host's own import always serializes a well-formed map). PluginHost has no option for extra
// imports, so this gives the host a createVm that adds one, then reloads every worker onto it.
import { LogLevel, Status } from "../host/abi.ts";
import { envoyImports, type VmHooks } from "../host/envoy-imports.ts";
import { higressImports } from "../host/higress-imports.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { WasmVm, type ImportBuilder } from "../host/vm.ts";

const enc = new TextEncoder();

/** Where the answer comes from: bytes to return, or a status to fail with. */
export type UpstreamHostsSource = () => Uint8Array | { status: number };

export function installRawUpstreamHosts(host: PluginHost, source: UpstreamHostsSource): void {
  const raw: ImportBuilder = (vm) => ({
    "env.proxy_get_upstream_hosts": (retPtr: number, retLen: number) => {
      const forced = vm.options.fault?.("proxy_get_upstream_hosts");
      if (forced !== undefined) return forced;
      const answer = source();
      if (!(answer instanceof Uint8Array)) return answer.status;
      try {
        return vm.memory.returnBytes(retPtr, retLen, answer) ? Status.Ok : Status.InternalFailure;
      } catch {
        return Status.InvalidMemoryAccess;
      }
    },
  });
  const o = host.options;
  const bytes = (v: string | Uint8Array | undefined) => (v === undefined ? new Uint8Array(0) : typeof v === "string" ? enc.encode(v) : v);
  host.createVm = (hooks: () => VmHooks) =>
    new WasmVm(
      host.module,
      {
        flavor: o.flavor,
        vmId: o.vmId ?? "endpoint_picker",
        rootId: host.rootId,
        pluginName: o.pluginName ?? host.rootId,
        vmConfig: bytes(o.vmConfig),
        pluginConfig: bytes(o.pluginConfig),
        process: host.process,
        clock: host.clock,
        clusters: host.clusters,
        log: (level, msg, vm) => host.log(level, msg, vm),
        logLevel: o.logLevel ?? LogLevel.Info,
        fault: o.fault,
      },
      // Later builders win: the raw answer replaces the Higress one.
      [(vm) => envoyImports(vm, hooks), higressImports, raw],
    );
  for (const w of host.workers) {
    if (!w.reload()) throw new Error("worker failed to restart with the raw upstream-hosts import");
  }
}
