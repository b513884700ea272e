// Properties (proxy_get_property / proxy_set_property): the stream's own, resolved as Envoy does
// (properties.ts), or, in a root context, the VM's custom ones.
import { resolveProperty } from "../properties.ts";
import { Status } from "../abi.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function propertyCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, stream, ret } = scope;

  const customProperties = new Map<string, Uint8Array>();

  return {
    "env.proxy_get_property": (pathPtr: number, pathLen: number, retPtr: number, retLen: number) => {
      const segments = mem().readString(pathPtr, pathLen).split("\0");
      const o = vm.options;
      const v = resolveProperty(
        segments,
        { pluginName: o.pluginName, rootId: o.rootId, vmId: o.vmId },
        stream(),
        o.clock.nowMs(),
        stream()?.properties ?? customProperties,
        vm.flavor,
      );
      return v === null ? Status.NotFound : ret(retPtr, retLen, v);
    },
    "env.proxy_set_property": (pathPtr: number, pathLen: number, valPtr: number, valLen: number) => {
      (stream()?.properties ?? customProperties).set(mem().readString(pathPtr, pathLen), mem().read(valPtr, valLen));
      return Status.Ok;
    },
  };
}
