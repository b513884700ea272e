// One endpoint's state as a compact binary record for proxy-wasm shared data (stock-Envoy build: one worker polls
// every endpoint's /metrics and publishes a record per endpoint; every worker decodes them). Little-endian:
//
//   0  u8   magic 0xEB          1  u8  version (4)        2  u8  flags (FLAG_*)      3  u8  engine
//   4  u8   running adapters    5  u8  waiting adapters   6  u8  flags2 (FLAG2_*)    7  u8  cache engines
//   8  f64  updatedMs          16  f64 waiting           24  f64 running           32  f64 kvUsage
//  40  f64  targetValue        48  i64 numGpuBlocks      56  i32 loraMax           60  i32 blockSize
//  64  f64  prefixQueries      72  f64 prefixHits
//  80  u8   resident adapters  81  7 bytes reserved (0)
//  88  u64  servedModel (0: none)
//  96  u64  running adapter name hashes, then waiting, then resident ones
//
// Fields whose has-flag is clear are written as 0. Decoding checks everything before it writes anything. Version 2
// added the prefix-cache counters, version 3 the resident adapters, version 4 the served model; a reader rejects a record of another version
// (its endpoint then scores as unknown until the next poll publishes one it reads). Builds of different versions
// publish under different keys (polled-endpoint.ts pollKey), each polling for itself.
import { EndpointMetrics, Engine } from "./endpoint-metrics";
import { ADAPTER_CAPACITY, AdapterSet } from "./adapter-set";

export const METRICS_RECORD_MAGIC: u8 = 0xeb;
export const METRICS_RECORD_VERSION: u8 = 4;
export const METRICS_RECORD_FIXED_BYTES: i32 = 96;
/** Size of the largest record (the three adapter sets full). */
export const METRICS_RECORD_MAX_BYTES: i32 = METRICS_RECORD_FIXED_BYTES + 24 * ADAPTER_CAPACITY;

const FLAG_HEALTHY: u32 = 1;
const FLAG_WAITING: u32 = 2;
const FLAG_RUNNING: u32 = 4;
const FLAG_KV: u32 = 8;
const FLAG_LORA: u32 = 16;
const FLAG_CACHE_CONFIG: u32 = 32;
const FLAG_TARGET: u32 = 64;
const KNOWN_FLAGS: u32 = 127;
const FLAG2_PREFIX_COUNTERS: u32 = 1;
const KNOWN_FLAGS2: u32 = 1;

/** The parts of a record that are not EndpointMetrics fields. */
export class MetricsRecordHeader {
  healthy: bool = false;
  /** When the publisher read the metrics (its clock, ms). */
  updatedMs: f64 = 0;
}

/** Header of the last record decodeMetricsRecord accepted (when no header object was passed). */
export const lastRecordHeader: MetricsRecordHeader = new MetricsRecordHeader();

/** Bytes the record of m takes. */
export function metricsRecordSize(m: EndpointMetrics): i32 {
  return METRICS_RECORD_FIXED_BYTES + 8 * (m.runningAdapters.count + m.waitingAdapters.count + m.residentAdapters.count);
}

// @ts-ignore: decorator
@inline
function isCount(v: f64): bool {
  return v >= 0 && v < Infinity;
}

// @ts-ignore: decorator
@inline
function isFraction(v: f64): bool {
  return v >= 0 && v <= 1;
}

function isEngine(e: i32): bool {
  return e == Engine.Unknown || e == Engine.Vllm || e == Engine.Sglang;
}

/**
 * Writes the record of (m, healthy, updatedMs) at out. Returns the bytes written, or -1 when it does not fit in
 * cap or a present field holds a value a record cannot carry (NaN, a negative count, usage outside 0..1, ...).
 */
export function encodeMetricsRecord(m: EndpointMetrics, healthy: bool, updatedMs: f64, out: usize, cap: i32): i32 {
  const size = metricsRecordSize(m);
  if (out == 0 || cap < size) return -1;
  if (!(updatedMs >= 0 && updatedMs < Infinity) || !isEngine(m.engine)) return -1;
  if (m.hasWaiting && !isCount(m.waiting)) return -1;
  if (m.hasRunning && !isCount(m.running)) return -1;
  if (m.hasKv && !isFraction(m.kvUsage)) return -1;
  if (m.hasTarget && !isFinite(m.targetValue)) return -1;
  if (m.hasLora && m.loraMax < 0) return -1;
  if (m.hasCacheConfig && (m.numGpuBlocks <= 0 || m.blockSize <= 0)) return -1;
  if (m.hasPrefixCounters && !(isCount(m.prefixQueries) && isCount(m.prefixHits))) return -1;
  const running = m.runningAdapters.count;
  const waiting = m.waitingAdapters.count;
  const resident = m.residentAdapters.count;
  if (<u32>running > <u32>ADAPTER_CAPACITY || <u32>waiting > <u32>ADAPTER_CAPACITY) return -1;
  if (<u32>resident > <u32>ADAPTER_CAPACITY) return -1;

  let flags: u32 = 0;
  if (healthy) flags |= FLAG_HEALTHY;
  if (m.hasWaiting) flags |= FLAG_WAITING;
  if (m.hasRunning) flags |= FLAG_RUNNING;
  if (m.hasKv) flags |= FLAG_KV;
  if (m.hasLora) flags |= FLAG_LORA;
  if (m.hasCacheConfig) flags |= FLAG_CACHE_CONFIG;
  if (m.hasTarget) flags |= FLAG_TARGET;
  const flags2: u32 = m.hasPrefixCounters ? FLAG2_PREFIX_COUNTERS : 0;

  store<u8>(out, METRICS_RECORD_MAGIC);
  store<u8>(out, METRICS_RECORD_VERSION, 1);
  store<u8>(out, <u8>flags, 2);
  store<u8>(out, <u8>m.engine, 3);
  store<u8>(out, <u8>running, 4);
  store<u8>(out, <u8>waiting, 5);
  store<u8>(out, <u8>flags2, 6);
  // A cache size comes from at least one engine.
  store<u8>(out, m.hasCacheConfig ? <u8>min(max(m.cacheEngines, 1), 255) : 0, 7);
  store<f64>(out, updatedMs, 8);
  store<f64>(out, m.hasWaiting ? m.waiting : 0, 16);
  store<f64>(out, m.hasRunning ? m.running : 0, 24);
  store<f64>(out, m.hasKv ? m.kvUsage : 0, 32);
  store<f64>(out, m.hasTarget ? m.targetValue : 0, 40);
  store<i64>(out, m.hasCacheConfig ? m.numGpuBlocks : 0, 48);
  store<i32>(out, m.hasLora ? m.loraMax : 0, 56);
  store<i32>(out, m.hasCacheConfig ? m.blockSize : 0, 60);
  store<f64>(out, m.hasPrefixCounters ? m.prefixQueries : 0, 64);
  store<f64>(out, m.hasPrefixCounters ? m.prefixHits : 0, 72);
  store<u64>(out, <u64>resident, 80);
  store<u64>(out, m.servedModel, 88);
  let p = out + <usize>METRICS_RECORD_FIXED_BYTES;
  p = storeHashes(p, m.runningAdapters);
  p = storeHashes(p, m.waitingAdapters);
  storeHashes(p, m.residentAdapters);
  return size;
}

function storeHashes(p: usize, set: AdapterSet): usize {
  const n = set.count;
  for (let i = 0; i < n; i++) {
    store<u64>(p, unchecked(set.hashes[i]));
    p += 8;
  }
  return p;
}

/**
 * Reads a record into m and header. Returns false, leaving both untouched, for short or oversized input, another
 * magic or version, unknown flags, a non-zero reserved field, or a value a valid record cannot hold.
 */
export function decodeMetricsRecord(
  ptr: usize,
  len: usize,
  m: EndpointMetrics,
  header: MetricsRecordHeader = lastRecordHeader,
): bool {
  if (ptr == 0 || len < <usize>METRICS_RECORD_FIXED_BYTES) return false;
  if (load<u8>(ptr) != METRICS_RECORD_MAGIC || load<u8>(ptr, 1) != METRICS_RECORD_VERSION) return false;
  const flags = <u32>load<u8>(ptr, 2);
  const engine = <i32>load<u8>(ptr, 3);
  const running = <i32>load<u8>(ptr, 4);
  const waiting = <i32>load<u8>(ptr, 5);
  const flags2 = <u32>load<u8>(ptr, 6);
  const cacheEngines = <i32>load<u8>(ptr, 7);
  if ((flags & ~KNOWN_FLAGS) != 0 || (flags2 & ~KNOWN_FLAGS2) != 0 || !isEngine(engine)) return false;
  // Engines with a cache size: at least one when there is a cache size, none otherwise.
  if (((flags & FLAG_CACHE_CONFIG) != 0) != (cacheEngines != 0)) return false;
  // Byte 80 holds the resident count, the seven after it are reserved.
  const residentField = load<u64>(ptr, 80);
  if (residentField > <u64>ADAPTER_CAPACITY) return false;
  const resident = <i32>residentField;
  if (running > ADAPTER_CAPACITY || waiting > ADAPTER_CAPACITY) return false;
  if (len != <usize>(METRICS_RECORD_FIXED_BYTES + 8 * (running + waiting + resident))) return false;

  const updatedMs = load<f64>(ptr, 8);
  const waitingValue = load<f64>(ptr, 16);
  const runningValue = load<f64>(ptr, 24);
  const kvUsage = load<f64>(ptr, 32);
  const targetValue = load<f64>(ptr, 40);
  const numGpuBlocks = load<i64>(ptr, 48);
  const loraMax = load<i32>(ptr, 56);
  const blockSize = load<i32>(ptr, 60);
  const prefixQueries = load<f64>(ptr, 64);
  const prefixHits = load<f64>(ptr, 72);
  const servedModel = load<u64>(ptr, 88);
  if (!(updatedMs >= 0 && updatedMs < Infinity)) return false;
  if (!isCount(waitingValue) || !isCount(runningValue) || !isFraction(kvUsage) || !isFinite(targetValue) ||
      !isCount(prefixQueries) || !isCount(prefixHits)) {
    return false;
  }
  if (loraMax < 0 || numGpuBlocks < 0 || blockSize < 0) return false;
  if ((flags & FLAG_CACHE_CONFIG) != 0 && (numGpuBlocks == 0 || blockSize == 0)) return false;

  // reset() zeroes what the flags say is absent, whatever the record holds there.
  m.reset();
  m.engine = engine;
  m.servedModel = servedModel;
  if ((flags & FLAG_WAITING) != 0) {
    m.hasWaiting = true;
    m.waiting = waitingValue;
  }
  if ((flags & FLAG_RUNNING) != 0) {
    m.hasRunning = true;
    m.running = runningValue;
  }
  if ((flags & FLAG_KV) != 0) {
    m.hasKv = true;
    m.kvUsage = kvUsage;
  }
  if ((flags & FLAG_TARGET) != 0) {
    m.hasTarget = true;
    m.targetValue = targetValue;
  }
  if ((flags & FLAG_LORA) != 0) {
    m.hasLora = true;
    m.loraMax = loraMax;
  }
  if ((flags & FLAG_CACHE_CONFIG) != 0) {
    m.hasCacheConfig = true;
    m.numGpuBlocks = numGpuBlocks;
    m.blockSize = blockSize;
    m.cacheEngines = cacheEngines;
  }
  if ((flags2 & FLAG2_PREFIX_COUNTERS) != 0) {
    m.hasPrefixCounters = true;
    m.prefixQueries = prefixQueries;
    m.prefixHits = prefixHits;
  }
  let p = ptr + <usize>METRICS_RECORD_FIXED_BYTES;
  for (let i = 0; i < running; i++, p += 8) m.runningAdapters.add(load<u64>(p));
  for (let i = 0; i < waiting; i++, p += 8) m.waitingAdapters.add(load<u64>(p));
  for (let i = 0; i < resident; i++, p += 8) m.residentAdapters.add(load<u64>(p));
  header.healthy = (flags & FLAG_HEALTHY) != 0;
  header.updatedMs = updatedMs;
  return true;
}
