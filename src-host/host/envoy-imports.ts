// The host functions Envoy gives a proxy-wasm 0.2.1 module, with Envoy's semantics (status codes, map and
// buffer availability, shared data CAS, metrics), one group per file in envoy-calls/. Pointers are checked: a
// bad one is InvalidMemoryAccess.
import { Status } from "./abi.ts";
import { InvalidMemoryAccess } from "./guest-memory.ts";
import type { WasmVm } from "./vm.ts";
import { ImportScope, type Fn, type VmHooks } from "./envoy-calls/scope.ts";
import { logAndTimeCalls } from "./envoy-calls/log-time-calls.ts";
import { propertyCalls } from "./envoy-calls/property-calls.ts";
import { bufferCalls } from "./envoy-calls/buffer-calls.ts";
import { headerMapCalls } from "./envoy-calls/header-map-calls.ts";
import { sharedDataCalls } from "./envoy-calls/shared-data-calls.ts";
import { metricCalls } from "./envoy-calls/metric-calls.ts";
import { httpCalls } from "./envoy-calls/http-calls.ts";
import { streamControlCalls } from "./envoy-calls/stream-control-calls.ts";
import { wasiCalls } from "./envoy-calls/wasi-calls.ts";

export type { VmHooks } from "./envoy-calls/scope.ts";

/** Wraps a host call: fault injection first, then the call; a bad guest pointer becomes a status.
 *  Fixed arity (no rest parameters) keeps the wrapper off the allocation path; no call takes more than 10. */
export function guarded(vm: WasmVm, name: string, fn: Fn): Fn {
  const fault = vm.options.fault;
  if (fault) {
    return (a?: any, b?: any, c?: any, d?: any, e?: any, f?: any, g?: any, h?: any, i?: any, j?: any) => {
      const forced = fault(name);
      if (forced !== undefined) return forced;
      try {
        return fn(a, b, c, d, e, f, g, h, i, j);
      } catch (err) {
        if (err instanceof InvalidMemoryAccess) return Status.InvalidMemoryAccess;
        throw err;
      }
    };
  }
  return (a?: any, b?: any, c?: any, d?: any, e?: any, f?: any, g?: any, h?: any, i?: any, j?: any) => {
    try {
      return fn(a, b, c, d, e, f, g, h, i, j);
    } catch (err) {
      if (err instanceof InvalidMemoryAccess) return Status.InvalidMemoryAccess;
      throw err;
    }
  };
}

export function envoyImports(vm: WasmVm, hooks: () => VmHooks): Record<string, WebAssembly.ImportValue> {
  const scope = new ImportScope(vm, hooks);
  const fns = {
    ...logAndTimeCalls(scope),
    ...propertyCalls(scope),
    ...bufferCalls(scope),
    ...headerMapCalls(scope),
    ...sharedDataCalls(scope),
    ...metricCalls(scope),
    ...httpCalls(scope),
    ...streamControlCalls(scope),
    ...wasiCalls(scope),
  };
  const out: Record<string, WebAssembly.ImportValue> = {};
  for (const [name, fn] of Object.entries(fns)) out[name] = guarded(vm, name.split(".")[1], fn) as WebAssembly.ImportValue;
  return out;
}
