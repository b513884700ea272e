// The `redis.*` keys: replica-shared prefix hints through Higress's Redis host calls (Higress build only;
// the stock build refuses the section, see parse-config.ts). Off unless `redis.cluster` is set.
import { PickerConfig } from "./picker-config";
import { FieldValue, TextFormat, integerField, textField, FieldSpec } from "./field-spec";

export const REDIS_SECTION = "redis";


export const REDIS_FIELDS: Array<FieldSpec> = [
  textField("redis.cluster", TextFormat.ClusterName, (c: PickerConfig, v: FieldValue): void => { c.redis.cluster = v.text; c.redis.seen = true; }),
  textField("redis.username", TextFormat.Credential, (c: PickerConfig, v: FieldValue): void => { c.redis.username = v.text; c.redis.seen = true; }),
  textField("redis.password", TextFormat.Credential, (c: PickerConfig, v: FieldValue): void => { c.redis.password = v.text; c.redis.seen = true; }),
  integerField("redis.timeoutMs", 1, 10000, (c: PickerConfig, v: FieldValue): void => { c.redis.timeoutMs = <i32>v.number; c.redis.seen = true; }),
  textField("redis.keyPrefix", TextFormat.KeyPrefix, (c: PickerConfig, v: FieldValue): void => { c.redis.keyPrefix = v.text; c.redis.seen = true; }),
  integerField("redis.ttlMs", 1000, 86400000, (c: PickerConfig, v: FieldValue): void => { c.redis.ttlMs = <i32>v.number; c.redis.seen = true; }),
];
