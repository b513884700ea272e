import { EndpointConfig, MetricPolicy, PickerConfig } from "../../assembly/config/picker-config";
import { PluginConfig } from "../../assembly/config/plugin-config";
import { ONE_ENDPOINT, expectInvalid, expectMentions, expectNotMentions, higress, stock } from "./support/config-parse";
import { PrefixIndex } from "../../assembly/prefix/prefix-index";

/** The documented defaults (docs/config.md), written out independently of the class initializers. */
function expectDocumentedDefaults(c: PickerConfig): void {
  expect(c.scoring.weight("queue")).toBe(2);
  expect(c.scoring.weight("kvCache")).toBe(2);
  expect(c.scoring.weight("prefixCache")).toBe(3);
  expect(c.scoring.weight("inflight")).toBe(1);
  expect(c.scoring.weight("loraAffinity")).toBe(1);
  expect(c.scoring.weight("failure")).toBe(0);
  expect(c.scoring.weight("session")).toBe(0);
  expect(c.chunkChars).toBe(512);
  expect(c.maxChunks).toBe(1024);
  expect(c.capacityPerEndpoint).toBe(4096);
  expect(c.charsPerToken).toBe(4);
  expect(c.saltHeader).toBe("");
  expect(c.scoring.value("prefix.lambda")).toBe(0.5);
  expect(c.scoring.value("prefix.lengthCreditChars")).toBe(8192);
  expect(c.scoring.value("prefix.creditOfBestMatch")).toBe(2);
  expect(c.shareAcrossWorkers).toBe(true);
  expect(c.creditAnswers).toBe(true);
  expect(c.spreadHotPreambles).toBe(true);
  expect(c.sharedHintBuckets).toBe(65536);
  expect(c.sharedHintMaxAgeMs).toBe(600000);
  expect(c.scoring.value("scoring.queueSpan")).toBe(4);
  expect(c.scoring.value("scoring.inflightSpan")).toBe(4);
  expect(c.scoring.value("scoring.queueRelativeSpan")).toBe(16);
  expect(c.scoring.value("scoring.inflightRelativeSpan")).toBe(16);
  expect(c.shareLoadAcrossWorkers).toBe(true);
  expect(c.guardFactor).toBe(2);
  expect(c.guardSlack).toBe(2);
  expect(c.sessionHeader).toBe("");
  expect(c.ewmaAlpha).toBe(0.2);
  expect(c.failureHalfLifeMs).toBe(30000);
  expect(c.snapshotTtlMs).toBe(250);
  expect(c.staleAfterMs).toBe(10000);
  expect(c.pollIntervalMs).toBe(1000);
  expect(c.pollTimeoutMs).toBe(800);
  expect(c.metricsPath).toBe("/metrics");
  expect(c.endpoints.length).toBe(0);
  expect(c.maxRequestBodyBytes).toBe(4194304);
  expect(c.maxScanSteps).toBe(1000000);
  expect(c.maxJsonDepth).toBe(64);
  expect(c.maxEndpoints).toBe(64);
  expect(c.maxIndexBytes).toBe(67108864);
  expect(c.debugHeader).toBe(false);
  expect(c.seed).toBe(0);
  expect(c.metricPolicy).toBe(MetricPolicy.Default);
  expect(c.targetMetric).toBe("");
  expect(c.rateLimit).toBe(1.0);
  expect(c.windowSize).toBe(100);
  expect(c.lbPolicy).toBe("");
  expect(c.warnings.length).toBe(0);
}

// Every key set to a valid, non-default value.
const ALL_KEYS =
  '"weights": {"queue": 5, "kvCache": 6.5, "prefixCache": 7, "inflight": 0, "loraAffinity": 1.25, "failure": 3, "session": 4},' +
  '"prefix": {"chunkChars": 128, "maxChunks": 100, "capacityPerEndpoint": 1000, "charsPerToken": 3.5,' +
  '  "saltHeader": "X-Tenant-ID", "lambda": 0.25, "lengthCreditChars": 1000},' +
  '"loadGuard": {"factor": 2.5, "slack": 0},' +
  '"session": {"header": "X-Session"},' +
  '"feedback": {"ewmaAlpha": 1, "failureHalfLifeMs": 0},' +
  '"metrics": {"snapshotTtlMs": 0, "staleAfterMs": 5000, "pollIntervalMs": 500, "pollTimeoutMs": 300, "path": "/stats/prometheus"},' +
  '"limits": {"maxRequestBodyBytes": 1048576, "maxScanSteps": 5000, "maxJsonDepth": 32, "maxEndpoints": 8, "maxIndexBytes": 2097152},' +
  '"debug": {"header": true},' +
  '"seed": 9007199254740992,' +
  '"metric_policy": "least", "target_metric": "vllm:num_requests_waiting", "rate_limit": 0.5, "window_size": 50';

function expectAllKeys(c: PickerConfig): void {
  expect(c.scoring.weight("queue")).toBe(5);
  expect(c.scoring.weight("kvCache")).toBe(6.5);
  expect(c.scoring.weight("prefixCache")).toBe(7);
  expect(c.scoring.weight("inflight")).toBe(0);
  expect(c.scoring.weight("loraAffinity")).toBe(1.25);
  expect(c.scoring.weight("failure")).toBe(3);
  expect(c.scoring.weight("session")).toBe(4);
  expect(c.chunkChars).toBe(128);
  expect(c.maxChunks).toBe(100);
  expect(c.capacityPerEndpoint).toBe(1000);
  expect(c.charsPerToken).toBe(3.5);
  expect(c.saltHeader).toBe("x-tenant-id");
  expect(c.scoring.value("prefix.lambda")).toBe(0.25);
  expect(c.scoring.value("prefix.lengthCreditChars")).toBe(1000);
  expect(c.guardFactor).toBe(2.5);
  expect(c.guardSlack).toBe(0);
  expect(c.sessionHeader).toBe("x-session");
  expect(c.ewmaAlpha).toBe(1);
  expect(c.failureHalfLifeMs).toBe(0);
  expect(c.snapshotTtlMs).toBe(0);
  expect(c.staleAfterMs).toBe(5000);
  expect(c.pollIntervalMs).toBe(500);
  expect(c.pollTimeoutMs).toBe(300);
  expect(c.metricsPath).toBe("/stats/prometheus");
  expect(c.maxRequestBodyBytes).toBe(1048576);
  expect(c.maxScanSteps).toBe(5000);
  expect(c.maxJsonDepth).toBe(32);
  expect(c.maxEndpoints).toBe(8);
  expect(c.maxIndexBytes).toBe(2097152);
  expect(c.debugHeader).toBe(true);
  expect(c.seed).toBe(<u64>1 << 53);
  expect(c.metricPolicy).toBe(MetricPolicy.Least);
  expect(c.targetMetric).toBe("vllm:num_requests_waiting");
  expect(c.rateLimit).toBe(0.5);
  expect(c.windowSize).toBe(50);
}

describe("parseConfig defaults", () => {
  it("gives the documented defaults for {}", () => {
    const c = new PluginConfig();
    expect(higress("{}", c)).toBe("");
    expectDocumentedDefaults(c);
  });

  it("gives the documented defaults for empty and blank input", () => {
    const blanks = ["", " ", " \n\t\r "];
    for (let i = 0; i < blanks.length; i++) {
      const c = new PluginConfig();
      expect(higress(blanks[i], c)).toBe("");
      expectDocumentedDefaults(c);
    }
  });

  it("resets a used config to the defaults before parsing", () => {
    const c = new PluginConfig();
    expect(higress("{" + ALL_KEYS + "}", c)).toBe("");
    expect(higress("{}", c)).toBe("");
    expectDocumentedDefaults(c);
  });

  it("the stock build requires endpoints even for {} and empty input", () => {
    const inputs = ["{}", ""];
    for (let i = 0; i < inputs.length; i++) {
      const msg = stock(inputs[i]);
      expectInvalid(msg);
      expectMentions(msg, "endpoints: required");
    }
    expectInvalid(stock('{"endpoints": []}'));
  });
});

describe("parseConfig round trip", () => {
  it("reads every key back", () => {
    const c = new PluginConfig();
    expect(higress("{" + ALL_KEYS + "}", c)).toBe("");
    expectAllKeys(c);
    expect(c.lbPolicy).toBe("");
  });

  it("reads every key back from lb_config of the Higress layout", () => {
    const c = new PluginConfig();
    expect(higress('{"lb_config": {' + ALL_KEYS + '}, "lb_policy": "prefix_cache"}', c)).toBe("");
    expectAllKeys(c);
    expect(c.lbPolicy).toBe("prefix_cache");
  });

  it("accepts each documented lb_policy", () => {
    const names = ["endpoint_metrics", "metrics_based", "prefix_cache", "least_busy", "kv_cache_aware"];
    for (let i = 0; i < names.length; i++) {
      const c = new PluginConfig();
      expect(higress('{"lb_policy": "' + names[i] + '", "lb_config": {"weights": {"queue": 9}}}', c)).toBe("");
      expect(c.lbPolicy).toBe(names[i]);
      expect(c.scoring.weight("queue")).toBe(9);
    }
    const c = new PluginConfig();
    expect(higress('{"lb_policy": "least_busy"}', c)).toBe("");
    expect(c.lbPolicy).toBe("least_busy");
    expect(c.scoring.weight("queue")).toBe(2);
  });

  it("reads metric_policy most", () => {
    const c = new PluginConfig();
    expect(higress('{"metric_policy": "most", "target_metric": "vllm:gpu_cache_usage_perc"}', c)).toBe("");
    expect(c.metricPolicy).toBe(MetricPolicy.Most);
    expect(c.targetMetric).toBe("vllm:gpu_cache_usage_perc");
  });

  it("reads the endpoints of the stock build; metricsPath defaults to metrics.path", () => {
    const c = new PluginConfig();
    const msg = stock(
      '{"endpoints": [' +
        '{"address": "10.0.0.1:8000", "metricsCluster": "vllm-0", "metricsPath": "/m", "authority": "vllm-0.local:8000"},' +
        '{"metricsCluster": "vllm-1", "address": "[fd00::1]:8000"},' +
        '{"address": "Vllm-2.svc.cluster.local:80", "metricsCluster": "c2"}' +
        '], "metrics": {"path": "/stats"}}',
      c,
    );
    expect(msg).toBe("");
    expect(c.endpoints.length).toBe(3);
    const e0: EndpointConfig = c.endpoints[0];
    expect(e0.address).toBe("10.0.0.1:8000");
    expect(e0.metricsCluster).toBe("vllm-0");
    expect(e0.metricsPath).toBe("/m");
    expect(e0.authority).toBe("vllm-0.local:8000");
    const e1: EndpointConfig = c.endpoints[1];
    expect(e1.address).toBe("[fd00::1]:8000");
    expect(e1.metricsCluster).toBe("vllm-1");
    expect(e1.metricsPath).toBe("/stats");
    expect(e1.authority).toBe("");
    expect(c.endpoints[2].address).toBe("Vllm-2.svc.cluster.local:80");
    expect(c.endpoints[2].metricsPath).toBe("/stats");
  });

  it("uses /metrics for endpoints when metrics.path is not set", () => {
    const c = new PluginConfig();
    expect(stock("{" + ONE_ENDPOINT + "}", c)).toBe("");
    expect(c.endpoints[0].metricsPath).toBe("/metrics");
  });

  it("lower-cases header names and accepts every token character", () => {
    const c = new PluginConfig();
    expect(higress('{"prefix": {"saltHeader": "X-Cache-SALT"}, "session": {"header": "Az09!#$%&\'*+-.^_`|~"}, "weights": {"session": 1}}', c)).toBe("");
    expect(c.saltHeader).toBe("x-cache-salt");
    expect(c.sessionHeader).toBe("az09!#$%&'*+-.^_`|~");
  });

  it("accepts the boundaries of the ranges", () => {
    const c = new PluginConfig();
    const msg = higress(
      '{"weights": {"queue": 1000, "kvCache": 0}, "prefix": {"chunkChars": 16, "maxChunks": 65536, "charsPerToken": 0.5,' +
        ' "lambda": 1, "lengthCreditChars": 1e9}, "loadGuard": {"factor": 0, "slack": 1e6},' +
        ' "metrics": {"staleAfterMs": 3600000, "pollIntervalMs": 50, "pollTimeoutMs": 60000},' +
        ' "limits": {"maxJsonDepth": 1024, "maxScanSteps": 1e8, "maxRequestBodyBytes": 67108864}, "rate_limit": 1, "window_size": 100000}',
      c,
    );
    expect(msg).toBe("");
    expect(c.scoring.weight("queue")).toBe(1000);
    expect(c.chunkChars).toBe(16);
    expect(c.maxChunks).toBe(65536);
    expect(c.charsPerToken).toBe(0.5);
    expect(c.scoring.value("prefix.lengthCreditChars")).toBe(1e9);
    expect(c.guardFactor).toBe(0);
    expect(c.guardSlack).toBe(1e6);
    expect(c.maxJsonDepth).toBe(1024);
    expect(c.maxScanSteps).toBe(100000000);
    expect(c.windowSize).toBe(100000);
    // Integral numbers may be written with a fraction or an exponent.
    const d = new PluginConfig();
    expect(higress('{"prefix": {"chunkChars": 64.0, "maxChunks": 1.5e2}}', d)).toBe("");
    expect(d.chunkChars).toBe(64);
    expect(d.maxChunks).toBe(150);
  });
});

describe("parseConfig errors", () => {
  it("reports wrong types naming the field", () => {
    let msg = higress('{"weights": {"queue": "2"}}');
    expectInvalid(msg);
    expectMentions(msg, 'weights.queue: expected a number in [0, 1000], got "2"');

    msg = higress('{"prefix": {"chunkChars": 100.5}}');
    expectMentions(msg, "prefix.chunkChars: expected an integer in [16, 65536], got 100.5");

    msg = higress('{"debug": {"header": "yes"}}');
    expectMentions(msg, 'debug.header: expected true or false, got "yes"');

    msg = higress('{"debug": {"header": 1}}');
    expectMentions(msg, "debug.header: expected true or false, got 1");

    msg = higress('{"session": {"header": 5}}');
    expectMentions(msg, "session.header: expected");
    expectMentions(msg, "got 5");

    msg = higress('{"metrics": {"path": null}}');
    expectMentions(msg, "metrics.path: expected");
    expectMentions(msg, "got null");

    msg = higress('{"weights": [1, 2]}');
    expectMentions(msg, "weights: expected an object, got an array");

    msg = higress('{"seed": {"a": 1}}');
    expectMentions(msg, "seed: expected an integer in [0, 9007199254740992], got an object");

    msg = higress('{"metric_policy": 1}');
    expectMentions(msg, 'metric_policy: expected one of "default", "least", "most", got 1');

    msg = stock('{"endpoints": {"address": "10.0.0.1:80"}}');
    expectMentions(msg, "endpoints: expected an array of endpoint objects, got an object");
    // The type error is enough; "required" is not piled on top.
    expect(msg.includes("endpoints: required")).toBe(false, msg);

    msg = stock('{"endpoints": ["10.0.0.1:80"]}');
    expectMentions(msg, 'endpoints[0]: expected an endpoint object, got "10.0.0.1:80"');
  });

  it("reports out-of-range values with the range", () => {
    let msg = higress('{"weights": {"queue": -1}}');
    expect(msg).toBe("invalid plugin config: weights.queue: expected a number in [0, 1000], got -1");

    msg = higress('{"prefix": {"chunkChars": 15}}');
    expectMentions(msg, "prefix.chunkChars: expected an integer in [16, 65536], got 15");
    msg = higress('{"prefix": {"chunkChars": 65537}}');
    expectMentions(msg, "prefix.chunkChars: expected an integer in [16, 65536], got 65537");
    msg = higress('{"prefix": {"lambda": 1.01}}');
    expectMentions(msg, "prefix.lambda: expected a number in [0, 1], got 1.01");
    msg = higress('{"prefix": {"charsPerToken": 0.25}}');
    expectMentions(msg, "prefix.charsPerToken: expected a number in [0.5, 64], got 0.25");
    msg = higress('{"feedback": {"ewmaAlpha": 0}}');
    expectMentions(msg, "feedback.ewmaAlpha: expected a number in (0, 1], got 0");
    msg = higress('{"rate_limit": 0}');
    expectMentions(msg, "rate_limit: expected a number in (0, 1], got 0");
    msg = higress('{"loadGuard": {"factor": 0.5}}');
    expectMentions(msg, "loadGuard.factor: expected 0 or a number in [1, 100], got 0.5");
    msg = higress('{"loadGuard": {"factor": 101}}');
    expectMentions(msg, "loadGuard.factor: expected 0 or a number in [1, 100]");
    msg = higress('{"limits": {"maxIndexBytes": 1048575}}');
    expectMentions(msg, "limits.maxIndexBytes: expected an integer in [1048576, 1073741824], got 1048575");
    msg = higress('{"seed": 9007199254740994}');
    expectMentions(msg, "seed: expected an integer in [0, 9007199254740992]");
    msg = higress('{"seed": -1}');
    expectMentions(msg, "seed: expected an integer in [0, 9007199254740992], got -1");
    msg = higress('{"window_size": 0}');
    expectMentions(msg, "window_size: expected an integer in [1, 100000], got 0");
    msg = higress('{"weights": {"failure": 1e400}}');
    expectMentions(msg, "weights.failure: expected a number in [0, 1000], got 1e400");
  });

  it("reports unknown keys with their full path", () => {
    let msg = higress('{"foo": 1}');
    expect(msg).toBe("invalid plugin config: foo: unknown key");
    msg = higress('{"prefix": {"chunkSize": 256}}');
    expect(msg).toBe("invalid plugin config: prefix.chunkSize: unknown key");
    msg = higress('{"queue": 2}');
    expectMentions(msg, "queue: unknown key");
    msg = higress('{"lb_policy": "prefix_cache", "lb_config": {"weights": {"queeu": 1}}}');
    expectMentions(msg, "lb_config.weights.queeu: unknown key");
    msg = stock('{"endpoints": [{"address": "10.0.0.1:80", "metricsCluster": "c", "port": 80}]}');
    expect(msg).toBe("invalid plugin config: endpoints[0].port: unknown key");
    // Unknown keys inside an unknown object are not reported one by one.
    msg = higress('{"extra": {"a": 1, "b": 2}}');
    expect(msg).toBe("invalid plugin config: extra: unknown key");
  });

  it("names the known key an unknown one differs from only in case, '_' or '-'", () => {
    let msg = higress('{"weights": {"kvcache": 2}}');
    expect(msg).toBe("invalid plugin config: weights.kvcache: unknown key (did you mean \"weights.kvCache\"?)");
    msg = higress('{"weights": {"prefix_cache": 3}}');
    expect(msg).toBe("invalid plugin config: weights.prefix_cache: unknown key (did you mean \"weights.prefixCache\"?)");
    msg = higress('{"Limits": {"maxEndpoints": 8}}');
    expect(msg).toBe("invalid plugin config: Limits: unknown key (did you mean \"limits\"?)");
    msg = higress('{"lb_policy": "endpoint_metrics", "lb_config": {"load-guard": {"factor": 2}}}');
    expectMentions(msg, "lb_config.load-guard: unknown key (did you mean \"loadGuard\"?)");
    msg = higress('{"_rules_": [{"_match_route_": ["a/b"], "redis": {"cluster": "c", "ttl_ms": 1000}}]}');
    expectMentions(msg, "_rules_[0].redis.ttl_ms: unknown key (did you mean \"redis.ttlMs\"?)");
    msg = stock('{"endpoints": [{"address": "10.0.0.1:80", "metrics_cluster": "c"}]}');
    expectMentions(msg, "endpoints[0].metrics_cluster: unknown key (did you mean \"metricsCluster\"?)");
    msg = stock('{"endpoints": [{"Address": "10.0.0.1:80", "metricsCluster": "c", "metrics-path": "/m", "AUTHORITY": ""}]}');
    expectMentions(msg, "endpoints[0].Address: unknown key (did you mean \"address\"?)");
    expectMentions(msg, "endpoints[0].metrics-path: unknown key (did you mean \"metricsPath\"?)");
    expectMentions(msg, "endpoints[0].AUTHORITY: unknown key (did you mean \"authority\"?)");
    // A different word gets no guess.
    msg = higress('{"weights": {"prefix": 3}}');
    expect(msg).toBe("invalid plugin config: weights.prefix: unknown key");
  });

  it("rejects a dotted key instead of reading it as the nested one", () => {
    // A dotted key slipped past the duplicate check and the stock build's refusal of redis.
    const c = new PluginConfig();
    let msg = higress('{"prefix": {"chunkChars": 32}, "prefix.chunkChars": 16}', c);
    expect(msg).toBe(
      'invalid plugin config: prefix.chunkChars: unknown key (a key holds no dots: write {"prefix": {"chunkChars": ...}})',
    );
    msg = stock('{' + ONE_ENDPOINT + ', "redis.cluster": "outbound|6379||redis"}');
    expectMentions(msg, "redis.cluster: unknown key");
    msg = higress('{"weights": {"prefix.lambda": 1}}');
    expect(msg).toBe("invalid plugin config: weights.prefix.lambda: unknown key");
    msg = higress('{"_rules_": [{"_match_route_": ["r"], "weights.queue": 5}]}');
    expectMentions(msg, "_rules_[0].weights.queue: unknown key");
    msg = higress('{"lb_policy": "endpoint_metrics", "lb_config": {"limits.maxEndpoints": 8}}');
    expectMentions(msg, "lb_config.limits.maxEndpoints: unknown key");
  });

  it("shows an empty key as \"\"", () => {
    expect(higress('{"": 1}')).toBe('invalid plugin config: "": unknown key');
    expect(higress('{"prefix": {"": 1}}')).toBe('invalid plugin config: prefix."": unknown key');
  });

  it("rejects duplicate keys", () => {
    const msg = higress('{"weights": {"queue": 1, "queue": 2}}');
    expect(msg).toBe("invalid plugin config: weights.queue: duplicate key");
    expectMentions(higress('{"seed": 1, "seed": 1}'), "seed: duplicate key");
  });

  it("stock build: requires metrics.staleAfterMs above metrics.pollIntervalMs", () => {
    // Metrics fetched every pollIntervalMs reach that age before the next fetch: a shorter staleAfterMs would
    // drop every endpoint's metrics for part of each interval.
    let msg = stock('{' + ONE_ENDPOINT + ', "metrics": {"staleAfterMs": 500}}');
    expect(msg).toBe(
      "invalid plugin config: metrics.staleAfterMs: 500 is not more than metrics.pollIntervalMs (1000): each endpoint's " +
        "metrics would be ignored for part of every poll interval",
    );
    msg = stock('{' + ONE_ENDPOINT + ', "metrics": {"staleAfterMs": 200, "pollIntervalMs": 200}}');
    expectMentions(msg, "metrics.staleAfterMs: 200 is not more than metrics.pollIntervalMs (200)");
    msg = stock('{"_rules_": [{"_match_route_": ["r"], ' + ONE_ENDPOINT + ', "metrics": {"pollIntervalMs": 20000, "staleAfterMs": 10000}}]}');
    expectMentions(msg, "_rules_[0].metrics.staleAfterMs: 10000 is not more than metrics.pollIntervalMs (20000)");
    // Not given, it follows the interval: three polls and a timeout, at least 10 s (each configuration its own).
    const slow = new PluginConfig();
    expect(stock('{' + ONE_ENDPOINT + ', "metrics": {"pollIntervalMs": 20000}, "_rules_": [{"_match_route_": ["r"], ' +
      ONE_ENDPOINT + ', "metrics": {"pollIntervalMs": 2000, "pollTimeoutMs": 5000}}]}', slow)).toBe("");
    expect(slow.staleAfterMs).toBe(3 * 20000 + 800);
    expect(slow.rules[0].config.staleAfterMs).toBe(3 * 2000 + 5000);
    const fast = new PluginConfig();
    expect(stock('{' + ONE_ENDPOINT + ', "metrics": {"pollIntervalMs": 100}}', fast)).toBe("");
    expect(fast.staleAfterMs).toBe(10000);
    const slowest = new PluginConfig();
    expect(stock('{' + ONE_ENDPOINT + ', "metrics": {"pollIntervalMs": 60000, "pollTimeoutMs": 60000}}', slowest)).toBe("");
    expect(slowest.staleAfterMs).toBe(240000);
    expect(stock('{' + ONE_ENDPOINT + ', "metrics": {"staleAfterMs": 201, "pollIntervalMs": 200}}')).toBe("");
    // A rejected value is named once, without the relation.
    msg = stock('{' + ONE_ENDPOINT + ', "metrics": {"staleAfterMs": 50}}');
    expectNotMentions(msg, "pollIntervalMs (");
    // The Higress build does not poll: neither key is used there.
    expect(higress('{"metrics": {"staleAfterMs": 500}}')).toBe("");
  });

  it("pairs weights.session with session.header", () => {
    // The session signal reads only session.header: a weight without it could never count.
    let msg = higress('{"weights": {"session": 2}}');
    expect(msg).toBe(
      "invalid plugin config: weights.session: 2 has no effect without session.header (the request header that names the session)",
    );
    msg = higress('{"_rules_": [{"_match_route_": ["r"], "weights": {"session": 1}}]}');
    expectMentions(msg, "_rules_[0].weights.session: 1 has no effect without session.header");
    // A header without a weight is a setting switched off by its weight: accepted, with a warning.
    const c = new PluginConfig();
    expect(higress('{"session": {"header": "x-session-id"}}', c)).toBe("");
    expect(c.warnings.join("|")).toBe("session.header: unused while weights.session is 0 (set weights.session to use session affinity)");
    const d = new PluginConfig();
    expect(higress('{"session": {"header": "x-session-id"}, "weights": {"session": 1}}', d)).toBe("");
    expect(d.warnings.length).toBe(0);
    // A rejected header is not named twice.
    msg = higress('{"session": {"header": "a b"}, "weights": {"session": 1}}');
    expectNotMentions(msg, "has no effect");
  });

  it("warns about target_metric while metric_policy is \"default\"", () => {
    const c = new PluginConfig();
    expect(higress('{"target_metric": "vllm:num_requests_running"}', c)).toBe("");
    expect(c.warnings.join("|")).toBe('target_metric: unused while metric_policy is "default" (set "least" or "most")');
    const d = new PluginConfig();
    expect(higress('{"target_metric": "vllm:num_requests_running", "metric_policy": "least"}', d)).toBe("");
    expect(d.warnings.length).toBe(0);
  });

  it("rejects all weights zero", () => {
    const msg = higress('{"weights": {"queue": 0, "kvCache": 0, "prefixCache": 0, "inflight": 0, "loraAffinity": 0}}');
    expectInvalid(msg);
    expectMentions(msg, "weights: all weights are 0");
    // One positive weight is enough.
    expect(higress('{"weights": {"queue": 0, "kvCache": 0, "prefixCache": 0, "inflight": 0, "loraAffinity": 0, "failure": 0.5}}')).toBe("");
  });

  it("requires target_metric for metric_policy least and most", () => {
    let msg = higress('{"metric_policy": "least"}');
    expect(msg).toBe('invalid plugin config: target_metric: required when metric_policy is "least"');
    msg = higress('{"metric_policy": "most", "target_metric": ""}');
    expectMentions(msg, 'target_metric: required when metric_policy is "most"');
    expect(higress('{"metric_policy": "default"}')).toBe("");
    msg = higress('{"metric_policy": "max"}');
    expectMentions(msg, 'metric_policy: expected one of "default", "least", "most", got "max"');
    msg = higress('{"metric_policy": "least", "target_metric": "not a metric"}');
    expectMentions(msg, 'target_metric: expected "" or a Prometheus metric name, got "not a metric"');
  });

  it("rejects bad header names and paths", () => {
    let msg = higress('{"prefix": {"saltHeader": "x tenant"}}');
    expectMentions(msg, 'prefix.saltHeader: expected "" or a header name');
    expectMentions(msg, 'got "x tenant"');
    msg = higress('{"session": {"header": ":authority"}}');
    expectMentions(msg, "session.header: expected");
    msg = higress('{"session": {"header": "x-sessión"}}');
    expectMentions(msg, "session.header: expected");
    msg = higress('{"metrics": {"path": "metrics"}}');
    expectMentions(msg, 'metrics.path: expected a path starting with "/"');
    msg = higress('{"metrics": {"path": ""}}');
    expectMentions(msg, "metrics.path: expected");
    msg = higress('{"metrics": {"path": "/a b"}}');
    expectMentions(msg, "metrics.path: expected");
    msg = stock('{"endpoints": [{"address": "10.0.0.1:80", "metricsCluster": "c", "metricsPath": "m"}]}');
    expectMentions(msg, 'endpoints[0].metricsPath: expected a path starting with "/"');
    // A cluster name with a space or control character in it is a typo every metrics call would fail on.
    const clusters = ["outbound|8000||vllm ", " vllm", "a\\u0001b", "a\\tb"];
    for (let i = 0; i < clusters.length; i++) {
      msg = stock('{"endpoints": [{"address": "10.0.0.1:80", "metricsCluster": "' + clusters[i] + '"}]}');
      expectInvalid(msg);
      expectMentions(msg, "endpoints[0].metricsCluster: expected a cluster name (1 to 255 visible ASCII characters)");
    }
    msg = stock('{"endpoints": [{"address": "10.0.0.1:80", "metricsCluster": "outbound|8000||vllm.default.svc.cluster.local"}]}');
    expect(msg).toBe("");
  });

  it("rejects bad endpoint addresses, naming the endpoint", () => {
    const bad = [
      "10.0.0.1", "10.0.0.1:0", "10.0.0.1:65536", "10.0.0.1:80x", "10.0.0.256:80", "fd00::1:80", "[fd00::1]",
      "[fd00::1]80", "[fd00:::1]:80", "host_name:80", "-host:80", ":80", "host:", "host:080",
    ];
    for (let i = 0; i < bad.length; i++) {
      const msg = stock('{"endpoints": [{"address": "' + bad[i] + '", "metricsCluster": "c"}]}');
      expectInvalid(msg);
      expectMentions(msg, 'endpoints[0].address: "' + bad[i] + '" is not "ip:port", "[ipv6]:port" or "host:port"');
    }
    const msg = stock('{"endpoints": [{"address": 8000, "metricsCluster": "c"}]}');
    expectMentions(msg, "endpoints[0].address: expected");
    expectMentions(msg, "got 8000");
  });

  it("rejects duplicate addresses", () => {
    const msg = stock(
      '{"endpoints": [{"address": "10.0.0.1:80", "metricsCluster": "a"}, {"address": "10.0.0.2:80", "metricsCluster": "b"},' +
        ' {"address": "10.0.0.1:80", "metricsCluster": "c"}]}',
    );
    expect(msg).toBe('invalid plugin config: endpoints[2].address: duplicate of endpoints[0].address "10.0.0.1:80"');
    // Host names compare case-insensitively; the same host on another port is another endpoint.
    expectMentions(
      stock('{"endpoints": [{"address": "vllm:80", "metricsCluster": "a"}, {"address": "VLLM:80", "metricsCluster": "b"}]}'),
      "endpoints[1].address: duplicate of endpoints[0].address",
    );
    expect(stock('{"endpoints": [{"address": "vllm:80", "metricsCluster": "a"}, {"address": "vllm:81", "metricsCluster": "a"}]}')).toBe("");
  });

  it("requires address and a non-empty metricsCluster", () => {
    let msg = stock('{"endpoints": [{"address": "10.0.0.1:80"}]}');
    expectMentions(msg, "endpoints[0].metricsCluster: required");
    msg = stock('{"endpoints": [{"address": "10.0.0.1:80", "metricsCluster": ""}]}');
    expectMentions(msg, 'endpoints[0].metricsCluster: expected a cluster name (1 to 255 visible ASCII characters), got ""');
    msg = stock('{"endpoints": [{"address": "10.0.0.1:80", "metricsCluster": "a"}, {"metricsCluster": "b"}]}');
    expect(msg).toBe("invalid plugin config: endpoints[1].address: required");
  });

  it("the Higress build warns about the stock build's polling keys, which it ignores", () => {
    const c = new PluginConfig();
    expect(higress('{"metrics": {"pollIntervalMs": 200, "path": "/stats", "snapshotTtlMs": 100}}', c)).toBe("");
    expect(c.warnings.join("|")).toBe(
      "metrics.pollIntervalMs: ignored by the Higress build, whose metrics come from the gateway's health check|" +
        "metrics.path: ignored by the Higress build, whose metrics come from the gateway's health check",
    );
    const r = new PluginConfig();
    expect(higress('{"_rules_": [{"_match_route_": ["r"], "metrics": {"staleAfterMs": 5000, "pollTimeoutMs": 100}}]}', r)).toBe("");
    expect(r.rules[0].config.warnings.join("|")).toBe(
      "_rules_[0].metrics.staleAfterMs: ignored by the Higress build, whose metrics come from the gateway's health check|" +
        "_rules_[0].metrics.pollTimeoutMs: ignored by the Higress build, whose metrics come from the gateway's health check",
    );
    const d = new PluginConfig();
    expect(stock('{' + ONE_ENDPOINT + ', "metrics": {"pollIntervalMs": 200, "path": "/stats"}}', d)).toBe("");
    expect(d.warnings.length).toBe(0);
  });

  it("the Higress build ignores endpoints with a warning", () => {
    const c = new PluginConfig();
    expect(higress("{" + ONE_ENDPOINT + "}", c)).toBe("");
    expect(c.endpoints.length).toBe(0);
    expect(c.warnings.length).toBe(1);
    expect(c.warnings[0].startsWith("endpoints: ")).toBe(true, c.warnings[0]);
    // Empty endpoints is not worth a warning.
    const d = new PluginConfig();
    expect(higress('{"endpoints": []}', d)).toBe("");
    expect(d.warnings.length).toBe(0);
  });

  it("rejects more endpoints than limits.maxEndpoints", () => {
    const eps = '[{"address": "a:1", "metricsCluster": "c"}, {"address": "b:1", "metricsCluster": "c"}, {"address": "c:1", "metricsCluster": "c"}]';
    const msg = stock('{"limits": {"maxEndpoints": 2}, "endpoints": ' + eps + "}");
    expect(msg).toBe("invalid plugin config: endpoints: 3 endpoints exceed limits.maxEndpoints (2)");
    expect(stock('{"limits": {"maxEndpoints": 3}, "endpoints": ' + eps + "}")).toBe("");
  });

  it("rejects an index larger than limits.maxIndexBytes, saying how much it needs", () => {
    // 256 endpoints of 4096 entries: PrefixIndex.bytesFor lies between the bounds of maxIndexBytes.
    const needed = PrefixIndex.bytesFor(256, 4096);
    expect(needed > 1048576 && needed < 1073741824).toBe(true);
    const sizes = '"prefix": {"capacityPerEndpoint": 4096}, "limits": {"maxEndpoints": 256, "maxIndexBytes": ';
    expect(higress("{" + sizes + needed.toString() + "}}")).toBe("");
    const msg = higress("{" + sizes + (needed - 1).toString() + "}}");
    expectInvalid(msg);
    expectMentions(msg, "limits.maxIndexBytes: ");
    expectMentions(msg, "needs " + needed.toString() + " bytes");
    // The defaults fit the default limit.
    expect(PrefixIndex.bytesFor(64, 8192) <= 67108864).toBe(true);
  });

  it("rejects more index entries than the index can hold", () => {
    // 4096 * 4096 entries exceed what PrefixIndex allocates, whatever the byte limit.
    const msg = higress('{"prefix": {"capacityPerEndpoint": 4096}, "limits": {"maxEndpoints": 4096, "maxIndexBytes": 1073741824}}');
    expectInvalid(msg);
    expectMentions(msg, "prefix.capacityPerEndpoint: ");
    expectMentions(msg, "16777216 index entries");
  });

  it("reports invalid JSON with its byte offset", () => {
    const doc = '{"weights": {"queue": 1,}}';
    expect(higress(doc)).toBe("invalid plugin config: invalid JSON at byte " + (doc.indexOf(",}") + 1).toString());
    const truncated = '{"weights": {"queue": 1';
    expect(higress(truncated)).toBe("invalid plugin config: invalid JSON at byte " + truncated.length.toString());
    const trailing = "{} x";
    expect(higress(trailing)).toBe("invalid plugin config: invalid JSON at byte 3");
    // Other errors found before the break are dropped: the JSON error is the one to fix.
    expect(higress('{"foo": 1, "bar": }')).toBe("invalid plugin config: invalid JSON at byte " + '{"foo": 1, "bar": '.length.toString());
  });

  it("reports nesting deeper than 64 levels", () => {
    // The top object is level 1; the 64th "[" would be level 65.
    const doc = '{"a": ' + "[".repeat(64) + "]".repeat(64) + "}";
    const msg = higress(doc);
    expect(msg).toBe("invalid plugin config: JSON nested deeper than 64 levels at byte " + (6 + 63).toString());
  });

  it("reports documents past the scanner budget", () => {
    const doc = '{"x": [' + "0,".repeat(1000000) + "0]}";
    const msg = higress(doc);
    expectInvalid(msg);
    expectMentions(msg, "too large");
  });

  it("requires a top-level object", () => {
    expect(higress("[]")).toBe("invalid plugin config: the configuration must be a JSON object, got an array");
    expect(higress('"x"')).toBe('invalid plugin config: the configuration must be a JSON object, got "x"');
    expect(stock("5")).toBe("invalid plugin config: the configuration must be a JSON object, got 5");
  });

  it("reports every bad field in one line", () => {
    const msg = stock(
      '{"weights": {"queue": -1, "kvCache": "x"}, "prefix": {"chunkSize": 1}, "debug": {"header": 0},' +
        ' "endpoints": [{"address": "nohost", "metricsCluster": "c"}], "metric_policy": "least"}',
    );
    expectInvalid(msg);
    const parts = msg.substring("invalid plugin config: ".length).split("; ");
    expect(parts.length).toBe(6, msg);
    expect(parts[0].startsWith("weights.queue: ")).toBe(true, msg);
    expect(parts[1].startsWith("weights.kvCache: ")).toBe(true, msg);
    expect(parts[2]).toBe("prefix.chunkSize: unknown key");
    expect(parts[3].startsWith("debug.header: ")).toBe(true, msg);
    expect(parts[4].startsWith("endpoints[0].address: ")).toBe(true, msg);
    expect(parts[5].startsWith("target_metric: required")).toBe(true, msg);
  });

  it("names the first 20 bad fields and counts the rest", () => {
    // A generated config with thousands of bad keys must not become a log line of megabytes.
    let keys = "";
    for (let i = 0; i < 5000; i++) keys += (i > 0 ? ", " : "") + '"k' + i.toString() + '": 1';
    const msg = higress('{"weights": {' + keys + '}, "seed": -1}');
    expectInvalid(msg);
    const parts = msg.substring("invalid plugin config: ".length).split("; ");
    expect(parts.length).toBe(21, msg.substring(0, 200));
    expect(parts[0]).toBe("weights.k0: unknown key");
    expect(parts[19]).toBe("weights.k19: unknown key");
    expect(parts[20]).toBe("and 4981 more");
  });

  it("keeps messages on one line whatever the input holds", () => {
    const msg = higress('{"bad\\nkey": 1, "session": {"header": "a\\u0000b\\r\\n"}}');
    expectInvalid(msg);
    expectMentions(msg, "bad\\u000akey: unknown key");
    expect(msg.includes("\r")).toBe(false);
  });
});

describe("parseConfig lb_policy layout", () => {
  it("rejects an unknown lb_policy", () => {
    const msg = higress('{"lb_policy": "round_robin", "lb_config": {}}');
    expect(msg).toBe(
      'invalid plugin config: lb_policy: expected one of "endpoint_metrics", "metrics_based", "prefix_cache", "least_busy", "kv_cache_aware", got "round_robin"',
    );
  });

  it("requires lb_policy with lb_config and an object lb_config", () => {
    expect(higress('{"lb_config": {}}')).toBe("invalid plugin config: lb_policy: required when lb_config is given");
    expectMentions(higress('{"lb_policy": "prefix_cache", "lb_config": []}'), "lb_config: expected an object, got an array");
  });

  it("rejects plain keys next to lb_policy", () => {
    const msg = higress('{"weights": {"queue": 1}, "lb_policy": "prefix_cache", "lb_config": {}}');
    expectMentions(msg, "weights: not allowed next to lb_policy/lb_config");
  });

  it("names lb_config in the paths of its errors, including cross-field ones", () => {
    const msg = higress(
      '{"lb_policy": "endpoint_metrics", "lb_config": {"weights": {"queue": 0, "kvCache": 0, "prefixCache": 0, "inflight": 0, "loraAffinity": 0},' +
        ' "metric_policy": "least", "rate_limit": 2}}',
    );
    expectMentions(msg, "lb_config.rate_limit: expected a number in (0, 1], got 2");
    expectMentions(msg, "lb_config.weights: all weights are 0");
    expectMentions(msg, "lb_config.target_metric: required");
  });

  it("lb_policy and lb_config are only keys of the top level", () => {
    expectMentions(
      higress('{"lb_policy": "prefix_cache", "lb_config": {"lb_policy": "prefix_cache"}}'),
      "lb_config.lb_policy: unknown key",
    );
  });

  // alibaba/higress plugins/wasm-go/extensions/ai-load-balancer main.go parseConfig and */lb_policy.go.
  it("accepts Higress's lb_type \"endpoint\" and refuses \"cluster\" with what to write instead", () => {
    expect(higress('{"lb_type": "endpoint", "lb_policy": "endpoint_metrics", "lb_config": {"metric_policy": "default"}}')).toBe("");
    const msg = higress('{"lb_type": "cluster", "lb_policy": "cluster_metrics", "lb_config": {"mode": "LeastBusy", "service_list": ["a"]}}');
    expectMentions(msg, 'lb_type: lb_type "cluster"');
    expectMentions(msg, 'write lb_type \"endpoint\"');
    expectMentions(msg, "lb_policy: cluster_metrics (balancing between services) is not supported");
    expectMentions(msg, "lb_config.mode: a cluster_metrics key");
    expectMentions(msg, "lb_config.service_list: a cluster_metrics key");
    expectMentions(higress('{"lb_type": "endpoint"}'), "lb_policy: required when lb_type is given");
  });

  it("refuses Higress's Redis-based policies and keys, saying what to write instead", () => {
    let msg = higress('{"lb_policy": "global_least_request", "lb_config": {"serviceFQDN": "redis.static", "servicePort": 6379, "username": "default", "password": "123456"}}');
    expectMentions(msg, "lb_policy: Higress's Redis-backed global_least_request is not supported in this form: write lb_policy");
    expectMentions(msg, "lb_config.serviceFQDN: Higress's Redis connection");
    expectMentions(msg, "lb_config.password: Higress's Redis connection");
    expect(msg.includes("unknown key")).toBe(false);
    msg = higress('{"lb_policy": "prefix_cache", "lb_config": {"serviceFQDN": "redis.static", "servicePort": 6379, "redisKeyTTL": 60}}');
    expectMentions(msg, "lb_config.redisKeyTTL: Higress's Redis connection");
    expectMentions(msg, "redis.* keys");
  });

  it("refuses least_busy's criticalModels with the reason", () => {
    expectMentions(higress('{"lb_policy": "least_busy", "lb_config": {"criticalModels": ["m"]}}'), "lb_config.criticalModels: not supported: this picker schedules every request");
  });

  it("reads endpoints from lb_config in the stock build", () => {
    const c = new PluginConfig();
    expect(stock('{"lb_policy": "kv_cache_aware", "lb_config": {' + ONE_ENDPOINT + "}}", c)).toBe("");
    expect(c.endpoints.length).toBe(1);
    expect(c.endpoints[0].metricsCluster).toBe("vllm");
    expectMentions(stock('{"lb_policy": "kv_cache_aware", "lb_config": {}}'), "lb_config.endpoints: required");
  });
});
