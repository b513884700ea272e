// The two host calls Higress adds. proxy_get_upstream_hosts answers with the hosts of the current route's
// cluster as a serialized header map of ["ip:port", {"health_status":..., "metrics":...}] pairs;
// proxy_set_upstream_override_host sends the current request to one of them.
import { Status } from "./abi.ts";
import { serializeHeaderMap } from "./header-map.ts";
import { guarded } from "./envoy-imports.ts";
import type { WasmVm } from "./vm.ts";

export function upstreamHostsPayload(hosts: Array<{ address: string; healthStatus: string; metrics: string }>): Uint8Array {
  return serializeHeaderMap(
    hosts.map((h) => [h.address, JSON.stringify({ health_status: h.healthStatus, metrics: h.metrics })]),
  );
}

export function higressImports(vm: WasmVm): Record<string, WebAssembly.ImportValue> {
  // higress-group/proxy-wasm-cpp-host src/wasm.cc WasmBase::registerCallbacks registers both for the 0.2.1 and 0.2.100
  // ABIs only: a 0.1.0 or 0.2.0 module importing them fails to load.
  if (vm.abiVersion !== "0.2.1" && vm.abiVersion !== "0.2.100") return {};
  return {
    "env.proxy_get_upstream_hosts": guarded(vm, "proxy_get_upstream_hosts", (retPtr: number, retLen: number) => {
      const stream = vm.streams.get(vm.effectiveContextId);
      const clusterName = stream?.info.clusterName;
      const cluster = clusterName ? vm.options.clusters.get(clusterName) : undefined;
      if (!cluster) return Status.NotFound;
      // higress-group/proxy-wasm-cpp-host exports.cc get_upstream_hosts: an empty list is Ok with a null
      // pointer and size 0 (copyToPointerSize("")), not an empty serialized map.
      const hosts = cluster.hosts();
      const payload = hosts.length === 0 ? new Uint8Array(0) : upstreamHostsPayload(hosts);
      // allocMemory refused => InvalidMemoryAccess, as every copy out in exports.cc.
      return vm.memory.returnBytes(retPtr, retLen, payload) ? Status.Ok : Status.InvalidMemoryAccess;
    }) as WebAssembly.ImportValue,
    // higress-group/proxy-wasm-cpp-host exports.cc set_upstream_override_host: the address must be in memory, then Ok
    // whatever Context::setUpstreamOverrideHost answers (a root context has no stream to override).
    "env.proxy_set_upstream_override_host": guarded(vm, "proxy_set_upstream_override_host", (ptr: number, len: number) => {
      const address = vm.memory.readString(ptr, len);
      const stream = vm.streams.get(vm.effectiveContextId);
      if (stream) stream.overrideHost = address;
      return Status.Ok;
    }) as WebAssembly.ImportValue,
  };
}
