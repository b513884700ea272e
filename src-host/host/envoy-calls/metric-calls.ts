// Metrics (proxy_define_metric, proxy_increment_metric, proxy_record_metric, proxy_get_metric) as envoy
// context.cc Context::defineMetric and friends answer them: ids are per VM and carry the metric type in their
// low two bits (cpp-host wasm.h kMetricTypeMask, kMetricIdIncrement; the first counter is 4, gauge 5,
// histogram 6); the stats they name are process-wide (shared-state.ts).
import { MetricType, Status } from "../abi.ts";
import type { Stat } from "../shared-state.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

const TYPE_MASK = 0x3;
const ID_INCREMENT = 0x4;

export function metricCalls(scope: ImportScope): HostFunctions {
  const { vm, mem } = scope;

  const proc = vm.options.process;
  const byId = new Map<number, Stat>();
  // wasm.h next_counter_metric_id_ = Counter, next_gauge_metric_id_ = Gauge, next_histogram_metric_id_ = Histogram.
  const lastId: number[] = [MetricType.Counter, MetricType.Gauge, MetricType.Histogram];

  // Context::incrementMetric and getMetric: a histogram (or type-3) id is BadArgument, an unknown counter or gauge
  // id NotFound; otherwise the stat.
  function counterOrGauge(id: number): Stat | number {
    const type = id & TYPE_MASK;
    if (type !== MetricType.Counter && type !== MetricType.Gauge) return Status.BadArgument;
    return byId.get(id) ?? Status.NotFound;
  }

  return {
    // Context::defineMetric: a type past Histogram is BadArgument; every define takes a fresh id, even for a
    // name already defined (the store hands back the same stat).
    "env.proxy_define_metric": (type: number, nPtr: number, nLen: number, retId: number) => {
      const name = mem().readString(nPtr, nLen);
      type >>>= 0;
      if (type > MetricType.Histogram) return Status.BadArgument;
      const id = (lastId[type] = (lastId[type] + ID_INCREMENT) >>> 0);
      byId.set(id, proc.stats.stat(type, name));
      mem().writeU32(retId, id);
      return Status.Ok;
    },
    // Context::incrementMetric: a counter takes only offset > 0 (else BadArgument), a gauge adds or subtracts.
    "env.proxy_increment_metric": (id: number, delta: bigint) => {
      const s = counterOrGauge(id >>> 0);
      if (typeof s === "number") return s;
      if (s.type === MetricType.Counter && delta <= 0n) return Status.BadArgument;
      proc.stats.add(s, delta);
      return Status.Ok;
    },
    // Context::recordMetric: NotFound for any id not defined.
    "env.proxy_record_metric": (id: number, value: bigint) => {
      const s = byId.get(id >>> 0);
      if (!s) return Status.NotFound;
      proc.stats.record(s, BigInt.asUintN(64, value));
      return Status.Ok;
    },
    // Context::getMetric: counters and gauges only.
    "env.proxy_get_metric": (id: number, retPtr: number) => {
      const s = counterOrGauge(id >>> 0);
      if (typeof s === "number") return s;
      mem().writeU64(retPtr, s.value);
      return Status.Ok;
    },
  };
}
