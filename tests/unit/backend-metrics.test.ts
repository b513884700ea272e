import assert from "node:assert/strict";
import { test } from "node:test";
import { Engine, type EngineEvent } from "../../src-host/backend/engine.ts";
import { TTFT_BUCKETS_SECONDS } from "../../src-host/backend/histogram.ts";
import { formatPromValue, pythonFloatRepr, renderVllmMetrics } from "../../src-host/backend/metrics.ts";
import { LoraInfoSeries } from "../../src-host/backend/lora-info-series.ts";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Family {
  help?: string;
  type?: string;
}

/** A strict little parser for the Prometheus text format (0.0.4). Throws on any malformed line. */
function parseExposition(text: string): { families: Map<string, Family>; samples: Sample[] } {
  assert.ok(text.endsWith("\n"), "exposition ends with a newline");
  const families = new Map<string, Family>();
  const samples: Sample[] = [];
  const name = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  const sampleRe = new RegExp(`^(${name})(\\{(.*)\\})? (\\S+)$`);
  const labelRe = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/;
  for (const line of text.slice(0, -1).split("\n")) {
    let m: RegExpMatchArray | null;
    if ((m = line.match(new RegExp(`^# HELP (${name}) (.*)$`)))) {
      const f = families.get(m[1]) ?? {};
      assert.equal(f.help, undefined, `duplicate HELP for ${m[1]}`);
      families.set(m[1], { ...f, help: m[2] });
    } else if ((m = line.match(new RegExp(`^# TYPE (${name}) (counter|gauge|histogram|summary|untyped)$`)))) {
      const f = families.get(m[1]) ?? {};
      assert.equal(f.type, undefined, `duplicate TYPE for ${m[1]}`);
      families.set(m[1], { ...f, type: m[2] });
    } else if ((m = line.match(sampleRe))) {
      const labels: Record<string, string> = {};
      let rest = m[3] ?? "";
      while (rest.length > 0) {
        const l = rest.match(labelRe);
        assert.ok(l, `bad labels in: ${line}`);
        labels[l[1]] = l[2].replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
        rest = rest.slice(l[0].length);
      }
      const value = m[4] === "+Inf" ? Infinity : m[4] === "-Inf" ? -Infinity : Number(m[4]);
      assert.ok(!Number.isNaN(value) || m[4] === "NaN", `bad value in: ${line}`);
      samples.push({ name: m[1], labels, value });
    } else {
      assert.fail(`unparseable line: ${JSON.stringify(line)}`);
    }
  }
  return { families, samples };
}

function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

function runWorkload(engine: Engine): void {
  const prompt = Array.from({ length: 700 }, (_, i) => i + 1);
  const events: EngineEvent[] = [];
  for (let i = 0; i < 5; i++) engine.submit({ id: i, promptTokens: prompt, maxTokens: 10, lora: i % 2 ? "sql" : undefined }, i * 1000);
  for (let t = engine.nextEventTime(); t !== Infinity; t = engine.nextEventTime()) engine.advance(t, events);
  // One request still waiting/running when metrics are taken.
  engine.submit({ id: "late", promptTokens: prompt, maxTokens: 10, lora: "chat" }, 1e6);
}

test("numbers are formatted like prometheus_client (Python repr, Go-style exponents)", () => {
  // Expected strings follow Python's repr() and prometheus_client.utils.floatToGoString.
  assert.equal(pythonFloatRepr(0), "0.0");
  assert.equal(pythonFloatRepr(3), "3.0");
  assert.equal(pythonFloatRepr(0.25), "0.25");
  assert.equal(pythonFloatRepr(1e-5), "1e-05");
  assert.equal(pythonFloatRepr(0.0001), "0.0001");
  assert.equal(pythonFloatRepr(1e16), "1e+16");
  assert.equal(pythonFloatRepr(123456789012345.6), "123456789012345.6");
  assert.equal(pythonFloatRepr(-2.5), "-2.5");
  assert.equal(formatPromValue(1000), "1000.0");
  assert.equal(formatPromValue(177479648), "1.77479648e+08");
  assert.equal(formatPromValue(1786910601.1177013), "1.7869106011177013e+09");
  assert.equal(formatPromValue(2560), "2560.0");
  assert.equal(formatPromValue(Infinity), "+Inf");
  assert.equal(formatPromValue(0.001), "0.001");
  // Round trip: whatever the format, the value parses back exactly.
  for (const v of [0.1, 1 / 3, 12345678.9, 2 ** 40, 6.02e23, 5e-324]) assert.equal(Number(formatPromValue(v)), v);
});

test("/metrics text parses and carries vLLM's families, types, labels and values", () => {
  const engine = new Engine({ kvTokens: 8192, maxNumSeqs: 4 });
  runWorkload(engine);
  const m = engine.metrics();
  const text = renderVllmMetrics(m, { modelName: 'org/model "x"', nowSeconds: 1_700_000_123.5, createdSeconds: 1_700_000_000, lora: { maxLoras: 2 } });
  const { families, samples } = parseExposition(text);
  const base = { engine: "0", model_name: 'org/model "x"' };

  const expectType: Record<string, string> = {
    "vllm:num_requests_running": "gauge",
    "vllm:num_requests_waiting": "gauge",
    "vllm:kv_cache_usage_perc": "gauge",
    "vllm:prefix_cache_queries_total": "counter",
    "vllm:prefix_cache_hits_total": "counter",
    "vllm:time_to_first_token_seconds": "histogram",
    "vllm:cache_config_info": "gauge",
    "vllm:lora_requests_info": "gauge",
  };
  for (const [name, type] of Object.entries(expectType)) {
    assert.equal(families.get(name)?.type, type, `${name} TYPE`);
    assert.ok((families.get(name)?.help ?? "").length > 0, `${name} HELP`);
  }
  // Every sample belongs to a declared family, and its labels are written in sorted order.
  for (const line of text.split("\n").filter((l) => l.length > 0 && !l.startsWith("#"))) {
    const keys = [...line.matchAll(/([a-z_]+)="/g)].map((x) => x[1]);
    assert.deepEqual(keys, [...keys].sort(), `labels sorted: ${line}`);
  }
  for (const s of samples) {
    const fam = s.name.replace(/_(bucket|count|sum)$/, "");
    assert.ok(families.has(s.name) || families.get(fam)?.type === "histogram", `family declared for ${s.name}`);
  }

  const one = (name: string, labels: Record<string, string> = base) => {
    const got = find(samples, name, labels);
    assert.equal(got.length, 1, `exactly one ${name}`);
    assert.deepEqual(Object.keys(got[0].labels).sort(), Object.keys(labels).sort(), `${name} label set`);
    return got[0].value;
  };
  assert.equal(one("vllm:num_requests_running"), m.numRequestsRunning);
  assert.equal(one("vllm:num_requests_waiting"), m.numRequestsWaiting);
  assert.equal(m.numRequestsRunning + m.numRequestsWaiting, 1);
  assert.equal(one("vllm:kv_cache_usage_perc"), m.kvCacheUsage);
  assert.equal(one("vllm:prefix_cache_queries_total"), 700 * 5);
  // Requests 0, 2, 4 run on the base model and 1, 3 on the "sql" adapter, whose blocks are keyed apart: the first of
  // each computes the prompt, the three others hit every full block but the last token's.
  assert.equal(one("vllm:prefix_cache_hits_total"), 3 * Math.floor(699 / 16) * 16);
  assert.equal(one("vllm:prefix_cache_queries_created"), 1_700_000_000);

  // TTFT histogram: vLLM's buckets, cumulative, +Inf equals count, count equals first tokens seen.
  const buckets = find(samples, "vllm:time_to_first_token_seconds_bucket", base);
  assert.deepEqual(buckets.map((b) => b.labels.le), [...TTFT_BUCKETS_SECONDS.map(formatPromValue), "+Inf"]);
  assert.equal(buckets[0].labels.le, "0.001");
  assert.equal(buckets[11].labels.le, "1.0");
  for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i].value >= buckets[i - 1].value);
  const count = one("vllm:time_to_first_token_seconds_count");
  assert.equal(count, 5);
  assert.equal(buckets[buckets.length - 1].value, count);
  assert.ok(one("vllm:time_to_first_token_seconds_sum") > 0);

  const info = find(samples, "vllm:cache_config_info");
  assert.equal(info.length, 1);
  assert.equal(info[0].value, 1);
  assert.equal(info[0].labels.block_size, "16");
  assert.equal(info[0].labels.num_gpu_blocks, "512");
  assert.equal(info[0].labels.enable_prefix_caching, "True");
  assert.equal(info[0].labels.engine, "0");
  assert.match(text, /^vllm:cache_config_info\{block_size="16",.*\} 1\.0$/m);

  const lora = find(samples, "vllm:lora_requests_info");
  assert.equal(lora.length, 1);
  assert.deepEqual(Object.keys(lora[0].labels).sort(), ["max_lora", "running_lora_adapters", "waiting_lora_adapters"]);
  assert.equal(lora[0].labels.max_lora, "2");
  assert.equal([lora[0].labels.running_lora_adapters, lora[0].labels.waiting_lora_adapters].join(""), "chat");
  assert.equal(lora[0].value, 1_700_000_123.5);

  const success = find(samples, "vllm:request_success_total", base);
  assert.deepEqual(success.map((s) => s.labels.finished_reason).sort(), ["abort", "length", "stop"]);
  assert.equal(find(samples, "vllm:request_success_total", { finished_reason: "length" })[0].value, 5);
});

test("vllm:lora_requests_info is absent when LoRA is not configured", () => {
  const engine = new Engine();
  const text = renderVllmMetrics(engine.metrics(), { modelName: "m", nowSeconds: 2, createdSeconds: 1 });
  const { families } = parseExposition(text);
  assert.equal(families.has("vllm:lora_requests_info"), false);
  assert.match(text, /^vllm:num_requests_waiting\{engine="0",model_name="m"\} 0\.0$/m);
});

test("vllm:lora_requests_info keeps a series per adapter set the server had, each at the time it was last current", () => {
  const engine = new Engine();
  const series = new LoraInfoSeries();
  series.set(["sql"], [], 100);
  series.set(["sql", "chat"], ["tool"], 200);
  series.set(["sql"], [], 300);
  const text = renderVllmMetrics(engine.metrics(), {
    modelName: "m", nowSeconds: 400, createdSeconds: 1, lora: { maxLoras: 4, series: series.samples() },
  });
  const { families, samples } = parseExposition(text);
  assert.equal(families.get("vllm:lora_requests_info")?.type, "gauge");
  // In the order first set, as prometheus_client keeps a gauge's children; a set seen again keeps its place.
  const lora = find(samples, "vllm:lora_requests_info");
  assert.deepEqual(
    lora.map((s) => [s.labels.running_lora_adapters, s.labels.waiting_lora_adapters, s.labels.max_lora, s.value]),
    [["sql", "", "4", 300], ["sql,chat", "tool", "4", 200]],
  );
});
