// src-host/host/envoy-calls/metric-calls.ts against envoy context.cc Context::defineMetric, incrementMetric,
// recordMetric and getMetric (and cpp-host wasm.h's metric ids), called directly on a bare linear memory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MetricType, Status } from "../../src-host/host/abi.ts";
import { metricCalls } from "../../src-host/host/envoy-calls/metric-calls.ts";
import { ImportScope, type VmHooks } from "../../src-host/host/envoy-calls/scope.ts";
import { GuestMemory } from "../../src-host/host/guest-memory.ts";
import { ProxyProcess } from "../../src-host/host/shared-state.ts";
import type { WasmVm } from "../../src-host/host/vm.ts";

function bareVm(process = new ProxyProcess()) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const vm = { memory: new GuestMemory(memory, () => 0), options: { process } } as unknown as WasmVm;
  const calls = metricCalls(new ImportScope(vm, () => ({}) as VmHooks));
  const view = () => new DataView(memory.buffer);
  let at = 1000;
  const define = (type: number, name: string): number | { status: number } => {
    const bytes = new TextEncoder().encode(name);
    new Uint8Array(memory.buffer).set(bytes, at);
    const status = calls["env.proxy_define_metric"](type, at, bytes.length, 100) as number;
    at += bytes.length;
    return status === Status.Ok ? view().getUint32(100, true) : { status };
  };
  const get = (id: number): bigint | { status: number } => {
    const status = calls["env.proxy_get_metric"](id, 200) as number;
    return status === Status.Ok ? view().getBigUint64(200, true) : { status };
  };
  const inc = (id: number, d: bigint) => calls["env.proxy_increment_metric"](id, d);
  const rec = (id: number, v: bigint) => calls["env.proxy_record_metric"](id, v);
  return { define, get, inc, rec, process };
}

test("metric ids carry their type in the low two bits and every define takes a fresh one (cpp-host wasm.h nextCounterMetricId, envoy context.cc Context::defineMetric)", () => {
  const { define, get, inc } = bareVm();
  assert.equal(define(MetricType.Counter, "c"), 4);
  assert.equal(define(MetricType.Gauge, "g"), 5);
  assert.equal(define(MetricType.Histogram, "h"), 6);
  const again = define(MetricType.Counter, "c");
  assert.equal(again, 8, "the same name again is a new id");
  assert.equal(inc(4, 2n), Status.Ok);
  assert.equal(inc(8, 3n), Status.Ok);
  assert.equal(get(4), 5n, "both ids name the one stat");
  assert.deepEqual(define(3, "x"), { status: Status.BadArgument });
});

test("one name may be a counter and a gauge at once: Envoy's store keeps the types apart", () => {
  const { define, get, inc, process } = bareVm();
  const c = define(MetricType.Counter, "same") as number;
  const g = define(MetricType.Gauge, "same") as number;
  assert.equal(typeof g, "number", "defining the gauge is Ok");
  inc(c, 1n);
  inc(g, 7n);
  assert.equal(get(c), 1n);
  assert.equal(get(g), 7n);
  assert.deepEqual(process.stats.snapshot(), { same: 1, "same (gauge)": 7 });
});

test("statuses by id type: histogram and type-3 ids are BadArgument for increment and get, unknown ids NotFound (Context::incrementMetric, recordMetric, getMetric)", () => {
  const { define, get, inc, rec } = bareVm();
  const c = define(MetricType.Counter, "c") as number;
  const h = define(MetricType.Histogram, "h") as number;
  assert.equal(inc(c, 0n), Status.BadArgument);
  assert.equal(inc(c, -1n), Status.BadArgument);
  assert.equal(inc(h, 1n), Status.BadArgument);
  assert.deepEqual(get(h), { status: Status.BadArgument });
  assert.equal(rec(h, 9n), Status.Ok);
  assert.equal(inc(0xffffffff, 1n), Status.BadArgument, "type bits 3");
  assert.deepEqual(get(0xffffffff), { status: Status.BadArgument });
  assert.equal(inc(12, 1n), Status.NotFound, "a counter id never defined");
  assert.deepEqual(get(13), { status: Status.NotFound }, "a gauge id never defined");
  assert.equal(rec(14, 1n), Status.NotFound, "a histogram id never defined");
});

test("a gauge is a uint64: taken below zero it wraps (GaugeImpl::sub), and a record sets it", () => {
  const { define, get, inc, rec, process } = bareVm();
  const g = define(MetricType.Gauge, "g") as number;
  assert.equal(inc(g, -1n), Status.Ok);
  assert.equal(get(g), 2n ** 64n - 1n);
  assert.equal(process.stats.snapshot().g, 2 ** 64);
  assert.equal(rec(g, 3n), Status.Ok);
  assert.equal(inc(g, -1n), Status.Ok);
  assert.equal(get(g), 2n);
});
