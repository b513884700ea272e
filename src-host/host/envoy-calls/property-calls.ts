// Properties (proxy_get_property / proxy_set_property): the stream's own, resolved as Envoy does
// (properties.ts). A root context has no stream info (envoy context.cc Context::getRequestStreamInfo is
// null without filter callbacks): there only the plugin's own properties resolve (Context::findValue's
// plugin_name, plugin_root_id, plugin_vm_id), and Context::setProperty returns NotFound.
import { resolveProperty } from "../properties.ts";
import { Status } from "../abi.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

/** A root context's properties: never any (nothing can be set there). */
const NO_PROPERTIES: ReadonlyMap<string, Uint8Array> = new Map();

export function propertyCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, stream, ret } = scope;

  return {
    "env.proxy_get_property": (pathPtr: number, pathLen: number, retPtr: number, retLen: number) => {
      const segments = mem().readString(pathPtr, pathLen).split("\0");
      const o = vm.options;
      const s = stream();
      const v = resolveProperty(
        segments,
        { pluginName: o.pluginName, rootId: o.rootId, vmId: o.vmId },
        s,
        s?.properties ?? NO_PROPERTIES,
        vm.flavor,
      );
      return v === null ? Status.NotFound : ret(retPtr, retLen, v);
    },
    "env.proxy_set_property": (pathPtr: number, pathLen: number, valPtr: number, valLen: number) => {
      const s = stream();
      if (!s) return Status.NotFound;
      s.setProperty(mem().readString(pathPtr, pathLen), mem().read(valPtr, valLen));
      return Status.Ok;
    },
  };
}
