// Plugin configurations for the fuzzer: every documented key (docs/config.md) with valid, boundary and wrong
// values, unknown keys, the Higress lb_policy layout, and damaged JSON text.
import { SeededRandom } from "../util/seeded-random.ts";

const WRONG: unknown[] = [null, true, "1", [], {}, -1, 1e308, -0, 0.5, "x".repeat(1000), NaN];

/** Documented keys: values inside their range, and values just outside it or otherwise invalid. */
const KEYS: Record<string, { ok: unknown[]; bad: unknown[] }> = {
  "weights.queue": { ok: [0, 2, 1000, 0.001], bad: [1001, -1] },
  "weights.kvCache": { ok: [0, 2, 1000], bad: [1e9, -0.5] },
  "weights.prefixCache": { ok: [0, 3, 1000], bad: [-3] },
  "weights.inflight": { ok: [0, 1, 1000], bad: [2000] },
  "weights.loraAffinity": { ok: [0, 1, 1000], bad: [-1] },
  "weights.failure": { ok: [0, 1, 1000], bad: [1e4] },
  "weights.session": { ok: [0, 1, 1000], bad: [-2] },
  "prefix.chunkChars": { ok: [16, 256, 65536], bad: [15, 65537, 1.5] },
  "prefix.maxChunks": { ok: [1, 2048, 65536], bad: [0, 65537] },
  "prefix.capacityPerEndpoint": { ok: [1, 8192, 4194304], bad: [0, 4194305] },
  "prefix.charsPerToken": { ok: [0.5, 4, 64], bad: [0.49, 65] },
  "prefix.saltHeader": { ok: ["", "x-tenant", "X-Tenant"], bad: ["bad header", "\u0000"] },
  "prefix.lambda": { ok: [0, 0.5, 1], bad: [-0.1, 1.1] },
  "prefix.lengthCreditChars": { ok: [1, 8192, 1e9], bad: [0, 1e10] },
  "prefix.creditOfBestMatch": { ok: [0, 2, 1e9], bad: [-1, 1e10] },
  "loadGuard.factor": { ok: [0, 1, 1.5, 100], bad: [0.5, 101] },
  "loadGuard.slack": { ok: [0, 2, 1e6], bad: [-1, 1e7] },
  "session.header": { ok: ["", "x-session"], bad: [" ", "a:b"] },
  "feedback.ewmaAlpha": { ok: [0.2, 1, 0.001], bad: [0, 1.01] },
  "feedback.failureHalfLifeMs": { ok: [0, 30000, 86400000], bad: [-1, 1.5, 86400001] },
  "metrics.snapshotTtlMs": { ok: [0, 250, 60000], bad: [-1, 60001] },
  "metrics.staleAfterMs": { ok: [100, 10000, 3600000], bad: [99, 3600001] },
  "metrics.pollIntervalMs": { ok: [50, 1000, 60000], bad: [49, 60001] },
  "metrics.pollTimeoutMs": { ok: [10, 800, 60000], bad: [9, 60001] },
  "metrics.path": { ok: ["/metrics", "/stats/prometheus"], bad: ["metrics", "", "/a b", "/" + "p".repeat(5000)] },
  "limits.maxRequestBodyBytes": { ok: [1, 4194304, 67108864], bad: [0, 67108865] },
  "limits.maxScanSteps": { ok: [1000, 1000000, 100000000], bad: [999, 100000001] },
  "limits.maxJsonDepth": { ok: [4, 64, 1024], bad: [3, 1025] },
  "limits.maxEndpoints": { ok: [1, 64, 4096], bad: [0, 4097] },
  "limits.maxIndexBytes": { ok: [1048576, 67108864, 1073741824], bad: [1048575, 1073741825] },
  "debug.header": { ok: [true, false], bad: ["true", 1] },
  seed: { ok: [0, 1, 2 ** 53], bad: [-1, 1.5, 2 ** 53 + 2] },
  metric_policy: { ok: ["default"], bad: ["other"] },
  target_metric: { ok: ["", "vllm:num_requests_waiting"], bad: ["x{y}"] },
  rate_limit: { ok: [0.5, 1], bad: [0, 1.5] },
  window_size: { ok: [1, 100, 100000], bad: [0, 100001] },
};

function setPath(o: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split(".");
  let cur = o;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== "object" || cur[p] === null || Array.isArray(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

function endpoints(rng: SeededRandom, valid: boolean): unknown {
  const n = valid ? rng.range(1, 4) : rng.pick([0, 1, 3, 65, 5000]);
  if (valid) return Array.from({ length: n }, (_, i) => ({ address: `10.3.0.${i + 1}:8000`, metricsCluster: `m${i}` }));
  return Array.from({ length: n }, (_, i) =>
    rng.chance(0.9)
      ? { address: rng.chance(0.9) ? `10.3.${i >> 8 & 255}.${i & 255}:8000` : rng.pick(["", "x", "1.2.3.4", "[::1]:80", "1.2.3.4:99999", "a b:1"]), metricsCluster: rng.pick(["m", "", 5]) }
      : rng.pick(WRONG),
  );
}

/** A config text; may be invalid JSON. In "valid" mode (40%) every value is in range and the JSON is intact. */
export function generateConfig(rng: SeededRandom): string {
  const valid = rng.chance(0.4);
  const o: Record<string, unknown> = {};
  const keys = Object.keys(KEYS);
  for (let i = rng.size(12); i > 0; i--) {
    const k = rng.pick(keys);
    const v = valid || rng.chance(0.8) ? rng.pick(KEYS[k].ok) : rng.chance(0.7) ? rng.pick(KEYS[k].bad) : rng.pick(WRONG);
    setPath(o, k, v);
  }
  // metric_policy least/most needs a target metric.
  if (!valid && rng.chance(0.1)) o.metric_policy = rng.pick(["least", "most"]);
  if (valid && rng.chance(0.1)) Object.assign(o, { metric_policy: rng.pick(["least", "most"]), target_metric: "vllm:num_requests_waiting" });
  if (rng.chance(0.3)) o.endpoints = endpoints(rng, valid);
  if (valid) return JSON.stringify(rng.chance(0.15) ? { lb_policy: rng.pick(["prefix_cache", "least_busy", "endpoint_metrics", "kv_cache_aware"]), lb_config: o } : o);
  if (rng.chance(0.1)) o[rng.pick(["unknown", "weights.bogus", "Weights", ""])] = 1;
  if (rng.chance(0.1)) setPath(o, rng.pick(["weights", "prefix", "limits"]), rng.pick(WRONG));
  let value: unknown = o;
  if (rng.chance(0.15)) value = { lb_policy: rng.pick(["prefix_cache", "least_busy", "bogus", 1]), lb_config: rng.chance(0.8) ? o : rng.pick(WRONG) };
  if (rng.chance(0.05)) value = rng.pick(WRONG);
  const text = JSON.stringify(value) ?? "";
  switch (rng.int(12)) {
    case 0: return text.slice(0, rng.int(text.length + 1));
    case 1: return text.replace(/"\w+":/, (k) => k + k.slice(0, -1) + ":1,");
    case 2: return "[".repeat(rng.pick([5, 2000])) + text;
    case 3: return text + rng.pick(["", " ", "}", "x", "\u0000"]);
    case 4: return text.replace(/1/g, rng.pick(["1e999", "-1", "01", "1.0e-400"]));
    default: return text;
  }
}
