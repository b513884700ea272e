// Counters of the replica hints (endpoint_picker.redis.*): what was asked and found, and every way Redis
// failed, each a fail-open that cost only the affinity. Declared once each, with its name, as in
// core/telemetry.ts.
import { MetricList, PluginMetric } from "../abi/plugin-metric";

export class RedisTelemetry extends MetricList {
  readonly lookups: PluginMetric = this.counter("lookups");
  readonly hits: PluginMetric = this.counter("hits");
  readonly misses: PluginMetric = this.counter("misses");
  readonly publishes: PluginMetric = this.counter("publishes");
  /** A hint named an endpoint whose engine restarted after it was published, or was this gateway's own and older
   *  than the endpoint's cache keeps a request's blocks: not credited. */
  readonly stale: PluginMetric = this.counter("stale");
  /** The call failed before its timeout: no connection, connection lost. */
  readonly unavailable: PluginMetric = this.counter("unavailable");
  /** No reply within redis.timeoutMs. */
  readonly timeout: PluginMetric = this.counter("timeout");
  /** Redis answered with an error (-ERR, -NOAUTH, -NOPERM, ...). */
  readonly error: PluginMetric = this.counter("error");
  /** Redis answered -OOM: it is full. */
  readonly full: PluginMetric = this.counter("full");
  /** The reply was not what the command returns. */
  readonly garbage: PluginMetric = this.counter("garbage");
  /** proxy_redis_call refused (unknown cluster, no host). */
  readonly dispatchFailed: PluginMetric = this.counter("dispatch_failed");
  /** proxy_redis_init refused. */
  readonly initFailed: PluginMetric = this.counter("init_failed");
  /** Too many calls in flight on this worker: skipped. */
  readonly busy: PluginMetric = this.counter("busy");
  /** Skipped while backing off after a failure. */
  readonly backoff: PluginMetric = this.counter("backoff");

  /** Defines every declared metric with the host. */
  define(): void {
    this.defineAll("endpoint_picker.redis.");
  }

  @inline count(metric: PluginMetric): void {
    this.add(metric, 1);
  }
}
