// Lets a test decide the exact bytes the Higress host call proxy_get_upstream_hosts returns, damaged encodings
// included (the host's own import always serializes a well-formed map): an import builder for
// PluginHostOptions.extraImports, which replaces the Higress one.
import { Status } from "../host/abi.ts";
import type { ImportBuilder } from "../host/vm.ts";

/** Where the answer comes from: bytes to return, or a status to fail with. */
export type UpstreamHostsSource = () => Uint8Array | { status: number };

export function rawUpstreamHosts(source: UpstreamHostsSource): ImportBuilder {
  return (vm) => ({
    "env.proxy_get_upstream_hosts": (retPtr: number, retLen: number) => {
      const forced = vm.options.fault?.("proxy_get_upstream_hosts");
      if (forced !== undefined) return forced;
      const answer = source();
      if (!(answer instanceof Uint8Array)) return answer.status;
      try {
        return vm.memory.returnBytes(retPtr, retLen, answer) ? Status.Ok : Status.InvalidMemoryAccess;
      } catch {
        return Status.InvalidMemoryAccess;
      }
    },
  });
}
