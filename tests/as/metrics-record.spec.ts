import {
  METRICS_RECORD_FIXED_BYTES,
  METRICS_RECORD_MAX_BYTES,
  METRICS_RECORD_VERSION,
  MetricsRecordHeader,
  decodeMetricsRecord,
  encodeMetricsRecord,
  lastRecordHeader,
  metricsRecordSize,
} from "../../assembly/endpoints/metrics-record";
import { EndpointMetrics, Engine } from "../../assembly/endpoints/endpoint-metrics";
import { ADAPTER_CAPACITY } from "../../assembly/endpoints/adapter-set";
import { hashNameString } from "../../assembly/endpoints/name-hash";
import { PrometheusParser } from "../../assembly/endpoints/prometheus";

const parser = new PrometheusParser();

const buf = new Uint8Array(METRICS_RECORD_MAX_BYTES + 16);

function full(): EndpointMetrics {
  const m = new EndpointMetrics();
  m.waiting = 3;
  m.hasWaiting = true;
  m.running = 12;
  m.hasRunning = true;
  m.kvUsage = 0.4375;
  m.hasKv = true;
  m.loraMax = 4;
  m.hasLora = true;
  m.runningAdapters.add(hashNameString("sql-lora"));
  m.runningAdapters.add(hashNameString("chat-lora"));
  m.waitingAdapters.add(hashNameString("tool-lora"));
  m.residentAdapters.add(hashNameString("old-lora"));
  m.servedModel = hashNameString("meta-llama/Llama-3.1-8B-Instruct");
  m.numGpuBlocks = 27910;
  m.blockSize = 16;
  m.hasCacheConfig = true;
  m.cacheEngines = 2;
  m.engine = Engine.Vllm;
  m.targetValue = -2.5;
  m.hasTarget = true;
  m.prefixQueries = 9.5e9;
  m.prefixHits = 7.25e9;
  m.hasPrefixCounters = true;
  return m;
}

function sameAdapters(a: EndpointMetrics, b: EndpointMetrics): bool {
  if (a.runningAdapters.count != b.runningAdapters.count || a.waitingAdapters.count != b.waitingAdapters.count) {
    return false;
  }
  for (let i = 0; i < a.runningAdapters.count; i++) if (a.runningAdapters.hashes[i] != b.runningAdapters.hashes[i]) return false;
  for (let i = 0; i < a.waitingAdapters.count; i++) if (a.waitingAdapters.hashes[i] != b.waitingAdapters.hashes[i]) return false;
  if (a.residentAdapters.count != b.residentAdapters.count) return false;
  for (let i = 0; i < a.residentAdapters.count; i++) if (a.residentAdapters.hashes[i] != b.residentAdapters.hashes[i]) return false;
  return true;
}

function expectSame(a: EndpointMetrics, b: EndpointMetrics): void {
  expect<f64>(b.waiting).toBe(a.waiting);
  expect<bool>(b.hasWaiting).toBe(a.hasWaiting);
  expect<f64>(b.running).toBe(a.running);
  expect<bool>(b.hasRunning).toBe(a.hasRunning);
  expect<f64>(b.kvUsage).toBe(a.kvUsage);
  expect<bool>(b.hasKv).toBe(a.hasKv);
  expect<i32>(b.loraMax).toBe(a.loraMax);
  expect<bool>(b.hasLora).toBe(a.hasLora);
  expect<bool>(sameAdapters(a, b)).toBe(true);
  expect<u64>(b.servedModel).toBe(a.servedModel);
  expect<i64>(b.numGpuBlocks).toBe(a.numGpuBlocks);
  expect<i32>(b.blockSize).toBe(a.blockSize);
  expect<bool>(b.hasCacheConfig).toBe(a.hasCacheConfig);
  expect<i32>(b.cacheEngines).toBe(a.hasCacheConfig ? max(a.cacheEngines, 1) : 0);
  expect<i32>(b.engine).toBe(a.engine);
  expect<f64>(b.targetValue).toBe(a.targetValue);
  expect<bool>(b.hasTarget).toBe(a.hasTarget);
  expect<f64>(b.prefixQueries).toBe(a.prefixQueries);
  expect<f64>(b.prefixHits).toBe(a.prefixHits);
  expect<bool>(b.hasPrefixCounters).toBe(a.hasPrefixCounters);
}

function encode(m: EndpointMetrics, healthy: bool, updatedMs: f64): i32 {
  return encodeMetricsRecord(m, healthy, updatedMs, buf.dataStart, buf.length);
}

function decode(len: i32, m: EndpointMetrics, header: MetricsRecordHeader): bool {
  return decodeMetricsRecord(buf.dataStart, <usize>len, m, header);
}

describe("metrics record round trip", () => {
  it("carries every field, the health flag and the update time", () => {
    const m = full();
    const n = encode(m, true, 1747326460123.5);
    expect<i32>(n).toBe(METRICS_RECORD_FIXED_BYTES + 8 * 4);
    expect<i32>(n).toBe(metricsRecordSize(m));
    const out = new EndpointMetrics();
    const header = new MetricsRecordHeader();
    expect<bool>(decode(n, out, header)).toBe(true);
    expectSame(m, out);
    expect<bool>(header.healthy).toBe(true);
    expect<f64>(header.updatedMs).toBe(1747326460123.5);
    expect<i32>(out.isAdapterLoaded(hashNameString("chat-lora"))).toBe(2);
    expect<i32>(out.isAdapterLoaded(hashNameString("tool-lora"))).toBe(1);
    expect<i32>(out.isAdapterLoaded(hashNameString("old-lora"))).toBe(3);
  });

  it("round-trips empty metrics and unhealthy endpoints, overwriting the destination", () => {
    const empty = new EndpointMetrics();
    const n = encode(empty, false, 0);
    expect<i32>(n).toBe(METRICS_RECORD_FIXED_BYTES);
    const out = full();
    expect<bool>(decodeMetricsRecord(buf.dataStart, <usize>n, out)).toBe(true);
    expectSame(empty, out);
    expect<bool>(lastRecordHeader.healthy).toBe(false);
    expect<f64>(lastRecordHeader.updatedMs).toBe(0);
  });

  it("round-trips full adapter sets", () => {
    const m = new EndpointMetrics();
    for (let i = 0; i < ADAPTER_CAPACITY; i++) {
      m.runningAdapters.add(hashNameString("r" + i.toString()));
      m.waitingAdapters.add(hashNameString("w" + i.toString()));
      m.residentAdapters.add(hashNameString("o" + i.toString()));
    }
    m.hasLora = true;
    m.loraMax = 64;
    const n = encode(m, true, 5);
    expect<i32>(n).toBe(METRICS_RECORD_MAX_BYTES);
    const out = new EndpointMetrics();
    expect<bool>(decode(n, out, new MetricsRecordHeader())).toBe(true);
    expectSame(m, out);
  });

  it("round-trips what the Prometheus parser reads from random pages", () => {
    let state: u32 = 4242;
    const target = String.UTF8.encode("q");
    for (let round = 0; round < 200; round++) {
      let text = "";
      const lines = <i32>(round % 9);
      for (let l = 0; l < lines; l++) {
        state = state * 1664525 + 1013904223;
        const v = (<f64>(state >> 8) / 16777216.0) * 50;
        const kind = (state >> 3) % 8;
        if (kind == 0) text += "vllm:num_requests_waiting " + v.toString() + "\n";
        else if (kind == 1) text += "vllm:num_requests_running " + v.toString() + "\n";
        else if (kind == 2) text += "vllm:kv_cache_usage_perc " + (v / 50).toString() + "\n";
        else if (kind == 3) text += 'vllm:lora_requests_info{max_lora="3",running_lora_adapters="a' + (state % 7).toString() + ',b",waiting_lora_adapters="c"} ' + v.toString() + "\n";
        else if (kind == 4) text += 'vllm:cache_config_info{block_size="16",num_gpu_blocks="' + (1 + (state % 9999)).toString() + '"} 1\n';
        else if (kind == 6) text += "vllm:prefix_cache_queries_total " + (v * 1000).toString() + "\n";
        else if (kind == 7) text += "vllm:prefix_cache_hits_total " + (v * 300).toString() + "\n";
        else text += "q " + (v - 25).toString() + "\n";
      }
      const page = String.UTF8.encode(text);
      const m = new EndpointMetrics();
      parser.parseWithTarget(changetype<usize>(page), <usize>page.byteLength, false, m, 100, changetype<usize>(target), 1);
      const stamp = <f64>round * 1000.25;
      const n = encode(m, round % 2 == 0, stamp);
      expect<i32>(n).toBe(metricsRecordSize(m));
      const out = new EndpointMetrics();
      const header = new MetricsRecordHeader();
      expect<bool>(decode(n, out, header)).toBe(true);
      expectSame(m, out);
      expect<bool>(header.healthy).toBe(round % 2 == 0);
      expect<f64>(header.updatedMs).toBe(stamp);
    }
  });
});

describe("metrics record encoding limits", () => {
  it("needs room for the whole record", () => {
    const m = full();
    const size = metricsRecordSize(m);
    expect<i32>(encodeMetricsRecord(m, true, 1, buf.dataStart, size - 1)).toBe(-1);
    expect<i32>(encodeMetricsRecord(m, true, 1, buf.dataStart, size)).toBe(size);
    expect<i32>(encodeMetricsRecord(m, true, 1, 0, size)).toBe(-1);
  });

  it("refuses values a record cannot carry", () => {
    const bad = new Array<EndpointMetrics>();
    let m = full(); m.waiting = NaN; bad.push(m);
    m = full(); m.running = -1; bad.push(m);
    m = full(); m.running = Infinity; bad.push(m);
    m = full(); m.kvUsage = 1.5; bad.push(m);
    m = full(); m.targetValue = NaN; bad.push(m);
    m = full(); m.loraMax = -1; bad.push(m);
    m = full(); m.blockSize = 0; bad.push(m);
    m = full(); m.engine = 7; bad.push(m);
    for (let i = 0; i < bad.length; i++) expect<i32>(encode(bad[i], true, 1)).toBe(-1);
    expect<i32>(encode(full(), true, NaN)).toBe(-1);
    expect<i32>(encode(full(), true, -1)).toBe(-1);
    // The same values are fine when their has-flag is clear, and decode as 0.
    m = full();
    m.hasWaiting = false;
    m.waiting = NaN;
    const n = encode(m, true, 1);
    expect<bool>(n > 0).toBe(true);
    const out = new EndpointMetrics();
    expect<bool>(decode(n, out, new MetricsRecordHeader())).toBe(true);
    expect<bool>(out.hasWaiting).toBe(false);
    expect<f64>(out.waiting).toBe(0);
  });
});

function expectRejected(len: i32): void {
  const out = full();
  out.waiting = 77;
  const header = new MetricsRecordHeader();
  header.updatedMs = 123;
  expect<bool>(decode(len, out, header)).toBe(false);
  // Nothing was written.
  expect<f64>(out.waiting).toBe(77);
  expect<bool>(out.hasTarget).toBe(true);
  expect<f64>(header.updatedMs).toBe(123);
}

describe("metrics record decoding rejects", () => {
  it("short, long and empty input", () => {
    const n = encode(full(), true, 1);
    for (let len = 0; len < n; len++) expectRejected(len);
    expectRejected(n + 1);
    expect<bool>(decodeMetricsRecord(0, 64, new EndpointMetrics())).toBe(false);
  });

  it("another magic or version", () => {
    const n = encode(full(), true, 1);
    buf[1] = METRICS_RECORD_VERSION + 1;
    expectRejected(n);
    encode(full(), true, 1);
    buf[0] = buf[0] ^ 0xff;
    expectRejected(n);
  });

  it("unknown flags, engines, reserved bytes and adapter counts", () => {
    const n = encode(full(), true, 1);
    const pristine = buf.slice(0);
    const offsets = [2, 3, 4, 5, 6, 7];
    const values: u8[] = [0x80, 9, 33, 33, 2, 0]; // byte 7: no engine, yet a cache size
    for (let i = 0; i < offsets.length; i++) {
      buf.set(pristine);
      buf[offsets[i]] = values[i];
      expectRejected(n);
    }
    // A resident count past the capacity, or a reserved byte after it set.
    for (let offset = 80; offset < 88; offset++) {
      buf.set(pristine);
      buf[offset] = offset == 80 ? <u8>(ADAPTER_CAPACITY + 1) : 1;
      expectRejected(n);
    }
    const empty = encode(new EndpointMetrics(), true, 1);
    buf[7] = 1; // an engine count without a cache size
    expectRejected(empty);
  });

  it("NaN and out-of-range values where a field is present", () => {
    const n = encode(full(), true, 1);
    const pristine = buf.slice(0);
    const view = new DataView(buf.buffer);
    const f64Offsets = [8, 16, 24, 32, 40, 64, 72];
    for (let i = 0; i < f64Offsets.length; i++) {
      buf.set(pristine);
      view.setFloat64(f64Offsets[i], NaN, true);
      expectRejected(n);
    }
    buf.set(pristine);
    view.setFloat64(32, 2, true); // kv usage above 1
    expectRejected(n);
    buf.set(pristine);
    view.setFloat64(16, -1, true); // negative queue
    expectRejected(n);
    buf.set(pristine);
    view.setInt32(60, 0, true); // cache config without a block size
    expectRejected(n);
    buf.set(pristine);
    view.setInt64(48, -5, true);
    expectRejected(n);
    buf.set(pristine);
    view.setFloat64(72, -1, true); // negative prefix-cache hits
    expectRejected(n);
  });

  it("survives random bytes", () => {
    let state: u32 = 7;
    const out = new EndpointMetrics();
    const header = new MetricsRecordHeader();
    let accepted = 0;
    for (let round = 0; round < 500; round++) {
      const len = <i32>(round % (METRICS_RECORD_MAX_BYTES + 8));
      for (let i = 0; i < len; i++) {
        state = state * 1664525 + 1013904223;
        buf[i] = <u8>(state >> 24);
      }
      // Give most rounds a valid magic and version so the later checks run.
      if (len > 2 && round % 4 != 0) {
        buf[0] = 0xeb;
        buf[1] = METRICS_RECORD_VERSION;
      }
      if (decode(len, out, header)) {
        accepted++;
        expect<bool>(out.runningAdapters.count <= ADAPTER_CAPACITY).toBe(true);
        expect<bool>(!out.hasKv || (out.kvUsage >= 0 && out.kvUsage <= 1)).toBe(true);
      }
    }
    // Random flags and engine bytes almost never form a valid record.
    expect<bool>(accepted < 50).toBe(true);
  });
});
