// The `redis.*` keys: replica-shared prefix hints through Higress's Redis host calls (Higress build only;
// the stock build refuses the section, see parse-config.ts). Off unless `redis.cluster` is set.
import { PickerConfig } from "./picker-config";
import { FieldValue, TextFormat, integerField, textField, FieldSpec } from "./field-spec";

export const REDIS_SECTION = "redis";

export class RedisConfig {
  /** Higress cluster name, e.g. `outbound|6379||redis.default.svc.cluster.local`; "" disables. */
  cluster: string = "";
  username: string = "";
  password: string = "";
  /** The host's per-call timeout (proxy_redis_init's timeout_milliseconds). */
  timeoutMs: i32 = 20;
  keyPrefix: string = "epp:";
  ttlMs: i32 = 600000;
  /** Any redis.* key was given (then redis.cluster is required). */
  seen: bool = false;

  get enabled(): bool {
    return this.cluster.length > 0;
  }

  copyFrom(o: RedisConfig): void {
    this.cluster = o.cluster;
    this.username = o.username;
    this.password = o.password;
    this.timeoutMs = o.timeoutMs;
    this.keyPrefix = o.keyPrefix;
    this.ttlMs = o.ttlMs;
    this.seen = o.seen;
  }
}

export const REDIS_FIELDS: Array<FieldSpec> = [
  textField("redis.cluster", TextFormat.ClusterName, (c: PickerConfig, v: FieldValue): void => { c.redis.cluster = v.text; c.redis.seen = true; }),
  textField("redis.username", TextFormat.Credential, (c: PickerConfig, v: FieldValue): void => { c.redis.username = v.text; c.redis.seen = true; }),
  textField("redis.password", TextFormat.Credential, (c: PickerConfig, v: FieldValue): void => { c.redis.password = v.text; c.redis.seen = true; }),
  integerField("redis.timeoutMs", 1, 10000, (c: PickerConfig, v: FieldValue): void => { c.redis.timeoutMs = <i32>v.number; c.redis.seen = true; }),
  textField("redis.keyPrefix", TextFormat.KeyPrefix, (c: PickerConfig, v: FieldValue): void => { c.redis.keyPrefix = v.text; c.redis.seen = true; }),
  integerField("redis.ttlMs", 1000, 86400000, (c: PickerConfig, v: FieldValue): void => { c.redis.ttlMs = <i32>v.number; c.redis.seen = true; }),
];
