// Reads the load signals of a vLLM or SGLang server from its /metrics page (Prometheus text format 0.0.4).
// One pass, no allocation, every loop bounded by the body end; malformed lines are skipped, never trusted.
// A parser keeps its per-page sums in itself: its owner allocates it once and calls parse for each page.
import { EndpointMetrics, Engine } from "./endpoint-metrics";
import { DP_RANK_OTHER, Family, MetricLine, readAdapterList, readLabelName } from "./prometheus-line";
import { LoraResidency } from "./lora-residency";
import { SeriesSet } from "./series-set";
import { LF, afterLastNewline, bytesEqual, findNewline, isNameChar, parseInteger, readSampleValue, skipBlanks } from "./prometheus-text";

export class PrometheusParser {
  private waitingSum: f64 = 0;
  private prefixQueriesSum: f64 = 0;
  private prefixHitsSum: f64 = 0;
  private prefixQueriesLegacySum: f64 = 0;
  private prefixHitsLegacySum: f64 = 0;
  private runningSum: f64 = 0;
  private kvMax: f64 = 0;
  private kvLegacyMax: f64 = 0;
  private loraBestStamp: f64 = 0;
  // The family of the line being read, and of the last line read: on a cut page that family may go on past the cut.
  private lineFamily: Family = Family.None;
  private lastLineFamily: Family = Family.None;
  // The same for the target metric: the line being read, and the last line read, were of it.
  private lineTarget: bool = false;
  private lastLineTarget: bool = false;
  // Where the metric name of the line being read and of the last line read is (set for family and target lines).
  private lineName: usize = 0;
  private lineNameLength: usize = 0;
  private lastLineName: usize = 0;
  private lastLineNameLength: usize = 0;
  // vLLM's cache_config_info: the largest num_gpu_blocks (with its block_size) and how many engines' series gave one.
  private vllmBlocks: i64 = 0;
  private vllmBlockSize: i32 = 0;
  private vllmCacheSeries: i32 = 0;
  // The SGLang data-parallel ranks whose KV pool was counted on this page (bit r for dp_rank r).
  private poolDpRanks: u64 = 0;
  // The same for the request counts: the tensor-parallel ranks of one engine run one batch and report the same queue.
  private waitingDpRanks: u64 = 0;
  private runningDpRanks: u64 = 0;
  private engine: i32 = Engine.Unknown;
  // The families a signal was read from on this page (bit 1 << family, see has()), and TARGET_BIT for a target sample.
  private recognized: u32 = 0;
  // The caller's target metric name (Higress `target_metric`); targetLen == 0 when none.
  private targetPtr: usize = 0;
  private targetLen: usize = 0;
  private targetSum: f64 = 0;
  private readonly line: MetricLine = new MetricLine();
  private readonly seriesRead: SeriesSet = new SeriesSet();
  private readonly loraSeries: LoraResidency = new LoraResidency();
  /** After a parse: every line of the page was read (the caller did not cut it, and the line budget reached its end). */
  readWhole: bool = false;

  /**
   * Returns true if at least one recognized signal was read into `out` (which is reset first).
   * [ptr, ptr + len) must be readable memory (the body buffer).
   * `truncated`: the body was cut by the caller, so a last line without its newline is dropped (a cut "12" reads "1").
   * `maxLines`: at most this many lines (comments included) are examined; <= 0 examines none.
   */
  parse(ptr: usize, len: usize, truncated: bool, out: EndpointMetrics, maxLines: i32): bool {
    return this.parseWithTarget(ptr, len, truncated, out, maxLines, 0, 0);
  }

  /**
   * parse that also sums the finite samples of every series of the metric named by the bytes
   * [targetNamePtr, targetNamePtr + targetNameLen) into out.targetValue (out.hasTarget when there was one). The
   * name may be any metric, with or without an engine prefix; it is matched whole. A target sample counts as a
   * recognized signal. targetNameLen == 0 is exactly parse.
   */
  parseWithTarget(
    ptr: usize,
    len: usize,
    truncated: bool,
    out: EndpointMetrics,
    maxLines: i32,
    targetNamePtr: usize,
    targetNameLen: usize,
  ): bool {
    out.reset();
    this.readWhole = false;
    this.targetPtr = targetNamePtr;
    this.targetLen = targetNamePtr == 0 ? 0 : targetNameLen;
    let end = ptr + len;
    if (ptr == 0 || len == 0 || end < ptr || maxLines <= 0) return false;
    if (truncated && <u32>load<u8>(end - 1) != LF) end = afterLastNewline(ptr, end);
    this.resetSums();

    let p = ptr;
    let lines = 0;
    while (p < end && lines < maxLines) {
      lines++;
      const lineEnd = findNewline(p, end);
      this.lineFamily = Family.None;
      this.lineTarget = false;
      this.parseLine(p, lineEnd, out);
      this.lastLineFamily = this.lineFamily;
      this.lastLineTarget = this.lineTarget;
      this.lastLineName = this.lineName;
      this.lastLineNameLength = this.lineNameLength;
      p = lineEnd + 1;
    }
    const whole = !truncated && p >= end;
    this.readWhole = whole;
    const lastLineCounts = this.lastLineFamily != Family.None || this.lastLineTarget;
    if (!whole && lastLineCounts && !this.startsAnotherMetric(p, ptr + len)) this.dropCutFamily(out);
    this.writeSums(out, whole);
    return this.recognized != 0;
  }

  private resetSums(): void {
    this.waitingSum = 0;
    this.prefixQueriesSum = 0;
    this.prefixHitsSum = 0;
    this.prefixQueriesLegacySum = 0;
    this.prefixHitsLegacySum = 0;
    this.runningSum = 0;
    this.kvMax = 0;
    this.kvLegacyMax = 0;
    this.loraBestStamp = 0;
    this.lastLineFamily = Family.None;
    this.lastLineTarget = false;
    this.vllmBlocks = 0;
    this.vllmBlockSize = 0;
    this.vllmCacheSeries = 0;
    this.poolDpRanks = 0;
    this.waitingDpRanks = 0;
    this.runningDpRanks = 0;
    this.engine = Engine.Unknown;
    this.recognized = 0;
    this.seriesRead.clear();
    this.loraSeries.clear();
    this.targetSum = 0;
  }

  /** Whether a sample of family was read as a signal on this page (and not dropped with a cut). */
  // @ts-ignore: decorator
  @inline private has(family: Family): bool {
    return (this.recognized & familyBit(family)) != 0;
  }

  private writeSums(out: EndpointMetrics, whole: bool): void {
    if (this.has(Family.Waiting)) {
      out.waiting = this.waitingSum;
      out.hasWaiting = true;
    }
    if (this.has(Family.Running)) {
      out.running = this.runningSum;
      out.hasRunning = true;
    }
    if (this.has(Family.KvUsage)) {
      out.kvUsage = this.kvMax;
      out.hasKv = true;
    } else if (this.has(Family.KvUsageLegacy)) {
      out.kvUsage = this.kvLegacyMax;
      out.hasKv = true;
    }
    // A pair is taken whole, the current names first (the same counts under both names on one page).
    if (this.has(Family.PrefixQueries) && this.has(Family.PrefixHits)) {
      out.prefixQueries = this.prefixQueriesSum;
      out.prefixHits = this.prefixHitsSum;
      out.hasPrefixCounters = true;
    } else if (this.has(Family.PrefixQueriesLegacy) && this.has(Family.PrefixHitsLegacy)) {
      out.prefixQueries = this.prefixQueriesLegacySum;
      out.prefixHits = this.prefixHitsLegacySum;
      out.hasPrefixCounters = true;
    } else if (this.has(Family.PrefixQueries) && whole && this.engine == Engine.Sglang) {
      // SGLang creates a cached_tokens_total series at the first cached token
      // (python/sglang/srt/metrics/collector.py, observe_one_finished_request): none on a whole page is none yet.
      out.prefixQueries = this.prefixQueriesSum;
      out.prefixHits = 0;
      out.hasPrefixCounters = true;
    }
    // Every engine's series carries the server's total (vLLM's front end adds up its engines' num_gpu_blocks,
    // vllm/v1/engine/utils.py wait_for_engine_startup, and writes that one figure for each engine,
    // vllm/v1/metrics/loggers.py PrometheusStatLogger.log_metrics_info): one engine holds its share.
    const series = this.vllmCacheSeries;
    if (series > 0) noteCacheSize(out, max<i64>(1, this.vllmBlocks / <i64>series), this.vllmBlockSize, series);
    out.hasLora = this.has(Family.LoraInfo);
    if (out.hasLora) this.loraSeries.fill(out);
    out.engine = this.engine;
    // Finite samples can still add up past the largest float; such a sum says nothing usable.
    if ((this.recognized & TARGET_BIT) != 0 && isFinite(this.targetSum)) {
      out.targetValue = this.targetSum;
      out.hasTarget = true;
    }
  }

  /**
   * Whether the unread text at [p, end) (the line after the last one read, whole or cut) shows that the last line's
   * metric ended: it is a comment (prometheus_client writes HELP and TYPE only before a family's first series) or a
   * sample of another metric whose name is complete. A cut name, or no text at all, tells nothing.
   */
  private startsAnotherMetric(p: usize, end: usize): bool {
    p = skipBlanks(p, end);
    if (p >= end) return false;
    if (<u32>load<u8>(p) == 0x23 /* # */) return true;
    let q = p;
    while (q < end && isNameChar(<u32>load<u8>(q))) q++;
    if (q == p || q >= end) return false;
    const n = q - p;
    return n != this.lastLineNameLength || memory.compare(p, this.lastLineName, n) != 0;
  }

  /**
   * On a page not read whole, the series of the last line's family may go on past the cut, so what its visible
   * series say is read as absent: a sum or maximum over a data-parallel server's engines would be short,
   * cache_config_info's engine count too (so one engine's share came out larger), and vLLM's newest
   * lora_requests_info series can be any of them (it adds a series for each new adapter set and restamps an old
   * set's where it stands), so the newest visible one may be stale.
   */
  private dropCutFamily(out: EndpointMetrics): void {
    if (this.lastLineTarget) {
      this.recognized &= ~TARGET_BIT;
    }
    const family = this.lastLineFamily;
    if (family == Family.CacheConfig) {
      this.vllmCacheSeries = 0;
    } else if (family == Family.LoraInfo) {
      out.loraMax = 0;
      out.runningAdapters.clear();
      out.waitingAdapters.clear();
    } else if (family == Family.KvTokens) {
      // Another data-parallel engine's pool may follow: its engine count is not known (none rather than too few).
      out.hasCacheConfig = false;
      out.numGpuBlocks = 0;
      out.blockSize = 0;
      out.cacheEngines = 0;
    } else if (family == Family.None) {
      return;
    }
    this.recognized &= ~familyBit(family);
  }

  private parseLine(p: usize, end: usize, out: EndpointMetrics): void {
    p = skipBlanks(p, end);
    if (p >= end) return;
    const first = <u32>load<u8>(p);
    if (this.targetLen != 0 && first == <u32>load<u8>(this.targetPtr)) this.readTargetSample(p, end);
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
    const line = this.line;
    const family = line.matchFamily(lineEngine, nameStart, end);
    if (family == Family.None) return;
    this.lineFamily = family;
    this.lineName = p;
    this.lineNameLength = nameStart - p + <usize>line.familyNameLength;
    const q = this.readSeries(nameStart + <usize>line.familyNameLength, end);
    if (q == 0) return;
    // One priority's share of a count already read in full from its priority="" series.
    if (line.priorityShare) return;
    // An optional timestamp may follow; it is not used.
    if (this.applySample(family, line.sample.value, out) && this.engine == Engine.Unknown) this.engine = lineEngine;
  }

  /**
   * Reads what follows a metric name ending at q: optional labels, then the value into line.sample. Returns the
   * position after the value, or 0 when the rest is not a sample. Blanks are optional around the label set, as
   * expfmt's TextParser reads them (prometheus/common expfmt/text_parse.go: readingMetricName skips blanks before
   * '{', startLabelName / startLabelValue skip them after '}'), so `name {a="b"} 1` and `name{a="b"}1` are samples.
   */
  private readSeries(q: usize, end: usize): usize {
    const line = this.line;
    line.clearLabels();
    q = skipBlanks(q, end);
    if (q < end && <u32>load<u8>(q) == 0x7b /* { */) {
      q = line.scanLabels(q + 1, end);
      if (q == 0) return 0;
      q = skipBlanks(q, end);
    }
    return readSampleValue(q, end, line.sample);
  }

  /** Adds the line's sample to the target sum when the line's metric name is the target name. */
  private readTargetSample(p: usize, end: usize): void {
    const targetLen = this.targetLen;
    if (end - p < targetLen || memory.compare(p, this.targetPtr, targetLen) != 0) return;
    const q = p + targetLen;
    if (q < end && isNameChar(<u32>load<u8>(q))) return;
    this.lineTarget = true;
    this.lineName = p;
    this.lineNameLength = targetLen;
    const line = this.line;
    if (this.readSeries(q, end) == 0 || !isFinite(line.sample.value)) return;
    if (!this.seriesRead.addNew(seriesKey(TARGET_TAG, line.labelsHash))) return;
    this.targetSum += line.sample.value;
    this.recognized |= TARGET_BIT;
  }

  /** Returns true when the sample was accepted as a signal. */
  private applySample(family: Family, v: f64, out: EndpointMetrics): bool {
    const line = this.line;
    // A series the page already gave counts once, as its first sample: a sum or count would take it twice.
    if (addsUp(family) && !this.seriesRead.addNew(seriesKey(<u32>family, line.labelsHash))) return false;
    switch (family) {
      case Family.Waiting: {
        if (!isCount(v)) return false;
        // vLLM labels its series with the model it serves (served_model_name's first name; vllm/v1/metrics/
        // loggers.py, PrometheusStatLogger: labelnames ["model_name", "engine"]): a request naming it is no adapter's.
        if (out.servedModel == 0) out.servedModel = readLabelName(line.modelNameStart, line.modelNameEnd);
        if (line.repeatsEngine(this.waitingDpRanks)) return true;
        this.waitingDpRanks |= dpRankBit(line.dpRank);
        this.waitingSum += v;
        break;
      }
      case Family.Running: {
        if (!isCount(v)) return false;
        if (line.repeatsEngine(this.runningDpRanks)) return true;
        this.runningDpRanks |= dpRankBit(line.dpRank);
        this.runningSum += v;
        break;
      }
      case Family.KvUsage: {
        const u = usageFraction(v);
        if (u < 0) return false;
        if (!this.has(Family.KvUsage) || u > this.kvMax) this.kvMax = u;
        break;
      }
      case Family.KvUsageLegacy: {
        const u = usageFraction(v);
        if (u < 0) return false;
        if (!this.has(Family.KvUsageLegacy) || u > this.kvLegacyMax) this.kvLegacyMax = u;
        break;
      }
      case Family.LoraInfo: {
        // The value is the time the series was last set; the newest series describes the current state, the newest
        // ones together what ran last (lora-residency.ts).
        if (!isFinite(v)) return false;
        this.loraSeries.note(v, line.runningStart, line.runningEnd);
        if (this.has(Family.LoraInfo) && v <= this.loraBestStamp) return true;
        this.loraBestStamp = v;
        const maxLora = parseInteger(line.maxLoraStart, line.maxLoraEnd);
        out.loraMax = maxLora >= 0 && maxLora <= i32.MAX_VALUE ? <i32>maxLora : 0;
        readAdapterList(line.runningStart, line.runningEnd, out.runningAdapters);
        readAdapterList(line.waitingStart, line.waitingEnd, out.waitingAdapters);
        break;
      }
      case Family.PrefixQueries: {
        if (!isCount(v)) return false;
        this.prefixQueriesSum += v;
        break;
      }
      case Family.PrefixHits: {
        if (!isCount(v)) return false;
        this.prefixHitsSum += v;
        break;
      }
      case Family.PrefixQueriesLegacy: {
        if (!isCount(v)) return false;
        this.prefixQueriesLegacySum += v;
        break;
      }
      case Family.PrefixHitsLegacy: {
        if (!isCount(v)) return false;
        this.prefixHitsLegacySum += v;
        break;
      }
      case Family.CacheConfig: {
        const blocks = parseInteger(line.blocksStart, line.blocksEnd);
        const blockSize = parseInteger(line.blockSizeStart, line.blockSizeEnd);
        if (blocks <= 0 || blockSize <= 0 || blockSize > i32.MAX_VALUE) return false;
        if (this.vllmCacheSeries == 0 || blocks > this.vllmBlocks) {
          this.vllmBlocks = blocks;
          this.vllmBlockSize = <i32>blockSize;
        }
        if (this.vllmCacheSeries < 255) this.vllmCacheSeries++;
        break;
      }
      case Family.KvTokens: {
        if (!(v >= 1 && v <= 1e15)) return false;
        // A later rank of an engine already counted reports the same pool again.
        if (line.repeatsEngine(this.poolDpRanks)) return true;
        this.poolDpRanks |= dpRankBit(line.dpRank);
        // A pool of tokens: blocks of one token.
        noteCacheSize(out, <i64>v, 1, 1);
        break;
      }
      default:
        return false;
    }
    this.recognized |= familyBit(family);
    return true;
  }
}

// @ts-ignore: decorator
@inline
function familyBit(family: Family): u32 {
  return <u32>1 << <u32>family;
}

const TARGET_BIT: u32 = 1 << 31;
// The target metric's series keys are apart from every family's.
const TARGET_TAG: u32 = 31;

// The families whose series are added up or counted.
function addsUp(family: Family): bool {
  return family != Family.KvUsage && family != Family.KvUsageLegacy && family != Family.LoraInfo && family != Family.None;
}

// @ts-ignore: decorator
@inline
function seriesKey(tag: u32, labelsHash: u64): u64 {
  return labelsHash ^ (<u64>(tag + 1) * 0x9e3779b97f4a7c15);
}

// The bit of a data-parallel rank in a set of ranks already counted; 0 for none or one past 63.
// @ts-ignore: decorator
@inline
function dpRankBit(dpRank: i32): u64 {
  return dpRank >= 0 && dpRank < DP_RANK_OTHER ? <u64>1 << <u64>dpRank : 0;
}

// The cache size of `engines` engines of `blocks` blocks each. With several engines (data parallel) they are
// counted and the per-engine figure of the largest is kept.
function noteCacheSize(out: EndpointMetrics, blocks: i64, blockSize: i32, engines: i32): void {
  if (!out.hasCacheConfig || blocks > out.numGpuBlocks) {
    out.numGpuBlocks = blocks;
    out.blockSize = blockSize;
  }
  out.hasCacheConfig = true;
  out.cacheEngines = min(out.cacheEngines + engines, 255);
}

// The largest count read: past 2^53 a float no longer holds every integer, and no engine counts that far. A bound
// keeps every sum finite (at most maxLines samples of it): an overflowed sum read as no load (the scorers take a
// non-finite count as 0) and made the stock build's record unencodable, so the last one stood.
const MAX_COUNT: f64 = 9007199254740992;

// @ts-ignore: decorator
@inline
function isCount(v: f64): bool {
  return v >= 0 && v <= MAX_COUNT;
}

/**
 * Usage as a 0..1 fraction, or -1 when unusable. Every gauge read here is a fraction despite the "_perc" name:
 * vLLM's kv_cache_usage_perc / gpu_cache_usage_perc are documented "1 means 100 percent usage"
 * (vllm/v1/metrics/loggers.py PrometheusStatLogger.__init__, vllm/engine/metrics.py Metrics) and set from
 * 1 - free blocks / total; SGLang's token_usage is used tokens / max_total_num_tokens
 * (python/sglang/srt/managers/scheduler_metrics_mixin.py, _get_token_info). A finite value above 1 is a cache
 * over-full, never a percentage (45 read as 0.45 would turn a full engine into a half-empty one): it reads as full.
 */
function usageFraction(v: f64): f64 {
  if (!(v >= 0 && v < Infinity)) return -1;
  return v <= 1 ? v : 1;
}
