// The `redis.*` settings (replica-shared prefix hints); the keys that fill them are in redis-section.ts.
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
