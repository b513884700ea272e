// One sample line of a /metrics page as the parser needs it: which family its name belongs to, the raw spans of
// the labels it reads, and its value. Owned by a PrometheusParser; nothing here outlives one line.
import { Engine } from "./endpoint-metrics";
import { AdapterSet } from "./adapter-set";
import { NAME_HASH_SEED, nameHashStep } from "./name-hash";
import { xxh64 } from "../prefix/xxh64";
import { BACKSLASH, COMMA, LF, QUOTE, SPACE, SampleValue, bytesEqual, isBlank, isNameChar, parseInteger, skipBlanks } from "./prometheus-text";

/** A dp_rank label too large to track (or not a number): such a series always counts as its own engine. */
export const DP_RANK_OTHER: i32 = 64;

export enum Family {
  None = 0,
  Waiting = 1,
  Running = 2,
  KvUsage = 3,
  KvUsageLegacy = 4,
  LoraInfo = 5,
  CacheConfig = 6,
  PrefixQueries = 7,
  PrefixHits = 8,
  /** SGLang's KV pool size in tokens (max_total_num_tokens): its cache size, as vLLM's cache_config_info. */
  KvTokens = 9,
  /** vLLM 0.8's names of the prefix-cache counters (0.9 and 0.10 write both names), read when the current are not. */
  PrefixQueriesLegacy = 10,
  PrefixHitsLegacy = 11,
}

enum Label {
  Other = 0,
  MaxLora = 1,
  RunningAdapters = 2,
  WaitingAdapters = 3,
  NumGpuBlocks = 4,
  BlockSize = 5,
  TpRank = 6,
  PpRank = 7,
  DpRank = 8,
  Priority = 9,
  ModelName = 10,
}

export class MetricLine {
  /** Length of the name matched by the last matchFamily (after the engine prefix). */
  familyNameLength: i32 = 0;
  /** Raw (still escaped) label value spans; start == end when absent or empty. */
  maxLoraStart: usize = 0;
  maxLoraEnd: usize = 0;
  runningStart: usize = 0;
  runningEnd: usize = 0;
  waitingStart: usize = 0;
  waitingEnd: usize = 0;
  blocksStart: usize = 0;
  blocksEnd: usize = 0;
  blockSizeStart: usize = 0;
  blockSizeEnd: usize = 0;
  modelNameStart: usize = 0;
  modelNameEnd: usize = 0;
  /** SGLang's tp_rank / pp_rank labels are present with a value other than "0". */
  laterTpRank: bool = false;
  laterPpRank: bool = false;
  /** SGLang's dp_rank label: -1 when absent, DP_RANK_OTHER when not a small number. */
  dpRank: i32 = -1;
  /**
   * SGLang's priority label has a value: the series is one priority's share of a count whose total is the series
   * with priority="" (python/sglang/srt/observability/metrics_collector.py,
   * SchedulerMetricsCollector._log_gauge_queue_count, with --enable-priority-scheduling).
   */
  priorityShare: bool = false;
  /** The label set (names and raw values) as a hash that does not depend on the labels' order. */
  labelsHash: u64 = 0;
  readonly sample: SampleValue = new SampleValue();

  clearLabels(): void {
    this.maxLoraStart = this.maxLoraEnd = 0;
    this.runningStart = this.runningEnd = 0;
    this.waitingStart = this.waitingEnd = 0;
    this.blocksStart = this.blocksEnd = 0;
    this.blockSizeStart = this.blockSizeEnd = 0;
    this.modelNameStart = this.modelNameEnd = 0;
    this.laterTpRank = false;
    this.laterPpRank = false;
    this.dpRank = -1;
    this.priorityShare = false;
    this.labelsHash = 0;
  }

  /**
   * Whether the series repeats the pool of an engine already counted (`dpRanksSeen`: bit r for data-parallel rank
   * r): SGLang labels a scheduler's series with its tensor- and pipeline-parallel rank, and the ranks of one engine
   * past the first (metrics for all schedulers, or a pipeline) report the same KV pool again. Data-parallel engines
   * carry a dp_rank each, and their tp_rank is not the first: a dp_rank counts once, on its first pipeline stage.
   */
  repeatsEngine(dpRanksSeen: u64): bool {
    if (this.laterPpRank) return true;
    if (this.dpRank < 0) return this.laterTpRank;
    return this.dpRank != DP_RANK_OTHER && (dpRanksSeen & (<u64>1 << <u64>this.dpRank)) != 0;
  }

  /** Dispatches on the first byte after the engine prefix, so most vllm: lines (histogram series) cost one compare. */
  matchFamily(lineEngine: i32, s: usize, end: usize): Family {
    if (s >= end) return Family.None;
    const first = <u32>load<u8>(s);
    if (lineEngine == Engine.Vllm) {
      if (first == 0x6e /* n */) {
        if (this.nameIs(s, end, "num_requests_waiting")) return Family.Waiting;
        if (this.nameIs(s, end, "num_requests_running")) return Family.Running;
      } else if (first == 0x6b /* k */) {
        if (this.nameIs(s, end, "kv_cache_usage_perc")) return Family.KvUsage;
      } else if (first == 0x67 /* g */) {
        if (this.nameIs(s, end, "gpu_cache_usage_perc")) return Family.KvUsageLegacy;
        if (this.nameIs(s, end, "gpu_prefix_cache_queries_total")) return Family.PrefixQueriesLegacy;
        if (this.nameIs(s, end, "gpu_prefix_cache_hits_total")) return Family.PrefixHitsLegacy;
      } else if (first == 0x6c /* l */) {
        if (this.nameIs(s, end, "lora_requests_info")) return Family.LoraInfo;
      } else if (first == 0x63 /* c */) {
        if (this.nameIs(s, end, "cache_config_info")) return Family.CacheConfig;
      } else if (first == 0x70 /* p */) {
        // vLLM V1's prefix cache counters, in tokens (vllm/v1/metrics/loggers.py).
        if (this.nameIs(s, end, "prefix_cache_queries_total")) return Family.PrefixQueries;
        if (this.nameIs(s, end, "prefix_cache_hits_total")) return Family.PrefixHits;
      }
    } else {
      if (first == 0x6e /* n */) {
        if (this.nameIs(s, end, "num_queue_reqs")) return Family.Waiting;
        if (this.nameIs(s, end, "num_running_reqs")) return Family.Running;
      } else if (first == 0x74 /* t */) {
        if (this.nameIs(s, end, "token_usage")) return Family.KvUsage;
      } else if (first == 0x70 /* p */) {
        // SGLang's prompt tokens and the cached ones among them, in tokens like vLLM's prefix-cache counters
        // (python/sglang/srt/metrics/collector.py; cached_tokens_total has one series per cache_source).
        if (this.nameIs(s, end, "prompt_tokens_total")) return Family.PrefixQueries;
      } else if (first == 0x63 /* c */) {
        if (this.nameIs(s, end, "cached_tokens_total")) return Family.PrefixHits;
      } else if (first == 0x6d /* m */) {
        if (this.nameIs(s, end, "max_total_num_tokens")) return Family.KvTokens;
      }
    }
    return Family.None;
  }

  /** Whole-name match of the literal at s: the next byte must end the name. Sets familyNameLength. */
  private nameIs(s: usize, end: usize, lit: string): bool {
    const n = lit.length;
    if (end - s < <usize>n || !bytesEqual(s, lit)) return false;
    if (s + <usize>n < end && isNameChar(<u32>load<u8>(s + <usize>n))) return false;
    this.familyNameLength = n;
    return true;
  }

  /** Scans `name="value",...}` starting after '{'. Returns the position after '}', or 0 if malformed. */
  scanLabels(q: usize, end: usize): usize {
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
      this.keepLabel(matchLabel(nameStart, nameLen), valueStart, q);
      this.labelsHash += xxh64(valueStart, q - valueStart, xxh64(nameStart, <usize>nameLen, 0));
      q++;
      q = skipBlanks(q, end);
      if (q >= end) return 0;
      const sep = <u32>load<u8>(q);
      if (sep == COMMA) q++;
      else if (sep != 0x7d) return 0;
    }
    return 0;
  }

  private keepLabel(label: Label, valueStart: usize, valueEnd: usize): void {
    switch (label) {
      case Label.MaxLora: {
        this.maxLoraStart = valueStart;
        this.maxLoraEnd = valueEnd;
        break;
      }
      case Label.RunningAdapters: {
        this.runningStart = valueStart;
        this.runningEnd = valueEnd;
        break;
      }
      case Label.WaitingAdapters: {
        this.waitingStart = valueStart;
        this.waitingEnd = valueEnd;
        break;
      }
      case Label.NumGpuBlocks: {
        this.blocksStart = valueStart;
        this.blocksEnd = valueEnd;
        break;
      }
      case Label.BlockSize: {
        this.blockSizeStart = valueStart;
        this.blockSizeEnd = valueEnd;
        break;
      }
      case Label.ModelName: {
        this.modelNameStart = valueStart;
        this.modelNameEnd = valueEnd;
        break;
      }
      case Label.TpRank: {
        this.laterTpRank = !isZero(valueStart, valueEnd);
        break;
      }
      case Label.PpRank: {
        this.laterPpRank = !isZero(valueStart, valueEnd);
        break;
      }
      case Label.DpRank: {
        const rank = parseInteger(valueStart, valueEnd);
        this.dpRank = rank >= 0 && rank < DP_RANK_OTHER ? <i32>rank : DP_RANK_OTHER;
        break;
      }
      case Label.Priority: {
        this.priorityShare = valueEnd > valueStart;
        break;
      }
    }
  }
}

function matchLabel(s: usize, n: i32): Label {
  switch (n) {
    case 8: {
      if (bytesEqual(s, "max_lora")) return Label.MaxLora;
      if (bytesEqual(s, "priority")) return Label.Priority;
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
      if (bytesEqual(s, "model_name")) return Label.ModelName;
      break;
    }
    case 7: {
      if (bytesEqual(s, "tp_rank")) return Label.TpRank;
      if (bytesEqual(s, "pp_rank")) return Label.PpRank;
      if (bytesEqual(s, "dp_rank")) return Label.DpRank;
      break;
    }
  }
  return Label.Other;
}

// The raw label value is "0".
function isZero(s: usize, e: usize): bool {
  return e - s == 1 && <u32>load<u8>(s) == 0x30;
}

/** hashNameBytes (name-hash.ts) of the raw label value [s, e) unescaped (\\ \" \n); 0 when it is empty. */
export function readLabelName(s: usize, e: usize): u64 {
  if (e <= s) return 0;
  let h = NAME_HASH_SEED;
  let p = s;
  while (p < e) {
    const c = unescapedAt(p, e);
    p += c >>> 8;
    h = nameHashStep(h, c & 0xff);
  }
  return h;
}

// The byte at p, unescaped, with in bits 8 and up how many bytes it took (2 for an escape, else 1).
// @ts-ignore: decorator
@inline
function unescapedAt(p: usize, e: usize): u32 {
  const c = <u32>load<u8>(p);
  if (c == BACKSLASH && p + 1 < e) {
    const next = <u32>load<u8>(p + 1);
    if (next == BACKSLASH || next == QUOTE) return next | 0x200;
    if (next == 0x6e /* n */) return LF | 0x200;
  }
  return c | 0x100;
}

/**
 * Hashes each comma-separated name of the raw label value [s, e) into `set`, unescaping \\ \" \n on the fly.
 * Blanks around a name are not part of it; empty names are skipped.
 */
export function readAdapterList(s: usize, e: usize, set: AdapterSet): void {
  set.clear();
  let h = NAME_HASH_SEED;
  let nameLen = 0;
  let pendingBlanks = 0;
  let p = s;
  while (p < e) {
    const escaped = <u32>load<u8>(p) == BACKSLASH;
    let c = unescapedAt(p, e);
    p += c >>> 8;
    c &= 0xff;
    if (escaped) {
      // an escaped byte is part of the name
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
