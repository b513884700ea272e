// Counters and gauges the plugin exports through proxy-wasm metrics (Envoy shows them as
// wasmcustom.endpoint_picker.*). Ids are defined once at configure time; the hot path only increments.
import { defineMetric, incrementMetric } from "../abi/host";
import { MetricType } from "../abi/types";
import { Stage, stageEnter, stageLeave } from "../abi/stage-profile";
import { FALLBACK_NAMES, Fallback } from "./fallback";
import { PREFIX_SKIP_NAMES } from "./prefix-skip";

const UNDEFINED: u32 = u32.MAX_VALUE;

export class Telemetry {
  requests: u32 = UNDEFINED;
  decisions: u32 = UNDEFINED;
  prefixMatchedChars: u32 = UNDEFINED;
  prefixTotalChars: u32 = UNDEFINED;
  prefixHits: u32 = UNDEFINED;
  inflight: u32 = UNDEFINED;
  metricsParseErrors: u32 = UNDEFINED;
  hostErrors: u32 = UNDEFINED;
  evictedEndpoints: u32 = UNDEFINED;
  pollFailures: u32 = UNDEFINED;
  sharedHintHits: u32 = UNDEFINED;
  overrideHeaderRefusals: u32 = UNDEFINED;
  unsizedBodies: u32 = UNDEFINED;
  readonly fallbacks: StaticArray<u32> = new StaticArray<u32>(Fallback.Count);
  readonly prefixSkips: StaticArray<u32> = new StaticArray<u32>(PREFIX_SKIP_NAMES.length);

  define(): void {
    const p = "endpoint_picker.";
    this.requests = defineMetric(MetricType.Counter, p + "requests");
    this.decisions = defineMetric(MetricType.Counter, p + "decisions");
    this.prefixMatchedChars = defineMetric(MetricType.Counter, p + "prefix_matched_chars");
    this.prefixTotalChars = defineMetric(MetricType.Counter, p + "prefix_total_chars");
    this.prefixHits = defineMetric(MetricType.Counter, p + "prefix_hits");
    this.inflight = defineMetric(MetricType.Gauge, p + "inflight");
    this.metricsParseErrors = defineMetric(MetricType.Counter, p + "metrics_parse_errors");
    this.hostErrors = defineMetric(MetricType.Counter, p + "host_errors");
    this.evictedEndpoints = defineMetric(MetricType.Counter, p + "evicted_endpoints");
    this.pollFailures = defineMetric(MetricType.Counter, p + "poll_failures");
    this.sharedHintHits = defineMetric(MetricType.Counter, p + "shared_hint_hits");
    this.overrideHeaderRefusals = defineMetric(MetricType.Counter, p + "override_header_refusals");
    this.unsizedBodies = defineMetric(MetricType.Counter, p + "unsized_bodies");
    for (let i = 1; i < Fallback.Count; i++) this.fallbacks[i] = defineMetric(MetricType.Counter, p + "fallback." + FALLBACK_NAMES[i]);
    for (let i = 1; i < PREFIX_SKIP_NAMES.length; i++) this.prefixSkips[i] = defineMetric(MetricType.Counter, p + "prefix_skipped." + PREFIX_SKIP_NAMES[i]);
  }

  @inline add(id: u32, delta: i64): void {
    if (id != UNDEFINED && delta != 0) {
      stageEnter(Stage.Telemetry);
      incrementMetric(id, delta);
      stageLeave();
    }
  }

  fallback(reason: i32): void {
    if (reason > 0 && reason < Fallback.Count) this.add(this.fallbacks[reason], 1);
  }

  prefixSkip(reason: i32): void {
    if (reason > 0 && reason < PREFIX_SKIP_NAMES.length) this.add(this.prefixSkips[reason], 1);
  }
}
