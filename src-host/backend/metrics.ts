// /metrics in the text format a vLLM v1 server emits through prometheus_client: family names, HELP texts
// and labels as in vllm/v1/metrics/loggers.py; labels sorted by name; counters exposed as <name>_total
// plus a <name>_created gauge family; histograms as _bucket (le ascending, +Inf last), _count, _sum;
// numbers formatted the way prometheus_client formats them (Python repr, Go-style exponents).
import type { EngineMetrics } from "./engine.ts";
import type { LoraInfoSample } from "./lora-info-series.ts";

export interface MetricsRenderOptions {
  modelName: string;
  /** vLLM labels per-engine series with engine="<index>"; a single engine is "0". */
  engineIndex?: string;
  /** Unix seconds; value of vllm:lora_requests_info. */
  nowSeconds: number;
  /** Unix seconds when the server started; value of the _created series. */
  createdSeconds: number;
  /**
   * Present when LoRA is enabled (vLLM only exposes vllm:lora_requests_info then). `series`: every adapter set the
   * server has had (LoraInfoSeries); without it, one series of the current lists at nowSeconds.
   */
  lora?: { maxLoras: number; series?: readonly LoraInfoSample[] };
  gpuMemoryUtilization?: number;
}

/** A float as prometheus_client writes it (floatToGoString). */
export function formatPromValue(d: number): string {
  if (d === Infinity) return "+Inf";
  if (d === -Infinity) return "-Inf";
  if (Number.isNaN(d)) return "NaN";
  const s = pythonFloatRepr(d);
  const dot = s.indexOf(".");
  if (d > 0 && dot > 6) {
    const mantissa = `${s[0]}.${s.slice(1, dot)}${s.slice(dot + 1)}`.replace(/[0.]+$/, "");
    return `${mantissa}e+0${dot - 1}`;
  }
  return s;
}

/** Python's repr() of a float: shortest round-trip digits, exponent form below 1e-4 or from 1e16. */
export function pythonFloatRepr(d: number): string {
  if (d === 0) return Object.is(d, -0) ? "-0.0" : "0.0";
  const sign = d < 0 ? "-" : "";
  const [mant, expText] = Math.abs(d).toExponential().split("e");
  const exp = Number(expText);
  const digits = mant.replace(".", "");
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : `${Math.abs(exp)}`;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  if (digits.length <= intLen) return `${sign}${digits}${"0".repeat(intLen - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labelText(labels: Record<string, string>): string {
  const keys = Object.keys(labels).sort();
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k])}"`).join(",")}}`;
}

class Exposition {
  private readonly lines: string[] = [];

  family(name: string, type: "gauge" | "counter" | "histogram", help: string): void {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }

  sample(name: string, labels: Record<string, string>, value: number): void {
    this.lines.push(`${name}${labelText(labels)} ${formatPromValue(value)}`);
  }

  gauge(name: string, help: string, labels: Record<string, string>, value: number): void {
    this.family(name, "gauge", help);
    this.sample(name, labels, value);
  }

  counter(name: string, help: string, series: { labels: Record<string, string>; value: number }[], created: number): void {
    this.family(`${name}_total`, "counter", help);
    for (const s of series) this.sample(`${name}_total`, s.labels, s.value);
    this.family(`${name}_created`, "gauge", help);
    for (const s of series) this.sample(`${name}_created`, s.labels, created);
  }

  text(): string {
    return this.lines.join("\n") + "\n";
  }
}

export function renderVllmMetrics(m: EngineMetrics, opts: MetricsRenderOptions): string {
  const base = { engine: opts.engineIndex ?? "0", model_name: opts.modelName };
  const out = new Exposition();
  const created = opts.createdSeconds;

  out.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", base, m.numRequestsRunning);
  out.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", base, m.numRequestsWaiting);
  out.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", base, m.kvCacheUsage);
  out.counter(
    "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
    [{ labels: base, value: m.prefixCacheQueries }], created,
  );
  out.counter(
    "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
    [{ labels: base, value: m.prefixCacheHits }], created,
  );
  out.counter(
    "vllm:num_preemptions", "Cumulative number of preemption from the engine.",
    [{ labels: base, value: m.preemptionsTotal }], created,
  );
  out.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", [{ labels: base, value: m.promptTokensTotal }], created);
  out.counter(
    "vllm:generation_tokens", "Number of generation tokens processed.",
    [{ labels: base, value: m.generationTokensTotal }], created,
  );
  out.counter(
    "vllm:request_success", "Count of successfully processed requests.",
    (["stop", "length", "abort"] as const).map((reason) => ({
      labels: { ...base, finished_reason: reason },
      value: m.requestSuccess[reason],
    })),
    created,
  );

  const ttft = m.timeToFirstTokenSeconds;
  const ttftName = "vllm:time_to_first_token_seconds";
  const ttftHelp = "Histogram of time to first token in seconds.";
  out.family(ttftName, "histogram", ttftHelp);
  for (let i = 0; i < ttft.bounds.length; i++) {
    out.sample(`${ttftName}_bucket`, { ...base, le: formatPromValue(ttft.bounds[i]) }, ttft.cumulative[i]);
  }
  out.sample(`${ttftName}_bucket`, { ...base, le: "+Inf" }, ttft.count);
  out.sample(`${ttftName}_count`, base, ttft.count);
  out.sample(`${ttftName}_sum`, base, ttft.sum);
  out.family(`${ttftName}_created`, "gauge", ttftHelp);
  out.sample(`${ttftName}_created`, base, created);

  if (opts.lora !== undefined) {
    const maxLora = String(opts.lora.maxLoras);
    const series = opts.lora.series ??
      [{ running: m.runningLoraAdapters.join(","), waiting: m.waitingLoraAdapters.join(","), seconds: opts.nowSeconds }];
    out.family("vllm:lora_requests_info", "gauge", "Running stats on lora requests.");
    for (const s of series) {
      out.sample(
        "vllm:lora_requests_info",
        { max_lora: maxLora, running_lora_adapters: s.running, waiting_lora_adapters: s.waiting },
        s.seconds,
      );
    }
  }

  out.gauge(
    "vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
    {
      block_size: String(m.blockSize),
      cache_dtype: "auto",
      calculate_kv_scales: "False",
      cpu_offload_gb: "0",
      enable_prefix_caching: "True",
      engine: base.engine,
      gpu_memory_utilization: String(opts.gpuMemoryUtilization ?? 0.9),
      is_attention_free: "False",
      num_cpu_blocks: "None",
      num_gpu_blocks: String(m.numGpuBlocks),
      num_gpu_blocks_override: "None",
      prefix_caching_hash_algo: "sha256",
      sliding_window: "None",
      swap_space: "4",
    },
    1,
  );
  return out.text();
}
