// Metrics a plugin exports through proxy-wasm (Envoy shows them as wasmcustom.<name>). A MetricList declares
// each of its metrics once, as a field initialised with its name; defineAll() gives every declared one its host
// id, and increments go to that id. Core telemetry and the replica counters are both MetricLists.
import { defineMetric } from "./host";
import { MetricType } from "./types";

/** The id of a metric that is not defined (never declared to the host, or refused by it): adding does nothing. */
export const UNDEFINED_METRIC: u32 = u32.MAX_VALUE;

/** One exported metric: its name under its list's prefix, its type and, once defined, its host id. */
export class PluginMetric {
  id: u32 = UNDEFINED_METRIC;
  constructor(readonly type: MetricType, readonly name: string) {}
}

export abstract class MetricList {
  /** Every metric declared, in declaration order. */
  private readonly all: Array<PluginMetric> = [];

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
