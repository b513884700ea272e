// Logging, the clock and the root context's timer (Envoy's proxy_log, proxy_get_log_level,
// proxy_get_current_time_nanoseconds, proxy_set_tick_period_milliseconds).
import { LogLevel, Status } from "../abi.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function logAndTimeCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, hooks, rootOf } = scope;

  return {
    "env.proxy_log": (level: number, ptr: number, len: number) => {
      if (level < LogLevel.Trace || level > LogLevel.Critical) return Status.BadArgument;
      const msg = mem().readString(ptr, len);
      if (level >= vm.options.logLevel) vm.options.log(level, msg, vm);
      return Status.Ok;
    },
    "env.proxy_get_log_level": (retPtr: number) => {
      mem().writeU32(retPtr, vm.options.logLevel);
      return Status.Ok;
    },
    "env.proxy_get_current_time_nanoseconds": (retPtr: number) => {
      mem().writeU64(retPtr, vm.options.clock.nowNs());
      return Status.Ok;
    },
    // cpp-host exports.cc set_tick_period_milliseconds → ContextBase::setTimerPeriod: the timer of root_context(), Ok
    // always. The VM context (0: the start function, before any root) is its own root (vm.ts vmContextTimer).
    "env.proxy_set_tick_period_milliseconds": (periodMs: number) => {
      const root = vm.effectiveContextId === 0 ? 0 : rootOf(vm.effectiveContextId);
      if (root !== null) vm.setTickPeriod(root, periodMs >>> 0, () => hooks().tick(root));
      return Status.Ok;
    },
  };
}
