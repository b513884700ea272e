import { PrometheusParser } from "../../assembly/endpoints/prometheus";

import { EndpointMetrics } from "../../assembly/endpoints/endpoint-metrics";

const parser = new PrometheusParser();

const metrics = new EndpointMetrics();
const plain = new EndpointMetrics();

function parseTarget(text: string, target: string, truncated: bool = false): bool {
  const buf = String.UTF8.encode(text);
  const name = String.UTF8.encode(target);
  return parser.parseWithTarget(
    changetype<usize>(buf),
    <usize>buf.byteLength,
    truncated,
    metrics,
    1 << 20,
    changetype<usize>(name),
    <usize>name.byteLength,
  );
}

function parsePlain(text: string): bool {
  const buf = String.UTF8.encode(text);
  return parser.parse(changetype<usize>(buf), <usize>buf.byteLength, false, plain, 1 << 20);
}

const PAGE =
  "# HELP my_queue_depth Requests queued in the custom server.\n" +
  "# TYPE my_queue_depth gauge\n" +
  'my_queue_depth{shard="a"} 3\n' +
  'my_queue_depth{shard="b",note="x \\"quoted\\" y"} 4.5\n' +
  "my_queue_depth_total 1000\n" +
  'my_queue_depth_bucket{le="1"} 77\n' +
  "my_queue 9\n" +
  'vllm:num_requests_waiting{model_name="m"} 2.0\n' +
  'vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.25\n' +
  'vllm:gpu_cache_usage_perc{engine="1",model_name="m"} 0.5\n' +
  "my_queue_depth 1e1 1712345678000\n";

describe("parsePrometheusWithTarget", () => {
  it("sums every series of the target and only whole-name matches", () => {
    expect<bool>(parseTarget(PAGE, "my_queue_depth")).toBe(true);
    expect<bool>(metrics.hasTarget).toBe(true);
    expect<f64>(metrics.targetValue).toBe(3 + 4.5 + 10);
    // The vLLM signals are read as without a target.
    expect<f64>(metrics.waiting).toBe(2.0);
    expect<f64>(metrics.kvUsage).toBe(0.5);
  });

  it("reads a vllm: target while the same lines still feed their family", () => {
    expect<bool>(parseTarget(PAGE, "vllm:gpu_cache_usage_perc")).toBe(true);
    expect<f64>(metrics.targetValue).toBe(0.25 + 0.5);
    expect<bool>(metrics.hasKv).toBe(true);
    expect<f64>(metrics.kvUsage).toBe(0.5);
  });

  it("reports no target when the metric is absent", () => {
    expect<bool>(parseTarget(PAGE, "not_there")).toBe(true);
    expect<bool>(metrics.hasTarget).toBe(false);
    expect<f64>(metrics.targetValue).toBe(0);
    // A name that is a prefix of present names is not present itself.
    parseTarget(PAGE, "my_queue_dep");
    expect<bool>(metrics.hasTarget).toBe(false);
  });

  it("counts a target-only page as recognized", () => {
    expect<bool>(parseTarget("my_queue_depth 5\n", "my_queue_depth")).toBe(true);
    expect<f64>(metrics.targetValue).toBe(5);
    expect<bool>(parseTarget("other_metric 5\n", "my_queue_depth")).toBe(false);
  });

  it("reads target samples with or without blanks around their labels", () => {
    expect<bool>(parseTarget('q {shard="a"} 1\nq{shard="b"}2\nq\t{shard="c"}\t4\n', "q")).toBe(true);
    expect<f64>(metrics.targetValue).toBe(1 + 2 + 4);
  });

  it("reports no target when its finite samples add up past the largest float", () => {
    expect<bool>(parseTarget('q{s="a"} 1.7e308\nq{s="b"} 1.7e308\nvllm:num_requests_waiting 2\n', "q")).toBe(true);
    expect<bool>(metrics.hasTarget).toBe(false);
    expect<f64>(metrics.targetValue).toBe(0);
    expect<f64>(metrics.waiting).toBe(2);
  });

  it("counts a target series written twice once", () => {
    expect<bool>(parseTarget('q{a="1",b="2"} 3\nq{b="2",a="1"} 3\nq{a="2",b="2"} 4\nq 1\nq 1\n', "q")).toBe(true);
    expect<f64>(metrics.targetValue).toBe(3 + 4 + 1);
  });

  it("skips non-finite and malformed target samples", () => {
    const page =
      "q NaN\n" + "q +Inf\n" + "q{a=\"1\"} -Inf\n" + "q{a=\"1\" 4\n" + "q 7x\n" + "q\t2\n" + "q{s=\"b\"} -0.5\n";
    expect<bool>(parseTarget(page, "q")).toBe(true);
    expect<f64>(metrics.targetValue).toBe(2 - 0.5);
  });

  it("drops a cut last line of a truncated body, and the target when its series may go on past the cut", () => {
    parseTarget("q 1\nr 2", "q", true);
    expect<f64>(metrics.targetValue).toBe(1);
    parseTarget('q{s="a"} 1\nq{s="b"} 2', "q", true);
    expect<bool>(metrics.hasTarget).toBe(false);
    parseTarget('q{s="a"} 1\nq{s="b"} 2', "q", false);
    expect<f64>(metrics.targetValue).toBe(3);
  });

  it("clears the previous target result", () => {
    parseTarget("q 1\n", "q");
    expect<bool>(metrics.hasTarget).toBe(true);
    parseTarget("r 1\n", "q");
    expect<bool>(metrics.hasTarget).toBe(false);
    expect<f64>(metrics.targetValue).toBe(0);
  });

  it("without a target reads exactly what parsePrometheus reads", () => {
    const buf = String.UTF8.encode(PAGE);
    const withEmpty = parser.parseWithTarget(changetype<usize>(buf), <usize>buf.byteLength, false, metrics, 1 << 20, 0, 0);
    const without = parsePlain(PAGE);
    expect<bool>(withEmpty).toBe(without);
    expect<bool>(metrics.hasTarget).toBe(false);
    expect<f64>(metrics.waiting).toBe(plain.waiting);
    expect<f64>(metrics.kvUsage).toBe(plain.kvUsage);
    expect<bool>(plain.hasTarget).toBe(false);
  });

  it("matches the target name against each line's bytes, not a prefix of it", () => {
    // A target longer than the line, or equal to a line's whole content without a value.
    expect<bool>(parseTarget("ab\nabc 1\n", "abcd")).toBe(false);
    expect<bool>(parseTarget("abcd\n", "abcd")).toBe(false);
    expect<bool>(metrics.hasTarget).toBe(false);
  });
});
