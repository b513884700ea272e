// The scalar keys of docs/config.md with their ranges, and the objects that group them.
import { MAX_STALE_AFTER_MS, PickerConfig } from "./picker-config";
import { REDIS_FIELDS, REDIS_SECTION } from "./redis-section";
import { DISCOVERY_FIELDS, DISCOVERY_SECTION } from "./discovery-section";
import { scorerKinds } from "../scheduling/scorer-list";
import {
  FieldSpec,
  FieldValue,
  TextFormat,
  booleanField,
  choiceField,
  integerField,
  numberField,
  positiveFractionField,
  textField,
  zeroOrNumberField,
} from "./field-spec";

/** Objects whose keys are listed in configFields() as "<section>.<key>". */
export const CONFIG_SECTIONS: Array<string> = [
  "weights", "scoring", "prefix", "loadGuard", "session", "feedback", "metrics", "limits", "debug", REDIS_SECTION, DISCOVERY_SECTION,
];

/** The array of endpoint objects, parsed on its own. */
export const ENDPOINTS_KEY = "endpoints";

/** Keys of the stock build's own /metrics polling; the Higress build reads metrics its health check fetched. */
export const STOCK_ONLY_KEYS: Array<string> = [
  "metrics.staleAfterMs", "metrics.pollIntervalMs", "metrics.pollTimeoutMs", "metrics.path",
];

/** Order matches MetricPolicy. */
export const METRIC_POLICY_NAMES: Array<string> = ["default", "least", "most"];

/** Higress `ai-load-balancer` policies that select this picker ("metrics_based" is Higress's old name of
 *  endpoint_metrics, "least_busy" an older one; "kv_cache_aware" is this picker's own). Refused ones:
 *  higress-migration.ts. */
export const LB_POLICY_NAMES: Array<string> = ["endpoint_metrics", "metrics_based", "prefix_cache", "least_busy", "kv_cache_aware"];

export const LB_POLICY_FIELD: FieldSpec = choiceField("lb_policy", LB_POLICY_NAMES, (c: PickerConfig, v: FieldValue): void => {
  c.lbPolicy = v.text;
});

/** The keys besides the scorers' (configFields() has them all). */
const FIXED_FIELDS: Array<FieldSpec> = [
  integerField("prefix.chunkChars", 16, 65536, (c: PickerConfig, v: FieldValue): void => { c.chunkChars = <i32>v.number; }),
  integerField("prefix.maxChunks", 1, 65536, (c: PickerConfig, v: FieldValue): void => { c.maxChunks = <i32>v.number; }),
  integerField("prefix.capacityPerEndpoint", 1, 4194304, (c: PickerConfig, v: FieldValue): void => { c.capacityPerEndpoint = <i32>v.number; }),
  numberField("prefix.charsPerToken", 0.5, 64, (c: PickerConfig, v: FieldValue): void => { c.charsPerToken = v.number; }),
  textField("prefix.saltHeader", TextFormat.HeaderName, (c: PickerConfig, v: FieldValue): void => { c.saltHeader = v.text; }),
  booleanField("prefix.shareAcrossWorkers", (c: PickerConfig, v: FieldValue): void => { c.shareAcrossWorkers = v.flag; }),
  booleanField("prefix.creditAnswers", (c: PickerConfig, v: FieldValue): void => { c.creditAnswers = v.flag; }),
  booleanField("prefix.spreadHotPreambles", (c: PickerConfig, v: FieldValue): void => { c.spreadHotPreambles = v.flag; }),
  integerField("prefix.sharedHintBuckets", 1024, 16777216, (c: PickerConfig, v: FieldValue): void => { c.sharedHintBuckets = <i32>v.number; }),
  integerField("prefix.sharedHintMaxAgeMs", 1000, 86400000, (c: PickerConfig, v: FieldValue): void => { c.sharedHintMaxAgeMs = <i32>v.number; }),

  booleanField("scoring.shareLoadAcrossWorkers", (c: PickerConfig, v: FieldValue): void => { c.shareLoadAcrossWorkers = v.flag; }),

  zeroOrNumberField("loadGuard.factor", 1, 100, (c: PickerConfig, v: FieldValue): void => { c.guardFactor = v.number; }),
  numberField("loadGuard.slack", 0, 1e6, (c: PickerConfig, v: FieldValue): void => { c.guardSlack = v.number; }),

  textField("session.header", TextFormat.HeaderName, (c: PickerConfig, v: FieldValue): void => { c.sessionHeader = v.text; }),

  positiveFractionField("feedback.ewmaAlpha", 0, 1, (c: PickerConfig, v: FieldValue): void => { c.ewmaAlpha = v.number; }),
  integerField("feedback.failureHalfLifeMs", 0, 86400000, (c: PickerConfig, v: FieldValue): void => { c.failureHalfLifeMs = <i32>v.number; }),

  integerField("metrics.snapshotTtlMs", 0, 60000, (c: PickerConfig, v: FieldValue): void => { c.snapshotTtlMs = <i32>v.number; }),
  integerField("metrics.staleAfterMs", 100, MAX_STALE_AFTER_MS, (c: PickerConfig, v: FieldValue): void => { c.staleAfterMs = <i32>v.number; }),
  integerField("metrics.pollIntervalMs", 50, 60000, (c: PickerConfig, v: FieldValue): void => { c.pollIntervalMs = <i32>v.number; }),
  integerField("metrics.pollTimeoutMs", 10, 60000, (c: PickerConfig, v: FieldValue): void => { c.pollTimeoutMs = <i32>v.number; }),
  textField("metrics.path", TextFormat.HttpPath, (c: PickerConfig, v: FieldValue): void => { c.metricsPath = v.text; }),
  integerField("metrics.kvCacheTokens", 0, 1099511627776, (c: PickerConfig, v: FieldValue): void => { c.kvCacheTokens = <i64>v.number; }),

  integerField("limits.maxRequestBodyBytes", 1, 67108864, (c: PickerConfig, v: FieldValue): void => { c.maxRequestBodyBytes = <i32>v.number; }),
  integerField("limits.maxScanSteps", 1000, 100000000, (c: PickerConfig, v: FieldValue): void => { c.maxScanSteps = <i32>v.number; }),
  integerField("limits.maxJsonDepth", 4, 1024, (c: PickerConfig, v: FieldValue): void => { c.maxJsonDepth = <i32>v.number; }),
  integerField("limits.maxEndpoints", 1, 4096, (c: PickerConfig, v: FieldValue): void => { c.maxEndpoints = <i32>v.number; }),
  integerField("limits.maxIndexBytes", 1048576, 1073741824, (c: PickerConfig, v: FieldValue): void => { c.maxIndexBytes = <i64>v.number; }),

  booleanField("debug.header", (c: PickerConfig, v: FieldValue): void => { c.debugHeader = v.flag; }),

  integerField("seed", 0, 9007199254740992, (c: PickerConfig, v: FieldValue): void => { c.seed = <u64>v.number; }),

  choiceField("metric_policy", METRIC_POLICY_NAMES, (c: PickerConfig, v: FieldValue): void => { c.metricPolicy = <i32>v.number; }),
  textField("target_metric", TextFormat.MetricName, (c: PickerConfig, v: FieldValue): void => { c.targetMetric = v.text; }),
  positiveFractionField("rate_limit", 0, 1, (c: PickerConfig, v: FieldValue): void => { c.rateLimit = v.number; }),
  integerField("window_size", 1, 100000, (c: PickerConfig, v: FieldValue): void => { c.windowSize = <i32>v.number; }),
];

/** weights.<name> of every scorer, then each scorer's own keys (scorer-list.ts). */
function scorerFields(): Array<FieldSpec> {
  const kinds = scorerKinds();
  const fields = new Array<FieldSpec>();
  for (let k = 0; k < kinds.length; k++) {
    const f = numberField("weights." + kinds[k].name, 0, 1000, (c: PickerConfig, v: FieldValue): void => {
      c.scoring.weights[v.target] = v.number;
    });
    f.target = k;
    fields.push(f);
  }
  let target = 0;
  for (let k = 0; k < kinds.length; k++) {
    const params = kinds[k].params;
    for (let p = 0; p < params.length; p++) {
      const param = params[p];
      const f = numberField(param.key, param.min, param.max, (c: PickerConfig, v: FieldValue): void => {
        c.scoring.values[v.target] = v.number;
      });
      f.target = target++;
      fields.push(f);
    }
  }
  return fields;
}

let allFields: Array<FieldSpec> | null = null;

/** Every scalar key: the scorers' (weights.<name>, their own keys), then the others. Built on first use. */
export function configFields(): Array<FieldSpec> {
  let fields = allFields;
  if (fields === null) {
    fields = scorerFields().concat(FIXED_FIELDS);
    allFields = fields;
  }
  return fields;
}

/** The spec of the scalar key at the dotted path, or null. */
export function findField(path: string): FieldSpec | null {
  const fields = configFields();
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.path == path) return f;
  }
  for (let i = 0; i < REDIS_FIELDS.length; i++) {
    const f = REDIS_FIELDS[i];
    if (f.path == path) return f;
  }
  for (let i = 0; i < DISCOVERY_FIELDS.length; i++) {
    const f = DISCOVERY_FIELDS[i];
    if (f.path == path) return f;
  }
  return null;
}
