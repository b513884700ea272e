// Counters of the replica hints (endpoint_picker.redis.*): what was asked and found, and every way Redis
// failed, each a fail-open that cost only the affinity.
import { defineMetric, incrementMetric } from "../abi/host";
import { MetricType } from "../abi/types";

export class RedisTelemetry {
  lookups: u32 = 0;
  hits: u32 = 0;
  misses: u32 = 0;
  publishes: u32 = 0;
  /** The call failed before its timeout: no connection, connection lost. */
  unavailable: u32 = 0;
  /** No reply within redis.timeoutMs. */
  timeout: u32 = 0;
  /** Redis answered with an error (-ERR, -NOAUTH, -NOPERM, ...). */
  error: u32 = 0;
  /** Redis answered -OOM: it is full. */
  full: u32 = 0;
  /** The reply was not what the command returns. */
  garbage: u32 = 0;
  /** proxy_redis_call refused (unknown cluster, no host). */
  dispatchFailed: u32 = 0;
  /** proxy_redis_init refused. */
  initFailed: u32 = 0;
  /** Too many calls in flight on this worker: skipped. */
  busy: u32 = 0;
  /** Skipped while backing off after a failure. */
  backoff: u32 = 0;

  constructor() {
    const p = "endpoint_picker.redis.";
    this.lookups = defineMetric(MetricType.Counter, p + "lookups");
    this.hits = defineMetric(MetricType.Counter, p + "hits");
    this.misses = defineMetric(MetricType.Counter, p + "misses");
    this.publishes = defineMetric(MetricType.Counter, p + "publishes");
    this.unavailable = defineMetric(MetricType.Counter, p + "unavailable");
    this.timeout = defineMetric(MetricType.Counter, p + "timeout");
    this.error = defineMetric(MetricType.Counter, p + "error");
    this.full = defineMetric(MetricType.Counter, p + "full");
    this.garbage = defineMetric(MetricType.Counter, p + "garbage");
    this.dispatchFailed = defineMetric(MetricType.Counter, p + "dispatch_failed");
    this.initFailed = defineMetric(MetricType.Counter, p + "init_failed");
    this.busy = defineMetric(MetricType.Counter, p + "busy");
    this.backoff = defineMetric(MetricType.Counter, p + "backoff");
  }

  @inline count(id: u32): void {
    if (id != u32.MAX_VALUE) incrementMetric(id, 1);
  }
}
