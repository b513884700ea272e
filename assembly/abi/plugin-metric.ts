// Metrics a plugin exports through proxy-wasm (Envoy shows them as wasmcustom.<name>). A MetricList declares
// each of its metrics once, as a field initialised with its name; defineAll() gives every declared one its host
// id. Increments are held in the plugin's memory and written to the host in one batch by flush(): a host call per
// metric per request was a tenth of a request's own cost. The owner flushes on its tick (at most a second apart:
// picker-root.ts METRICS_FLUSH_MS, which bounds how far a metric lags) and when it goes, never on a request: a flush
// every 64 increments still made one call per two requests. Core telemetry and the replica counters are both
// MetricLists.
import { defineMetric, incrementMetric } from "./host";
import { MetricType } from "./types";
import { Stage, stageEnter, stageLeave } from "./stage-profile";

/** The id of a metric that is not defined (never declared to the host, or refused by it): adding does nothing. */
export const UNDEFINED_METRIC: u32 = u32.MAX_VALUE;

/** One exported metric: its name under its list's prefix, its type and, once defined, its host id. */
export class PluginMetric {
  id: u32 = UNDEFINED_METRIC;
  /** Added since the last flush, not yet written to the host. */
  held: i64 = 0;
  constructor(readonly type: MetricType, readonly name: string) {}
}

export abstract class MetricList {
  /** Every declared metric, in declaration order. */
  private readonly all: Array<PluginMetric> = [];

  /** Adds delta to the metric (nothing for an undefined one); written to the host by the next flush. */
  add(metric: PluginMetric, delta: i64): void {
    if (metric.id == UNDEFINED_METRIC || delta == 0) return;
    metric.held += delta;
  }

  /** Writes every held-back increment to the host: one proxy_increment_metric per metric that changed. */
  flush(): void {
    stageEnter(Stage.Telemetry);
    const all = this.all;
    for (let i = 0; i < all.length; i++) {
      const m = unchecked(all[i]);
      const held = m.held;
      if (held == 0) continue;
      m.held = 0;
      incrementMetric(m.id, held);
    }
    stageLeave();
  }

  /** Defines every declared metric with the host, named prefix + its name. */
  protected defineAll(prefix: string): void {
    const all = this.all;
    for (let i = 0; i < all.length; i++) {
      const m = unchecked(all[i]);
      m.id = defineMetric(m.type, prefix + m.name);
    }
  }

  protected counter(name: string): PluginMetric {
    return this.declare(MetricType.Counter, name);
  }

  protected gauge(name: string): PluginMetric {
    return this.declare(MetricType.Gauge, name);
  }

  // A counter per name but the first: index 0 ("none") holds a metric that is never defined, so adding to it
  // does nothing.
  protected counters(prefix: string, names: StaticArray<string>): StaticArray<PluginMetric> {
    const out = new StaticArray<PluginMetric>(names.length);
    out[0] = new PluginMetric(MetricType.Counter, prefix + names[0]);
    for (let i = 1; i < names.length; i++) out[i] = this.counter(prefix + names[i]);
    return out;
  }

  private declare(type: MetricType, name: string): PluginMetric {
    const m = new PluginMetric(type, name);
    this.all.push(m);
    return m;
  }
}
