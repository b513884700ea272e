// Reads the load signals of a vLLM or SGLang server from its /metrics page (Prometheus text format 0.0.4).
// One pass, no allocation, every loop bounded by the body end; malformed lines are skipped, never trusted.
import { EndpointMetrics, Engine } from "./endpoint-metrics";
import { AdapterSet } from "./adapter-set";
import { NAME_HASH_SEED, nameHashStep } from "./name-hash";
import { DecimalSyntax, parseDecimal } from "../json/number";
import { equalsIgnoreCase } from "../text/ascii";

const LF: u32 = 0x0a;
const CR: u32 = 0x0d;
const SPACE: u32 = 0x20;
const TAB: u32 = 0x09;
const QUOTE: u32 = 0x22;
const BACKSLASH: u32 = 0x5c;
const COMMA: u32 = 0x2c;

enum Family {
  None = 0,
  Waiting = 1,
  Running = 2,
  KvUsage = 3,
  KvUsageLegacy = 4,
  LoraInfo = 5,
  CacheConfig = 6,
  PrefixQueries = 7,
  PrefixHits = 8,
}

enum Label {
  Other = 0,
  MaxLora = 1,
  RunningAdapters = 2,
  WaitingAdapters = 3,
  NumGpuBlocks = 4,
  BlockSize = 5,
}

// Per-parse accumulators; module state keeps the parse allocation-free (Wasm runs one call at a time).
let waitingSum: f64 = 0;
let prefixQueriesSum: f64 = 0;
let prefixHitsSum: f64 = 0;
let hasPrefixQueries = false;
let hasPrefixHits = false;
let runningSum: f64 = 0;
let kvMax: f64 = 0;
let kvLegacyMax: f64 = 0;
let hasWaiting = false;
let hasRunning = false;
let hasKv = false;
let hasKvLegacy = false;
let loraBestStamp: f64 = 0;
let hasLora = false;
let engine: i32 = Engine.Unknown;
let recognized = false;

// Raw (still escaped) label value spans of the current line; start == end when absent or empty.
let maxLoraStart: usize = 0;
let maxLoraEnd: usize = 0;
let runningStart: usize = 0;
let runningEnd: usize = 0;
let waitingStart: usize = 0;
let waitingEnd: usize = 0;
let blocksStart: usize = 0;
let blocksEnd: usize = 0;
let blockSizeStart: usize = 0;
let blockSizeEnd: usize = 0;

// Result of parseSampleValue.
let sampleValue: f64 = 0;

// The caller's target metric name (Higress `target_metric`); targetLen == 0 when none.
let targetPtr: usize = 0;
let targetLen: usize = 0;
let targetSum: f64 = 0;
let hasTargetSample = false;

// Returns true if at least one recognized signal was read into `out` (which is reset first).
// [ptr, ptr + len) must be readable memory (the body buffer).
// `truncated`: the body was cut by the caller, so a last line without its newline is dropped (a cut "12" reads "1").
// `maxLines`: at most this many lines (comments included) are examined; <= 0 examines none.
export function parsePrometheus(ptr: usize, len: usize, truncated: bool, out: EndpointMetrics, maxLines: i32): bool {
  return parsePrometheusWithTarget(ptr, len, truncated, out, maxLines, 0, 0);
}

// parsePrometheus that also sums the finite samples of every series of the metric named by the bytes
// [targetPtr, targetPtr + targetLen) into out.targetValue (out.hasTarget when there was one). The name may be any
// metric, with or without an engine prefix; it is matched whole. A target sample counts as a recognized signal.
// targetLen == 0 is exactly parsePrometheus.
export function parsePrometheusWithTarget(
  ptr: usize,
  len: usize,
  truncated: bool,
  out: EndpointMetrics,
  maxLines: i32,
  targetNamePtr: usize,
  targetNameLen: usize,
): bool {
  out.reset();
  targetPtr = targetNamePtr;
  targetLen = targetNamePtr == 0 ? 0 : targetNameLen;
  let end = ptr + len;
  if (ptr == 0 || len == 0 || end < ptr || maxLines <= 0) return false;
  if (truncated && <u32>load<u8>(end - 1) != LF) end = afterLastNewline(ptr, end);
  resetAccumulators();

  let p = ptr;
  let lines = 0;
  while (p < end && lines < maxLines) {
    lines++;
    const lineEnd = findNewline(p, end);
    parseLine(p, lineEnd, out);
    p = lineEnd + 1;
  }

  if (hasWaiting) {
    out.waiting = waitingSum;
    out.hasWaiting = true;
  }
  if (hasRunning) {
    out.running = runningSum;
    out.hasRunning = true;
  }
  if (hasKv) {
    out.kvUsage = kvMax;
    out.hasKv = true;
  } else if (hasKvLegacy) {
    out.kvUsage = kvLegacyMax;
    out.hasKv = true;
  }
  if (hasPrefixQueries && hasPrefixHits) {
    out.prefixQueries = prefixQueriesSum;
    out.prefixHits = prefixHitsSum;
    out.hasPrefixCounters = true;
  }
  out.hasLora = hasLora;
  out.engine = engine;
  if (hasTargetSample) {
    out.targetValue = targetSum;
    out.hasTarget = true;
  }
  return recognized;
}

function resetAccumulators(): void {
  waitingSum = 0;
  prefixQueriesSum = 0;
  prefixHitsSum = 0;
  hasPrefixQueries = false;
  hasPrefixHits = false;
  runningSum = 0;
  kvMax = 0;
  kvLegacyMax = 0;
  hasWaiting = false;
  hasRunning = false;
  hasKv = false;
  hasKvLegacy = false;
  loraBestStamp = 0;
  hasLora = false;
  engine = Engine.Unknown;
  recognized = false;
  targetSum = 0;
  hasTargetSample = false;
}

function clearLabelSpans(): void {
  maxLoraStart = maxLoraEnd = 0;
  runningStart = runningEnd = 0;
  waitingStart = waitingEnd = 0;
  blocksStart = blocksEnd = 0;
  blockSizeStart = blockSizeEnd = 0;
}

// Index of the first '\n' in [p, end), or end. Eight bytes at a time: most of a /metrics page is skipped here.
function findNewline(p: usize, end: usize): usize {
  while (p + 8 <= end) {
    const w = load<u64>(p) ^ 0x0a0a0a0a0a0a0a0a;
    const zeroBytes = (w - 0x0101010101010101) & ~w & 0x8080808080808080;
    if (zeroBytes != 0) return p + usize(ctz(zeroBytes) >> 3);
    p += 8;
  }
  while (p < end && <u32>load<u8>(p) != LF) p++;
  return p;
}

function afterLastNewline(start: usize, end: usize): usize {
  let p = end;
  while (p > start) {
    if (<u32>load<u8>(p - 1) == LF) return p;
    p--;
  }
  return start;
}

// @ts-ignore: decorator
@inline
function isBlank(c: u32): bool {
  return c == SPACE || c == TAB;
}

function skipBlanks(p: usize, end: usize): usize {
  while (p < end && isBlank(<u32>load<u8>(p))) p++;
  return p;
}

// @ts-ignore: decorator
@inline
function isNameChar(c: u32): bool {
  return (c - 0x61 < 26) || (c - 0x41 < 26) || (c - 0x30 < 10) || c == 0x5f || c == 0x3a;
}

// Bytes at p equal the ASCII string lit (the caller guarantees lit.length bytes are readable).
function bytesEqual(p: usize, lit: string): bool {
  const n = lit.length;
  const s = changetype<usize>(lit);
  for (let i = 0; i < n; i++) {
    if (<u32>load<u8>(p + i) != <u32>load<u16>(s + (i << 1))) return false;
  }
  return true;
}

function parseLine(p: usize, end: usize, out: EndpointMetrics): void {
  p = skipBlanks(p, end);
  if (p >= end) return;
  const first = <u32>load<u8>(p);
  if (targetLen != 0 && first == <u32>load<u8>(targetPtr)) readTargetSample(p, end);
  let lineEngine: i32;
  let nameStart: usize;
  if (first == 0x76 /* v */ && end - p >= 5 && bytesEqual(p, "vllm:")) {
    lineEngine = Engine.Vllm;
    nameStart = p + 5;
  } else if (first == 0x73 /* s */ && end - p >= 7 && bytesEqual(p, "sglang:")) {
    lineEngine = Engine.Sglang;
    nameStart = p + 7;
  } else {
    return; // comments, blank lines and every other metric
  }
  const family = matchFamily(lineEngine, nameStart, end);
  if (family == Family.None) return;
  let q = nameStart + <usize>familyNameLength;

  clearLabelSpans();
  if (q < end && <u32>load<u8>(q) == 0x7b /* { */) {
    q = scanLabels(q + 1, end);
    if (q == 0) return;
  }
  if (q >= end || !isBlank(<u32>load<u8>(q))) return;
  q = skipBlanks(q, end);
  q = parseSampleValue(q, end);
  if (q == 0) return;
  // An optional timestamp may follow; it is not used.
  if (applySample(family, sampleValue, out) && engine == Engine.Unknown) engine = lineEngine;
}

// Adds the line's sample to the target sum when the line's metric name is the target name.
function readTargetSample(p: usize, end: usize): void {
  if (end - p < targetLen || memory.compare(p, targetPtr, targetLen) != 0) return;
  let q = p + targetLen;
  if (q < end && isNameChar(<u32>load<u8>(q))) return;
  clearLabelSpans();
  if (q < end && <u32>load<u8>(q) == 0x7b /* { */) {
    q = scanLabels(q + 1, end);
    if (q == 0) return;
  }
  if (q >= end || !isBlank(<u32>load<u8>(q))) return;
  q = parseSampleValue(skipBlanks(q, end), end);
  if (q == 0 || !isFinite(sampleValue)) return;
  targetSum += sampleValue;
  hasTargetSample = true;
  recognized = true;
}

// Length of the name matched by the last matchFamily.
let familyNameLength: i32 = 0;

// Whole-name match of the literal at s (the rest of the name after the engine prefix): the next byte must end the
// name. Sets familyNameLength.
function nameIs(s: usize, end: usize, lit: string): bool {
  const n = lit.length;
  if (end - s < <usize>n || !bytesEqual(s, lit)) return false;
  if (s + <usize>n < end && isNameChar(<u32>load<u8>(s + <usize>n))) return false;
  familyNameLength = n;
  return true;
}

// Dispatches on the first byte after the engine prefix, so most vllm: lines (histogram series) cost one compare.
function matchFamily(lineEngine: i32, s: usize, end: usize): Family {
  if (s >= end) return Family.None;
  const first = <u32>load<u8>(s);
  if (lineEngine == Engine.Vllm) {
    if (first == 0x6e /* n */) {
      if (nameIs(s, end, "num_requests_waiting")) return Family.Waiting;
      if (nameIs(s, end, "num_requests_running")) return Family.Running;
    } else if (first == 0x6b /* k */) {
      if (nameIs(s, end, "kv_cache_usage_perc")) return Family.KvUsage;
    } else if (first == 0x67 /* g */) {
      if (nameIs(s, end, "gpu_cache_usage_perc")) return Family.KvUsageLegacy;
    } else if (first == 0x6c /* l */) {
      if (nameIs(s, end, "lora_requests_info")) return Family.LoraInfo;
    } else if (first == 0x63 /* c */) {
      if (nameIs(s, end, "cache_config_info")) return Family.CacheConfig;
    } else if (first == 0x70 /* p */) {
      // vLLM V1's prefix cache counters, in tokens (vllm/v1/metrics/loggers.py).
      if (nameIs(s, end, "prefix_cache_queries_total")) return Family.PrefixQueries;
      if (nameIs(s, end, "prefix_cache_hits_total")) return Family.PrefixHits;
    }
  } else {
    if (first == 0x6e /* n */) {
      if (nameIs(s, end, "num_queue_reqs")) return Family.Waiting;
      if (nameIs(s, end, "num_running_reqs")) return Family.Running;
    } else if (first == 0x74 /* t */) {
      if (nameIs(s, end, "token_usage")) return Family.KvUsage;
    }
  }
  return Family.None;
}

function matchLabel(s: usize, n: i32): Label {
  switch (n) {
    case 8: {
      if (bytesEqual(s, "max_lora")) return Label.MaxLora;
      break;
    }
    case 21: {
      if (bytesEqual(s, "running_lora_adapters")) return Label.RunningAdapters;
      if (bytesEqual(s, "waiting_lora_adapters")) return Label.WaitingAdapters;
      break;
    }
    case 14: {
      if (bytesEqual(s, "num_gpu_blocks")) return Label.NumGpuBlocks;
      break;
    }
    case 10: {
      if (bytesEqual(s, "block_size")) return Label.BlockSize;
      break;
    }
  }
  return Label.Other;
}

// Scans `name="value",...}` starting after '{'. Returns the position after '}', or 0 if malformed.
function scanLabels(q: usize, end: usize): usize {
  while (true) {
    q = skipBlanks(q, end);
    if (q >= end) return 0;
    if (<u32>load<u8>(q) == 0x7d /* } */) return q + 1;
    const nameStart = q;
    while (q < end && isNameChar(<u32>load<u8>(q))) q++;
    if (q == nameStart) return 0;
    const nameLen = <i32>(q - nameStart);
    q = skipBlanks(q, end);
    if (q >= end || <u32>load<u8>(q) != 0x3d /* = */) return 0;
    q = skipBlanks(q + 1, end);
    if (q >= end || <u32>load<u8>(q) != QUOTE) return 0;
    q++;
    const valueStart = q;
    while (q < end) {
      const c = <u32>load<u8>(q);
      if (c == QUOTE) break;
      q += c == BACKSLASH ? 2 : 1;
    }
    if (q >= end) return 0;
    const valueEnd = q;
    q++;
    switch (matchLabel(nameStart, nameLen)) {
      case Label.MaxLora: {
        maxLoraStart = valueStart;
        maxLoraEnd = valueEnd;
        break;
      }
      case Label.RunningAdapters: {
        runningStart = valueStart;
        runningEnd = valueEnd;
        break;
      }
      case Label.WaitingAdapters: {
        waitingStart = valueStart;
        waitingEnd = valueEnd;
        break;
      }
      case Label.NumGpuBlocks: {
        blocksStart = valueStart;
        blocksEnd = valueEnd;
        break;
      }
      case Label.BlockSize: {
        blockSizeStart = valueStart;
        blockSizeEnd = valueEnd;
        break;
      }
    }
    q = skipBlanks(q, end);
    if (q >= end) return 0;
    const sep = <u32>load<u8>(q);
    if (sep == COMMA) q++;
    else if (sep != 0x7d) return 0;
  }
  return 0;
}

// Returns true when the sample was accepted as a signal.
function applySample(family: Family, v: f64, out: EndpointMetrics): bool {
  switch (family) {
    case Family.Waiting: {
      if (!isCount(v)) return false;
      waitingSum += v;
      hasWaiting = true;
      break;
    }
    case Family.Running: {
      if (!isCount(v)) return false;
      runningSum += v;
      hasRunning = true;
      break;
    }
    case Family.KvUsage: {
      const u = usageFraction(v);
      if (u < 0) return false;
      if (!hasKv || u > kvMax) kvMax = u;
      hasKv = true;
      break;
    }
    case Family.KvUsageLegacy: {
      const u = usageFraction(v);
      if (u < 0) return false;
      if (!hasKvLegacy || u > kvLegacyMax) kvLegacyMax = u;
      hasKvLegacy = true;
      break;
    }
    case Family.LoraInfo: {
      // The value is the time the series was last set; the newest series describes the current state.
      if (!isFinite(v)) return false;
      if (hasLora && v <= loraBestStamp) return true;
      loraBestStamp = v;
      hasLora = true;
      const maxLora = parseInteger(maxLoraStart, maxLoraEnd);
      out.loraMax = maxLora >= 0 && maxLora <= i32.MAX_VALUE ? <i32>maxLora : 0;
      readAdapterList(runningStart, runningEnd, out.runningAdapters);
      readAdapterList(waitingStart, waitingEnd, out.waitingAdapters);
      break;
    }
    case Family.PrefixQueries: {
      if (!isCount(v)) return false;
      prefixQueriesSum += v;
      hasPrefixQueries = true;
      break;
    }
    case Family.PrefixHits: {
      if (!isCount(v)) return false;
      prefixHitsSum += v;
      hasPrefixHits = true;
      break;
    }
    case Family.CacheConfig: {
      const blocks = parseInteger(blocksStart, blocksEnd);
      const blockSize = parseInteger(blockSizeStart, blockSizeEnd);
      if (blocks <= 0 || blockSize <= 0 || blockSize > i32.MAX_VALUE) return false;
      // With several engines (data parallel) keep the per-engine figure of the largest.
      if (!out.hasCacheConfig || blocks > out.numGpuBlocks) {
        out.numGpuBlocks = blocks;
        out.blockSize = <i32>blockSize;
      }
      out.hasCacheConfig = true;
      break;
    }
    default:
      return false;
  }
  recognized = true;
  return true;
}

// @ts-ignore: decorator
@inline
function isCount(v: f64): bool {
  return v >= 0 && v < Infinity;
}

// Usage as a 0..1 fraction, or -1 when unusable. A value in (1, 100] is taken as a percentage.
function usageFraction(v: f64): f64 {
  if (!(v >= 0)) return -1;
  if (v <= 1) return v;
  if (v <= 100) return v / 100;
  return -1;
}

// A non-negative decimal integer filling [s, e), or -1 (empty, "None", signs, fractions, more than 18 digits).
function parseInteger(s: usize, e: usize): i64 {
  if (s >= e || e - s > 18) return -1;
  let n: i64 = 0;
  for (let p = s; p < e; p++) {
    const d = <u32>load<u8>(p) - 0x30;
    if (d > 9) return -1;
    n = n * 10 + <i64>d;
  }
  return n;
}

// Hashes each comma-separated name of the raw label value [s, e) into `set`, unescaping \\ \" \n on the fly.
// Blanks around a name are not part of it; empty names are skipped.
function readAdapterList(s: usize, e: usize, set: AdapterSet): void {
  set.clear();
  let h = NAME_HASH_SEED;
  let nameLen = 0;
  let pendingBlanks = 0;
  let p = s;
  while (p < e) {
    let c = <u32>load<u8>(p);
    p++;
    if (c == BACKSLASH && p < e) {
      const next = <u32>load<u8>(p);
      if (next == BACKSLASH || next == QUOTE) {
        c = next;
        p++;
      } else if (next == 0x6e /* n */) {
        c = LF;
        p++;
      }
    } else if (c == COMMA) {
      if (nameLen > 0) set.add(h);
      h = NAME_HASH_SEED;
      nameLen = 0;
      pendingBlanks = 0;
      continue;
    } else if (isBlank(c)) {
      if (nameLen > 0) pendingBlanks++;
      continue;
    }
    for (; pendingBlanks > 0; pendingBlanks--) h = nameHashStep(h, SPACE);
    h = nameHashStep(h, c);
    nameLen++;
  }
  if (nameLen > 0) set.add(h);
}

// Parses a sample value (Go ParseFloat syntax as Prometheus writes it: decimals, exponents, NaN, +Inf, -Inf) at q.
// Sets sampleValue and returns the position after it, or 0 if the text there is not a value followed by a blank,
// '\r' or the line end.
function parseSampleValue(q: usize, end: usize): usize {
  if (q >= end) return 0;
  let negative = false;
  let c = <u32>load<u8>(q);
  if (c == 0x2b /* + */ || c == 0x2d /* - */) {
    negative = c == 0x2d;
    q++;
    if (q >= end) return 0;
    c = <u32>load<u8>(q) | 0x20;
  } else {
    c |= 0x20;
  }
  let v: f64;
  if (c == 0x6e /* n */) {
    if (end - q < 3 || !equalsIgnoreCase(q, 3, "nan")) return 0;
    q += 3;
    v = NaN;
  } else if (c == 0x69 /* i */) {
    if (end - q < 3 || !equalsIgnoreCase(q, 3, "inf")) return 0;
    q += 3;
    if (end - q >= 5 && equalsIgnoreCase(q, 5, "inity")) q += 5;
    v = Infinity;
  } else {
    // The number runs to the blank (or '\r', or the line end) that must follow it.
    let t = q;
    while (t < end) {
      const b = <u32>load<u8>(t);
      if (isBlank(b) || b == CR) break;
      t++;
    }
    v = parseDecimal(q, t, DecimalSyntax.Unsigned);
    if (isNaN(v)) return 0;
    q = t;
  }
  if (q < end) {
    const t = <u32>load<u8>(q);
    if (!isBlank(t) && t != CR) return 0;
  }
  sampleValue = negative ? -v : v;
  return q;
}

