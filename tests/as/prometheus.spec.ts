import { PrometheusParser } from "../../assembly/endpoints/prometheus";

import { EndpointMetrics, Engine, AdapterState } from "../../assembly/endpoints/endpoint-metrics";
import { hashNameBytes, hashNameString } from "../../assembly/endpoints/name-hash";
import { METRICS_RECORD_MAX_BYTES, encodeMetricsRecord } from "../../assembly/endpoints/metrics-record";

const parser = new PrometheusParser();

const metrics = new EndpointMetrics();

function parse(text: string, truncated: bool = false, maxLines: i32 = 1 << 20): bool {
  const buf = String.UTF8.encode(text);
  return parser.parse(changetype<usize>(buf), <usize>buf.byteLength, truncated, metrics, maxLines);
}

function adapter(name: string): u64 {
  return hashNameString(name);
}

const MODEL = "meta-llama/Llama-3.1-8B-Instruct";

// A vLLM v0.10 /metrics page (two engines of a data-parallel server, each with its own model_name series),
// written in the exposition format prometheus_client produces.
const VLLM_PAGE =
  "# HELP python_gc_objects_collected_total Objects collected during gc\n" +
  "# TYPE python_gc_objects_collected_total counter\n" +
  'python_gc_objects_collected_total{generation="0"} 12083.0\n' +
  'python_gc_objects_collected_total{generation="1"} 1789.0\n' +
  "# HELP process_resident_memory_bytes Resident memory size in bytes.\n" +
  "# TYPE process_resident_memory_bytes gauge\n" +
  "process_resident_memory_bytes 1.234567168e+09\n" +
  "# HELP vllm:num_requests_running Number of requests in model execution batches.\n" +
  "# TYPE vllm:num_requests_running gauge\n" +
  'vllm:num_requests_running{engine="0",model_name="' + MODEL + '"} 7.0\n' +
  'vllm:num_requests_running{engine="1",model_name="' + MODEL + '-alias"} 2.0\n' +
  "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n" +
  "# TYPE vllm:num_requests_waiting gauge\n" +
  'vllm:num_requests_waiting{engine="0",model_name="' + MODEL + '"} 1.0\n' +
  'vllm:num_requests_waiting{engine="1",model_name="' + MODEL + '-alias"} 4.0\n' +
  "# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.\n" +
  "# TYPE vllm:gpu_cache_usage_perc gauge\n" +
  'vllm:gpu_cache_usage_perc{engine="0",model_name="' + MODEL + '"} 0.9\n' +
  "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n" +
  "# TYPE vllm:kv_cache_usage_perc gauge\n" +
  'vllm:kv_cache_usage_perc{engine="0",model_name="' + MODEL + '"} 0.25\n' +
  'vllm:kv_cache_usage_perc{engine="1",model_name="' + MODEL + '-alias"} 0.4375\n' +
  "# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.\n" +
  "# TYPE vllm:prefix_cache_queries_total counter\n" +
  'vllm:prefix_cache_queries_total{engine="0",model_name="' + MODEL + '"} 184320.0\n' +
  "# HELP vllm:lora_requests_info Running stats on lora requests.\n" +
  "# TYPE vllm:lora_requests_info gauge\n" +
  'vllm:lora_requests_info{max_lora="4",running_lora_adapters="sql-lora",waiting_lora_adapters="tool-lora"} 1.7473264601e+09\n' +
  'vllm:lora_requests_info{max_lora="4",running_lora_adapters="sql-lora,chat-lora",waiting_lora_adapters=""} 1.7473264571234e+09\n' +
  "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.\n" +
  "# TYPE vllm:time_to_first_token_seconds histogram\n" +
  'vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="' + MODEL + '"} 0.0\n' +
  'vllm:time_to_first_token_seconds_bucket{engine="0",le="0.005",model_name="' + MODEL + '"} 3.0\n' +
  'vllm:time_to_first_token_seconds_bucket{engine="0",le="0.02",model_name="' + MODEL + '"} 41.0\n' +
  'vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="' + MODEL + '"} 57.0\n' +
  'vllm:time_to_first_token_seconds_count{engine="0",model_name="' + MODEL + '"} 57.0\n' +
  'vllm:time_to_first_token_seconds_sum{engine="0",model_name="' + MODEL + '"} 3.2184529304504395\n' +
  "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n" +
  "# TYPE vllm:cache_config_info gauge\n" +
  'vllm:cache_config_info{block_size="16",cache_dtype="auto",calculate_kv_scales="False",cpu_offload_gb="0",' +
  'enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",is_attention_free="False",' +
  'num_cpu_blocks="None",num_gpu_blocks="27910",num_gpu_blocks_override="None",prefix_caching_hash_algo="builtin",' +
  'sliding_window="None",swap_space="4",swap_space_bytes="4294967296"} 1.0\n';

describe("parsePrometheus on a vLLM v0.10 page", () => {
  it("sums waiting and running over series and takes the largest KV usage", () => {
    expect<bool>(parse(VLLM_PAGE)).toBe(true);
    expect<i32>(metrics.engine).toBe(Engine.Vllm);
    expect<bool>(metrics.hasWaiting).toBe(true);
    expect<f64>(metrics.waiting).toBe(1.0 + 4.0);
    expect<bool>(metrics.hasRunning).toBe(true);
    expect<f64>(metrics.running).toBe(7.0 + 2.0);
    expect<bool>(metrics.hasKv).toBe(true);
    // kv_cache_usage_perc wins over the deprecated gpu_cache_usage_perc (0.9) even though it comes later.
    expect<f64>(metrics.kvUsage).toBe(0.4375);
  });

  it("takes LoRA state from the lora_requests_info series with the newest timestamp", () => {
    parse(VLLM_PAGE);
    expect<bool>(metrics.hasLora).toBe(true);
    expect<i32>(metrics.loraMax).toBe(4);
    expect<i32>(metrics.runningAdapters.count).toBe(1);
    expect<i32>(metrics.waitingAdapters.count).toBe(1);
    expect<i32>(metrics.isAdapterLoaded(adapter("sql-lora"))).toBe(AdapterState.Running);
    expect<i32>(metrics.isAdapterLoaded(adapter("tool-lora"))).toBe(AdapterState.Waiting);
    // chat-lora ran in the older series, and max_lora leaves room for it: likely still loaded.
    expect<i32>(metrics.isAdapterLoaded(adapter("chat-lora"))).toBe(AdapterState.Resident);
  });

  it("reads the model the server serves from the first waiting series' model_name, unescaped", () => {
    parse(VLLM_PAGE);
    // engine 0's series comes first; engine 1's (another name) does not replace it.
    expect<u64>(metrics.servedModel).toBe(hashNameString(MODEL));
    parse('vllm:num_requests_waiting{engine="0",model_name="org/m\\"q\\""} 1.0\n');
    expect<u64>(metrics.servedModel).toBe(hashNameString('org/m"q"'));
    parse('vllm:num_requests_waiting{engine="0"} 1.0\n');
    expect<u64>(metrics.servedModel).toBe(0);
  });

  it("reads num_gpu_blocks and block_size among many cache_config_info labels", () => {
    parse(VLLM_PAGE);
    expect<bool>(metrics.hasCacheConfig).toBe(true);
    expect<i64>(metrics.numGpuBlocks).toBe(27910);
    expect<i32>(metrics.blockSize).toBe(16);
    expect<i32>(metrics.cacheEngines).toBe(1);
  });

  it("counts the engines of a data-parallel server and reads one engine's share of the server's cache size", () => {
    // vLLM's front end adds up the engines' num_gpu_blocks ("Sum values from all engines in DP case",
    // vllm/v1/engine/utils.py wait_for_engine_startup) and writes that one cache_config for every engine's series
    // (vllm/v1/metrics/loggers.py, PrometheusStatLogger.log_metrics_info): each series carries the server's total.
    parse(
      'vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="55820"} 1.0\n' +
        'vllm:cache_config_info{block_size="16",engine="1",num_gpu_blocks="55820"} 1.0\n',
    );
    expect<i64>(metrics.numGpuBlocks).toBe(27910, "one engine's blocks");
    expect<i32>(metrics.cacheEngines).toBe(2);
    expect<i64>(metrics.numGpuBlocks * <i64>metrics.blockSize * <i64>metrics.cacheEngines).toBe(55820 * 16, "the server's");
    parse(
      'vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="27910"} 1.0\n' +
        'vllm:cache_config_info{block_size="16",engine="1",num_gpu_blocks="None"} 1.0\n',
    );
    expect<i64>(metrics.numGpuBlocks).toBe(27910);
    expect<i32>(metrics.cacheEngines).toBe(1, "a series without figures is not an engine with a cache size");
  });

  it("resets the previous result before parsing", () => {
    parse(VLLM_PAGE);
    expect<bool>(parse("# nothing here\n")).toBe(false);
    expect<bool>(metrics.hasWaiting || metrics.hasRunning || metrics.hasKv || metrics.hasLora).toBe(false);
    expect<i32>(metrics.runningAdapters.count).toBe(0);
    expect<i32>(metrics.engine).toBe(Engine.Unknown);
  });
});

describe("parsePrometheus prefix cache counters", () => {
  it("sums vLLM's queried and hit prompt tokens over engines, and needs both", () => {
    expect(parse(VLLM_PAGE)).toBe(true);
    expect(metrics.hasPrefixCounters).toBe(false, "the page has queries but no hits");
    const page =
      'vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0\n' +
      'vllm:prefix_cache_hits_total{engine="0",model_name="m"} 250.0\n' +
      'vllm:prefix_cache_queries_total{engine="1",model_name="m"} 500.0\n' +
      'vllm:prefix_cache_hits_total{engine="1",model_name="m"} 100.0\n' +
      'vllm:prefix_cache_hits_created{engine="1",model_name="m"} 1.7e9\n';
    expect(parse(page)).toBe(true);
    expect(metrics.hasPrefixCounters).toBe(true);
    expect(metrics.prefixQueries).toBe(1500.0);
    expect(metrics.prefixHits).toBe(350.0);
  });

  it("reads vLLM 0.8's gpu_prefix_cache counters when the current names are absent", () => {
    // vLLM 0.8 V1 named them vllm:gpu_prefix_cache_queries / _hits; 0.9 and 0.10 write both names with the same
    // values ("Deprecated in 0.9 - Renamed as vllm:prefix_cache_queries", vllm/v1/metrics/loggers.py).
    const v08 =
      "# TYPE vllm:gpu_prefix_cache_queries_total counter\n" +
      'vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} 1000.0\n' +
      'vllm:gpu_prefix_cache_queries_total{engine="1",model_name="m"} 500.0\n' +
      "# TYPE vllm:gpu_prefix_cache_hits_total counter\n" +
      'vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} 250.0\n' +
      'vllm:gpu_prefix_cache_hits_total{engine="1",model_name="m"} 100.0\n' +
      'vllm:gpu_prefix_cache_hits_created{engine="1",model_name="m"} 1.7e9\n';
    expect(parse(v08)).toBe(true);
    expect(metrics.engine).toBe(Engine.Vllm);
    expect(metrics.hasPrefixCounters).toBe(true);
    expect(metrics.prefixQueries).toBe(1500.0);
    expect(metrics.prefixHits).toBe(350.0);
    // Both names on one page: the current ones, never the sum of the two.
    const v010 =
      'vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} 999.0\n' +
      'vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} 99.0\n' +
      'vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0\n' +
      'vllm:prefix_cache_hits_total{engine="0",model_name="m"} 250.0\n';
    expect(parse(v010)).toBe(true);
    expect(metrics.prefixQueries).toBe(1000.0);
    expect(metrics.prefixHits).toBe(250.0);
    // A pair is taken whole: current queries without current hits fall back to the old pair.
    const cut =
      'vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} 1000.0\n' +
      'vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} 250.0\n' +
      'vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0\n';
    expect(parse(cut)).toBe(true);
    expect(metrics.hasPrefixCounters).toBe(true);
    expect(metrics.prefixQueries).toBe(1000.0);
    expect(metrics.prefixHits).toBe(250.0);
  });
});

describe("parsePrometheus families", () => {
  it("uses the deprecated gpu_cache_usage_perc when kv_cache_usage_perc is absent", () => {
    expect<bool>(
      parse(
        "# TYPE vllm:gpu_cache_usage_perc gauge\n" +
          'vllm:gpu_cache_usage_perc{model_name="m"} 0.5\n' +
          'vllm:num_requests_waiting{model_name="m"} 0.0\n',
      ),
    ).toBe(true);
    expect<bool>(metrics.hasKv).toBe(true);
    expect<f64>(metrics.kvUsage).toBe(0.5);
    expect<f64>(metrics.waiting).toBe(0.0);
    expect<bool>(metrics.hasWaiting).toBe(true);
    expect<bool>(metrics.hasRunning).toBe(false);
  });

  it("reads SGLang queue, running and token usage", () => {
    const labels = '{engine_type="unified",model_name="Qwen/Qwen2.5-7B-Instruct",pp_rank="0",tp_rank="0"}';
    const page =
      "# HELP sglang:num_running_reqs The number of running requests.\n" +
      "# TYPE sglang:num_running_reqs gauge\n" +
      "sglang:num_running_reqs" + labels + " 12.0\n" +
      "# HELP sglang:num_queue_reqs The number of requests in the waiting queue.\n" +
      "# TYPE sglang:num_queue_reqs gauge\n" +
      "sglang:num_queue_reqs" + labels + " 3.0\n" +
      "# HELP sglang:token_usage The token usage.\n" +
      "# TYPE sglang:token_usage gauge\n" +
      "sglang:token_usage" + labels + " 0.31\n" +
      "sglang:gen_throughput" + labels + " 812.5\n" +
      "sglang:cache_hit_rate" + labels + " 0.72\n";
    expect<bool>(parse(page)).toBe(true);
    expect<i32>(metrics.engine).toBe(Engine.Sglang);
    expect<f64>(metrics.running).toBe(12.0);
    expect<f64>(metrics.waiting).toBe(3.0);
    expect<f64>(metrics.kvUsage).toBe(0.31);
    expect<bool>(metrics.hasLora).toBe(false);
  });

  it("reads SGLang's prompt and cached token counters and its KV pool size", () => {
    const labels = '{model_name="Qwen/Qwen2.5-7B-Instruct"';
    const page =
      "# TYPE sglang:prompt_tokens_total counter\n" +
      "sglang:prompt_tokens_total" + labels + "} 8.128902e+06\n" +
      "# TYPE sglang:cached_tokens_total counter\n" +
      "sglang:cached_tokens_total" + labels + ',cache_source="device"} 5.0e+06\n' +
      "sglang:cached_tokens_total" + labels + ',cache_source="host"} 1.0e+06\n' +
      "sglang:max_total_num_tokens" + labels + "} 412000\n" +
      "sglang:prompt_tokens_histogram_sum" + labels + "} 99\n" +
      "sglang:num_queue_reqs" + labels + "} 1\n";
    expect<bool>(parse(page)).toBe(true);
    expect<bool>(metrics.hasPrefixCounters).toBe(true);
    expect<f64>(metrics.prefixQueries).toBe(8.128902e6);
    expect<f64>(metrics.prefixHits).toBe(6.0e6, "summed over cache sources");
    expect<bool>(metrics.hasCacheConfig).toBe(true);
    expect<i64>(metrics.numGpuBlocks * <i64>metrics.blockSize).toBe(412000, "the pool, in tokens");
    // Each tensor- or pipeline-parallel rank of one engine may report the pool (metrics for all schedulers); only
    // data-parallel engines count apart.
    const ranks = "sglang:prompt_tokens_total 5\nsglang:cached_tokens_total 1\n" +
      'sglang:max_total_num_tokens{model_name="m",tp_rank="0",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{model_name="m",tp_rank="1",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{model_name="m",tp_rank="0",pp_rank="1"} 412000\n' +
      'sglang:max_total_num_tokens{model_name="m",pp_rank="0",tp_rank="10"} 412000\n';
    expect<bool>(parse(ranks)).toBe(true);
    expect<i32>(metrics.cacheEngines).toBe(1, "the ranks of one engine");
    expect<i64>(metrics.numGpuBlocks).toBe(412000);
    const dataParallel = "sglang:prompt_tokens_total 5\nsglang:cached_tokens_total 1\n" +
      'sglang:max_total_num_tokens{model_name="m",dp_rank="0",tp_rank="0",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{model_name="m",dp_rank="1",tp_rank="2",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{model_name="m",dp_rank="1",tp_rank="2",pp_rank="1"} 412000\n';
    expect<bool>(parse(dataParallel)).toBe(true);
    expect<i32>(metrics.cacheEngines).toBe(2, "two data-parallel engines, the second with two pipeline stages");
    // Cut after the first engine's pool: the second's may follow, so the engine count is not known.
    const firstPool = dataParallel.substring(0, dataParallel.indexOf('sglang:max_total_num_tokens{model_name="m",dp_rank="1"'));
    expect<bool>(parse(firstPool, true)).toBe(true);
    expect<bool>(metrics.hasCacheConfig).toBe(false);
    expect<i32>(metrics.cacheEngines).toBe(0);
    expect<bool>(parse(firstPool + "sglang:num_running_reqs 1\n", true)).toBe(true);
    expect<i32>(metrics.cacheEngines).toBe(1, "a line of another metric closes the pools");
    // Metrics for all schedulers with data parallelism: every tensor-parallel rank of an engine carries its dp_rank.
    const allSchedulers = "sglang:prompt_tokens_total 5\nsglang:cached_tokens_total 1\n" +
      'sglang:max_total_num_tokens{dp_rank="0",tp_rank="0",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{dp_rank="0",tp_rank="1",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{dp_rank="1",tp_rank="2",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{dp_rank="1",tp_rank="3",pp_rank="0"} 412000\n' +
      'sglang:max_total_num_tokens{dp_rank="70",tp_rank="4",pp_rank="0"} 412000\n';
    expect<bool>(parse(allSchedulers)).toBe(true);
    expect<i32>(metrics.cacheEngines).toBe(3, "dp_rank 0 and 1 once each; a rank past 63 is not tracked and counts");
    // The tensor-parallel ranks of one engine run one batch: its queue counts once; each data-parallel engine's counts.
    const queues = 'sglang:num_queue_reqs{dp_rank="0",tp_rank="0"} 4\nsglang:num_queue_reqs{dp_rank="0",tp_rank="1"} 4\n' +
      'sglang:num_queue_reqs{dp_rank="1",tp_rank="2"} 2\nsglang:num_queue_reqs{dp_rank="1",tp_rank="3"} 2\n' +
      'sglang:num_running_reqs{tp_rank="0"} 7\nsglang:num_running_reqs{tp_rank="1"} 7\n';
    expect<bool>(parse(queues)).toBe(true);
    expect<f64>(metrics.waiting).toBe(6);
    expect<f64>(metrics.running).toBe(7);
    // Without the pool size or the prompt tokens, neither is known.
    expect<bool>(parse("sglang:cached_tokens_total 5\nsglang:max_total_num_tokens 0\nsglang:num_queue_reqs 1\n")).toBe(true);
    expect<bool>(metrics.hasPrefixCounters).toBe(false);
    expect<bool>(metrics.hasCacheConfig).toBe(false);
  });

  it("reads no SGLang cached_tokens_total series as no cached tokens yet, on a whole page", () => {
    // SGLang creates a cached_tokens_total series at a request's first cached token ("if cached_tokens > 0:
    // self.cached_tokens_total.labels(**labels).inc(cached_tokens)", python/sglang/srt/metrics/collector.py,
    // TokenizerMetricsCollector.observe_one_finished_request): a started or restarted server has none yet.
    const page =
      "# TYPE sglang:prompt_tokens_total counter\n" +
      'sglang:prompt_tokens_total{model_name="m"} 812.0\n' +
      'sglang:max_total_num_tokens{model_name="m",pp_rank="0",tp_rank="0"} 412000.0\n' +
      'sglang:num_queue_reqs{model_name="m",pp_rank="0",tp_rank="0"} 0.0\n';
    expect<bool>(parse(page)).toBe(true);
    expect<bool>(metrics.hasPrefixCounters).toBe(true);
    expect<f64>(metrics.prefixQueries).toBe(812.0);
    expect<f64>(metrics.prefixHits).toBe(0.0);
    // A page cut short (by the caller, or the line budget) may have lost the series: nothing is known.
    expect<bool>(parse(page + 'sglang:num_running_reqs{model_name="m"} 1', true)).toBe(true);
    expect<bool>(metrics.hasPrefixCounters).toBe(false);
    expect<bool>(parse(page, false, 3)).toBe(true);
    expect<bool>(metrics.hasPrefixCounters).toBe(false);
    // vLLM creates both of its counters at start: one missing is a page missing a series.
    expect<bool>(parse('vllm:prefix_cache_queries_total{engine="0",model_name="m"} 812.0\n')).toBe(true);
    expect<bool>(metrics.hasPrefixCounters).toBe(false);
  });

  it("counts SGLang's priority totals, not their per-priority shares too", () => {
    // With --enable-priority-scheduling SGLang labels every scheduler series priority="" and sets num_queue_reqs and
    // num_running_reqs once as the total (priority="") and again per priority (priority="<int>", or "None" for
    // requests without one): python/sglang/srt/observability/metrics_collector.py,
    // SchedulerMetricsCollector.init_new and _log_gauge_queue_count.
    const base = 'engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",';
    const page =
      "# TYPE sglang:num_queue_reqs gauge\n" +
      "sglang:num_queue_reqs{" + base + 'priority="",tp_rank="0"} 5.0\n' +
      "sglang:num_queue_reqs{" + base + 'priority="0",tp_rank="0"} 3.0\n' +
      "sglang:num_queue_reqs{" + base + 'priority="10",tp_rank="0"} 2.0\n' +
      "# TYPE sglang:num_running_reqs gauge\n" +
      "sglang:num_running_reqs{" + base + 'priority="",tp_rank="0"} 8.0\n' +
      "sglang:num_running_reqs{" + base + 'priority="None",tp_rank="0"} 8.0\n' +
      "sglang:max_total_num_tokens{" + base + 'priority="",tp_rank="0"} 412000.0\n';
    expect<bool>(parse(page)).toBe(true);
    expect<f64>(metrics.waiting).toBe(5.0);
    expect<f64>(metrics.running).toBe(8.0);
    expect<i64>(metrics.numGpuBlocks).toBe(412000, "priority=\"\" is the whole");
    // With data parallelism each engine's total still counts once.
    const dataParallel =
      'sglang:num_queue_reqs{dp_rank="0",priority="",tp_rank="0"} 4.0\n' +
      'sglang:num_queue_reqs{dp_rank="0",priority="1",tp_rank="0"} 4.0\n' +
      'sglang:num_queue_reqs{dp_rank="1",priority="1",tp_rank="1"} 1.0\n' +
      'sglang:num_queue_reqs{dp_rank="1",priority="",tp_rank="1"} 1.0\n';
    expect<bool>(parse(dataParallel)).toBe(true);
    expect<f64>(metrics.waiting).toBe(5.0, "a share listed before its total does not stand in for it");
  });

  it("matches whole metric names only", () => {
    const page =
      "vllm:num_requests_waiting_total 9\n" +
      "vllm:num_requests_waitin 9\n" +
      "xvllm:num_requests_waiting 9\n" +
      "vllm_num_requests_waiting 9\n" +
      "vllm:kv_cache_usage_perc_max 0.9\n" +
      "sglang:num_queue_reqs_total 9\n" +
      "vllm:num_requests_running 2\n";
    expect<bool>(parse(page)).toBe(true);
    expect<bool>(metrics.hasWaiting).toBe(false);
    expect<bool>(metrics.hasKv).toBe(false);
    expect<f64>(metrics.running).toBe(2);
  });

  it("uses the newest lora_requests_info series wherever it appears", () => {
    const page =
      'vllm:lora_requests_info{max_lora="2",waiting_lora_adapters="",running_lora_adapters="a"} 1.0e+09\n' +
      'vllm:lora_requests_info{max_lora="3",waiting_lora_adapters="c",running_lora_adapters="b, d"} 3.0e+09\n' +
      'vllm:lora_requests_info{max_lora="5",waiting_lora_adapters="",running_lora_adapters="e"} 2.0e+09\n';
    expect<bool>(parse(page)).toBe(true);
    expect<i32>(metrics.loraMax).toBe(3);
    expect<i32>(metrics.isAdapterLoaded(adapter("b"))).toBe(AdapterState.Running);
    // blanks around a name are not part of it
    expect<i32>(metrics.isAdapterLoaded(adapter("d"))).toBe(AdapterState.Running);
    expect<i32>(metrics.isAdapterLoaded(adapter("c"))).toBe(AdapterState.Waiting);
    expect<i32>(metrics.isAdapterLoaded(adapter("a"))).toBe(AdapterState.NotLoaded);
    expect<i32>(metrics.isAdapterLoaded(adapter("e"))).toBe(AdapterState.NotLoaded);
  });

  it("keeps at most 32 adapters and no duplicates", () => {
    let names = "";
    for (let i = 0; i < 40; i++) names += (i > 0 ? "," : "") + "lora-" + i.toString();
    names += ",lora-0";
    parse('vllm:lora_requests_info{max_lora="64",running_lora_adapters="' + names + '"} 1\n');
    expect<i32>(metrics.runningAdapters.count).toBe(32);
    expect<i32>(metrics.isAdapterLoaded(adapter("lora-31"))).toBe(AdapterState.Running);
    expect<i32>(metrics.isAdapterLoaded(adapter("lora-32"))).toBe(AdapterState.NotLoaded);
  });

  it("rejects cache_config_info without usable block figures", () => {
    expect<bool>(parse('vllm:cache_config_info{block_size="16",num_gpu_blocks="None"} 1.0\n')).toBe(false);
    expect<bool>(metrics.hasCacheConfig).toBe(false);
  });
});

describe("parsePrometheus values", () => {
  it("ignores NaN, negative and infinite samples of a family", () => {
    const page =
      'vllm:num_requests_waiting{engine="0"} NaN\n' +
      'vllm:num_requests_waiting{engine="1"} 3\n' +
      'vllm:num_requests_running{engine="0"} -1\n' +
      'vllm:num_requests_running{engine="1"} +Inf\n' +
      'vllm:kv_cache_usage_perc{engine="0"} -0.1\n' +
      'vllm:kv_cache_usage_perc{engine="1"} -Inf\n';
    expect<bool>(parse(page)).toBe(true);
    expect<f64>(metrics.waiting).toBe(3);
    expect<bool>(metrics.hasWaiting).toBe(true);
    expect<bool>(metrics.hasRunning).toBe(false);
    expect<f64>(metrics.running).toBe(0);
    expect<bool>(metrics.hasKv).toBe(false);
  });

  it("takes no count past 2^53, so sums stay finite and the stock build's record encodes", () => {
    const page =
      'vllm:num_requests_waiting{engine="0"} 1e308\n' +
      'vllm:num_requests_waiting{engine="1"} 1e308\n' +
      'vllm:num_requests_waiting{engine="2"} 9007199254740992\n' +
      'vllm:num_requests_running{engine="0"} 1.7e308\n' +
      'vllm:num_requests_running{engine="1"} 1.7e308\n' +
      'vllm:prefix_cache_queries_total{engine="0"} 1e308\n' +
      'vllm:prefix_cache_queries_total{engine="1"} 1e308\n' +
      'vllm:prefix_cache_hits_total{engine="0"} 5\n';
    expect<bool>(parse(page)).toBe(true);
    expect<f64>(metrics.waiting).toBe(9007199254740992);
    expect<bool>(metrics.hasRunning).toBe(false);
    expect<bool>(metrics.hasPrefixCounters).toBe(false);
    const record = new ArrayBuffer(METRICS_RECORD_MAX_BYTES);
    expect<i32>(encodeMetricsRecord(metrics, true, 1, changetype<usize>(record), record.byteLength)).toBeGreaterThan(0);
  });

  it("counts a series written twice once, as its first sample, whatever the order of its labels", () => {
    const page =
      'vllm:num_requests_waiting{engine="0",model_name="m"} 3.0\n' +
      'vllm:num_requests_waiting{engine="1",model_name="m"} 4.0\n' +
      'vllm:num_requests_waiting{model_name="m",engine="0"} 5.0\n' +
      "vllm:num_requests_running 2.0\n" +
      "vllm:num_requests_running 2.0\n" +
      'vllm:prefix_cache_queries_total{engine="0",model_name="m"} 100.0\n' +
      'vllm:prefix_cache_queries_total{engine="0",model_name="m"} 100.0\n' +
      'vllm:prefix_cache_hits_total{engine="0",model_name="m"} 40.0\n' +
      'vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="1000"} 1.0\n' +
      'vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="1000"} 1.0\n';
    expect<bool>(parse(page)).toBe(true);
    expect<f64>(metrics.waiting).toBe(3 + 4);
    expect<f64>(metrics.running).toBe(2);
    expect<f64>(metrics.prefixQueries).toBe(100);
    // One engine's series, not two engines sharing 1000 blocks.
    expect<i32>(metrics.cacheEngines).toBe(1);
    expect<i64>(metrics.numGpuBlocks).toBe(1000);
    // A label value differing only in an escape is another series.
    parse('vllm:num_requests_waiting{model_name="a\\"b"} 1\nvllm:num_requests_waiting{model_name="a\\\\b"} 2\n');
    expect<f64>(metrics.waiting).toBe(3);
  });

  it("returns false when every recognized sample is invalid", () => {
    expect<bool>(parse("vllm:num_requests_waiting NaN\nvllm:kv_cache_usage_perc -0.5\n")).toBe(false);
    expect<bool>(metrics.hasWaiting || metrics.hasKv).toBe(false);
  });

  it("reads KV usage as the 0..1 fraction the engines export, above 1 as full", () => {
    // vLLM: "KV-cache usage. 1 means 100 percent usage." (vllm/v1/metrics/loggers.py); SGLang's token_usage is
    // used / max_total_num_tokens. Neither ever writes a percentage, so 45 is not 0.45.
    parse("vllm:kv_cache_usage_perc 45\n");
    expect<f64>(metrics.kvUsage).toBe(1.0);
    parse("vllm:gpu_cache_usage_perc 1.0000001\n");
    expect<f64>(metrics.kvUsage).toBe(1.0);
    parse("sglang:token_usage 2.5\n");
    expect<f64>(metrics.kvUsage).toBe(1.0);
    parse("vllm:kv_cache_usage_perc 1.0\n");
    expect<f64>(metrics.kvUsage).toBe(1.0);
    parse("vllm:kv_cache_usage_perc 0.0\n");
    expect<f64>(metrics.kvUsage).toBe(0.0);
    expect<bool>(metrics.hasKv).toBe(true);
  });

  it("parses decimal, exponent and signed forms like parseFloat", () => {
    const forms: string[] = [
      "0", "0.0", "12", "1.5e1", "25e-1", "2E+1", "+3", ".5", "5.", "0.4375", "0.1", "3.14159",
      "1.7473264571234e+09", "6.02214076e23", "1e-5", "123456789012345678901234", "0.000000000000000000000001",
      "00017", "1e0",
    ];
    // Read as a target metric's sample, which takes any finite value (counts stop at 2^53).
    const target = String.UTF8.encode("q");
    for (let i = 0; i < forms.length; i++) {
      const s = forms[i];
      const buf = String.UTF8.encode("q " + s + "\n");
      const ok = parser.parseWithTarget(
        changetype<usize>(buf), <usize>buf.byteLength, false, metrics, 1 << 20, changetype<usize>(target), <usize>target.byteLength,
      );
      expect<bool>(ok).toBe(true, s);
      const want = parseFloat(s);
      const got = metrics.targetValue;
      expect<bool>(Math.abs(got - want) <= want * 1e-15).toBe(true, s);
    }
  });

  it("ignores a trailing timestamp and accepts CRLF line ends", () => {
    parse("vllm:num_requests_waiting 3 1700000000000\r\nvllm:num_requests_running 4\r\n");
    expect<f64>(metrics.waiting).toBe(3);
    expect<f64>(metrics.running).toBe(4);
  });

  it("skips malformed sample lines", () => {
    const page =
      "vllm:num_requests_waiting 12abc\n" +
      "vllm:num_requests_waiting{ 5\n" +
      'vllm:num_requests_waiting{model_name="x} 5\n' +
      'vllm:num_requests_waiting{model_name=x} 5\n' +
      'vllm:num_requests_waiting{="x"} 5\n' +
      'vllm:num_requests_waiting{a="x"}=5\n' +
      "vllm:num_requests_waiting\n" +
      "vllm:num_requests_waiting 1e\n" +
      "vllm:num_requests_waiting -\n" +
      "vllm:num_requests_waiting Nope\n" +
      "vllm:num_requests_running 6\n";
    expect<bool>(parse(page)).toBe(true);
    expect<bool>(metrics.hasWaiting).toBe(false);
    expect<f64>(metrics.running).toBe(6);
  });
});

describe("parsePrometheus labels", () => {
  it("reads blanks around the label set as optional, like expfmt's text parser", () => {
    const page =
      'vllm:num_requests_waiting {engine="0",model_name="m"} 3\n' +
      'vllm:num_requests_waiting\t{engine="1",model_name="m"}4\n' +
      'vllm:num_requests_running{engine="0",model_name="m"}\t\t2 1700000000000\n' +
      'vllm:kv_cache_usage_perc {engine="0",model_name="m"}0.5\n';
    expect<bool>(parse(page)).toBe(true);
    expect<f64>(metrics.waiting).toBe(3 + 4);
    expect<f64>(metrics.running).toBe(2);
    expect<f64>(metrics.kvUsage).toBe(0.5);
  });

  it("skips escaped quotes, backslashes, newlines, commas and braces in label values", () => {
    const page =
      'vllm:num_requests_waiting{model_name="a\\"b}, c=\\"d\\\\",x="y\\nz",} 7\n' +
      'vllm:num_requests_running{ model_name = "m" , engine="0" } 1\n';
    expect<bool>(parse(page)).toBe(true);
    expect<f64>(metrics.waiting).toBe(7);
    expect<f64>(metrics.running).toBe(1);
  });

  it("hashes adapter names unescaped", () => {
    // Label text: running_lora_adapters="we\"ird,back\\slash,new\nline"
    parse('vllm:lora_requests_info{running_lora_adapters="we\\"ird,back\\\\slash,new\\nline"} 1\n');
    expect<i32>(metrics.runningAdapters.count).toBe(3);
    expect<i32>(metrics.isAdapterLoaded(adapter('we"ird'))).toBe(AdapterState.Running);
    expect<i32>(metrics.isAdapterLoaded(adapter("back\\slash"))).toBe(AdapterState.Running);
    expect<i32>(metrics.isAdapterLoaded(adapter("new\nline"))).toBe(AdapterState.Running);
  });

  it("hashes a string the same as its UTF-8 bytes", () => {
    const names: string[] = ["", "sql-lora", "Ünïcødé-lora", "emoji-😀", "lone-\uD800-surrogate"];
    for (let i = 0; i < names.length; i++) {
      const buf = String.UTF8.encode(names[i]);
      expect<u64>(hashNameString(names[i])).toBe(hashNameBytes(changetype<usize>(buf), <usize>buf.byteLength));
    }
    expect<u64>(hashNameString("a")).not.toBe(hashNameString("b"));
  });
});

const FULL = "vllm:num_requests_running 3\nvllm:num_requests_waiting 12\n";

describe("parsePrometheus truncation and budget", () => {
  it("drops a partial last line of a truncated body", () => {
    const cut = FULL.substring(0, FULL.length - 2); // "... waiting 1"
    expect<bool>(parse(cut, true)).toBe(true);
    expect<f64>(metrics.running).toBe(3);
    expect<bool>(metrics.hasWaiting).toBe(false);
  });

  it("reads every line of a body truncated at a line boundary, but not the last line's metric", () => {
    // Its series may go on past the cut (one per engine of a data-parallel server): their sum is not known.
    expect<bool>(parse(FULL, true)).toBe(true);
    expect<bool>(metrics.hasWaiting).toBe(false);
    expect<f64>(metrics.running).toBe(3);
  });

  it("reads no sum, maximum or engine count of a family a cut page may hold only part of", () => {
    const page =
      'vllm:num_requests_waiting{engine="0",model_name="m"} 2.0\n' +
      'vllm:num_requests_waiting{engine="1",model_name="m"} 5.0\n' +
      "# HELP vllm:num_requests_running Number of requests in model execution batches.\n" +
      'vllm:num_requests_running{engine="0",model_name="m"} 1.0\n' +
      'vllm:num_requests_running{engine="1",model_name="m"} 1.0\n' +
      'vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.5\n' +
      'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5\n' +
      'vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="4000"} 1.0\n' +
      'vllm:cache_config_info{block_size="16",engine="1",num_gpu_blocks="4000"} 1.0\n';
    // Cut inside the running series: waiting is whole (a comment followed it), running is not.
    const inRunning = page.indexOf('vllm:num_requests_running{engine="1"') + 20;
    expect<bool>(parse(page.substring(0, inRunning), true)).toBe(true);
    expect<f64>(metrics.waiting).toBe(7);
    expect<bool>(metrics.hasRunning).toBe(false);
    // A cut name that may still be the same metric's tells nothing; a whole other name closes it.
    const afterWaiting = page.indexOf("# HELP");
    parse(page.substring(0, afterWaiting + 1) , true);
    expect<f64>(metrics.waiting).toBe(7);
    parse(page.substring(0, afterWaiting - 50), true);
    expect<bool>(metrics.hasWaiting).toBe(false);
    // KV usage cut in kv_cache_usage_perc falls back to the whole gpu_cache_usage_perc before it.
    const inKv = page.indexOf("vllm:cache_config_info");
    parse(page.substring(0, inKv + 10), true);
    expect<bool>(metrics.hasKv).toBe(true);
    parse(page.substring(0, inKv), true);
    expect<bool>(metrics.hasKv).toBe(true);
    expect<f64>(metrics.kvUsage).toBe(0.5);
    // One engine's cache_config_info of two read the server's total as one engine's: none rather than double.
    parse(page.substring(0, page.indexOf('engine="1",num_gpu_blocks') + 5), true);
    expect<bool>(metrics.hasCacheConfig).toBe(false);
    parse(page, true);
    expect<bool>(metrics.hasCacheConfig).toBe(false);
    parse(page, false);
    expect<i64>(metrics.numGpuBlocks).toBe(2000);
    expect<i32>(metrics.cacheEngines).toBe(2);
  });

  it("reads a last line without newline when the body is complete", () => {
    parse(FULL.substring(0, FULL.length - 1), false);
    expect<f64>(metrics.waiting).toBe(12);
  });

  it("reports no LoRA state from a page cut inside lora_requests_info, where a newer series may follow", () => {
    const lora =
      "# HELP vllm:lora_requests_info Running stats on lora requests.\n" +
      "# TYPE vllm:lora_requests_info gauge\n" +
      'vllm:lora_requests_info{max_lora="2",running_lora_adapters="a",waiting_lora_adapters=""} 1.7e+09\n' +
      'vllm:lora_requests_info{max_lora="2",running_lora_adapters="b",waiting_lora_adapters="a"} 1.6e+09\n';
    const next = "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n";
    expect<bool>(parse("vllm:num_requests_waiting 4\n" + lora + 'vllm:lora_requests_info{max_lora="2",running_lo', true)).toBe(true);
    expect<f64>(metrics.waiting).toBe(4);
    expect<bool>(metrics.hasLora).toBe(false);
    expect<i32>(metrics.loraMax).toBe(0);
    expect<i32>(metrics.isAdapterLoaded(adapter("a"))).toBe(AdapterState.NotLoaded);
    // With nothing else on it, such a page has nothing to read.
    expect<bool>(parse(lora, true)).toBe(false);
    // The line budget cuts it alike.
    parse("vllm:num_requests_waiting 4\n" + lora + next, false, 4);
    expect<bool>(metrics.hasLora).toBe(false);
    parse("vllm:num_requests_waiting 4\n" + lora + next, false, 5);
    expect<bool>(metrics.hasLora).toBe(true);
    // A line of the next family shows the family ended before the cut; a whole page may end with it.
    parse("vllm:num_requests_waiting 4\n" + lora + next + "vllm:cache_conf", true);
    expect<bool>(metrics.hasLora).toBe(true);
    expect<i32>(metrics.isAdapterLoaded(adapter("a"))).toBe(AdapterState.Running);
    parse("vllm:num_requests_waiting 4\n" + lora, false);
    expect<bool>(metrics.hasLora).toBe(true);
    expect<i32>(metrics.loraMax).toBe(2);
  });

  it("reads nothing from a truncated body with no newline", () => {
    expect<bool>(parse("vllm:num_requests_waiting 1", true)).toBe(false);
  });

  it("examines at most maxLines lines, comments included", () => {
    const page = "# HELP x\n# TYPE x gauge\n\nprocess_cpu_seconds_total 1\nvllm:num_requests_waiting 2\n";
    expect<bool>(parse(page, false, 4)).toBe(false);
    expect<bool>(parse(page, false, 5)).toBe(true);
    expect<f64>(metrics.waiting).toBe(2);
    expect<bool>(parse(page, false, 0)).toBe(false);
  });

  it("says whether it read the whole page: not when cut by the caller or stopped by the line budget", () => {
    const page = "vllm:num_requests_waiting 2\nvllm:num_requests_running 1\n";
    expect<bool>(parse(page, false, 2)).toBe(true);
    expect<bool>(parser.readWhole).toBe(true);
    expect<bool>(parse(page, false, 1)).toBe(true);
    expect<bool>(parser.readWhole).toBe(false);
    expect<bool>(parse(page, true, 2)).toBe(true);
    expect<bool>(parser.readWhole).toBe(false);
  });

  it("handles empty input", () => {
    expect<bool>(parser.parse(0, 0, false, metrics, 100)).toBe(false);
  });
});

// Deterministic xorshift for the fuzz cases.
let fuzzState: u32 = 0x9e3779b9;
function fuzzNext(): u32 {
  let x = fuzzState;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  fuzzState = x;
  return x;
}

describe("parsePrometheus on garbage", () => {
  it("rejects binary noise", () => {
    const buf = new ArrayBuffer(4096);
    const p = changetype<usize>(buf);
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 4096; i++) store<u8>(p + i, <u8>fuzzNext());
      parser.parse(p, 4096, round % 2 == 0, metrics, 100000);
      // Whatever was read stays within the documented ranges.
      expect<bool>(metrics.waiting >= 0 && metrics.running >= 0).toBe(true);
      expect<bool>(metrics.kvUsage >= 0 && metrics.kvUsage <= 1).toBe(true);
    }
  });

  it("survives recombined fragments of real lines and keeps values in range", () => {
    const pieces: string[] = [
      "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc", "vllm:lora_requests_info", "sglang:token_usage",
      "vllm:cache_config_info", "{", "}", '"', "\\", ",", "=", " ", "\n", "model_name", 'running_lora_adapters="a,b',
      "NaN", "-Inf", "1e+", "0.5", "-3", "17", "#", "\r", 'num_gpu_blocks="12', 'block_size="', "9999999999999999999999",
    ];
    const buf = new ArrayBuffer(512);
    const p = changetype<usize>(buf);
    for (let round = 0; round < 2000; round++) {
      let n = 0;
      while (n < 480) {
        const piece = pieces[<i32>(fuzzNext() % <u32>pieces.length)];
        for (let k = 0; k < piece.length && n < 512; k++) store<u8>(p + n++, <u8>piece.charCodeAt(k));
      }
      const ok = parser.parse(p, n, (round & 1) == 1, metrics, 1000);
      const any = metrics.hasWaiting || metrics.hasRunning || metrics.hasKv || metrics.hasLora || metrics.hasCacheConfig;
      expect<bool>(ok).toBe(any);
      expect<bool>(metrics.waiting >= 0 && metrics.waiting < Infinity).toBe(true);
      expect<bool>(metrics.kvUsage >= 0 && metrics.kvUsage <= 1).toBe(true);
    }
  });
});
