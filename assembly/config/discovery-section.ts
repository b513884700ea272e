// The `discovery.*` keys: the stock Envoy build learns its endpoints from Envoy's admin /clusters (off unless
// `discovery.cluster` is set; the Higress build ignores the section, as it does `endpoints`).
import { PickerConfig } from "./picker-config";
import { FieldValue, TextFormat, integerField, textField, FieldSpec } from "./field-spec";

export const DISCOVERY_SECTION = "discovery";

export const DISCOVERY_FIELDS: Array<FieldSpec> = [
  textField("discovery.cluster", TextFormat.ClusterName, (c: PickerConfig, v: FieldValue): void => { c.discovery.cluster = v.text; c.discovery.seen = true; }),
  textField("discovery.path", TextFormat.HttpPath, (c: PickerConfig, v: FieldValue): void => { c.discovery.path = v.text; c.discovery.seen = true; }),
  textField("discovery.servingCluster", TextFormat.ClusterName, (c: PickerConfig, v: FieldValue): void => { c.discovery.servingCluster = v.text; c.discovery.seen = true; }),
  textField("discovery.metricsCluster", TextFormat.ClusterName, (c: PickerConfig, v: FieldValue): void => { c.discovery.metricsCluster = v.text; c.discovery.seen = true; }),
  integerField("discovery.intervalMs", 50, 60000, (c: PickerConfig, v: FieldValue): void => { c.discovery.intervalMs = <i32>v.number; c.discovery.seen = true; }),
  integerField("discovery.timeoutMs", 10, 60000, (c: PickerConfig, v: FieldValue): void => { c.discovery.timeoutMs = <i32>v.number; c.discovery.seen = true; }),
  integerField("discovery.maxBodyBytes", 1024, 16777216, (c: PickerConfig, v: FieldValue): void => { c.discovery.maxBodyBytes = <i32>v.number; c.discovery.seen = true; }),
];

/** The keys that must be given once any discovery key is. */
export const DISCOVERY_REQUIRED: Array<string> = ["discovery.cluster", "discovery.servingCluster", "discovery.metricsCluster"];
