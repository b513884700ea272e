// Metrics (proxy_define_metric, proxy_increment_metric, proxy_record_metric, proxy_get_metric): ids are
// per VM, the stats they name are process-wide (shared-state.ts).
import { Status } from "../abi.ts";
import type { Stat } from "../shared-state.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function metricCalls(scope: ImportScope): HostFunctions {
  const { vm, mem } = scope;

  const proc = vm.options.process;
  const metricNames = new Map<number, string>();
  const metricStats: Array<Stat | undefined> = [];
  let nextMetricId = 1;

  return {
    "env.proxy_define_metric": (type: number, nPtr: number, nLen: number, retId: number) => {
      const name = mem().readString(nPtr, nLen);
      if (!proc.stats.define(type, name)) return Status.BadArgument;
      let id = [...metricNames].find(([, n]) => n === name)?.[0];
      if (id === undefined) metricNames.set((id = nextMetricId++), name);
      metricStats[id] = proc.stats.stat(name);
      mem().writeU32(retId, id);
      return Status.Ok;
    },
    "env.proxy_increment_metric": (id: number, delta: bigint) => proc.stats.incrementStat(metricStats[id >>> 0], delta),
    "env.proxy_record_metric": (id: number, value: bigint) => {
      const name = metricNames.get(id >>> 0);
      return name === undefined ? Status.NotFound : proc.stats.record(name, BigInt.asUintN(64, value));
    },
    "env.proxy_get_metric": (id: number, retPtr: number) => {
      const name = metricNames.get(id >>> 0);
      if (name === undefined) return Status.NotFound;
      const r = proc.stats.get(name);
      if (r.status !== Status.Ok) return r.status;
      mem().writeU64(retPtr, r.value!);
      return Status.Ok;
    },
  };
}
