// Counters and gauges the plugin exports through proxy-wasm metrics (Envoy shows them as
// wasmcustom.endpoint_picker.*). Each is declared once, below, with its name; define() gives every declared one
// its host id at configure time; increments are held back and written out in batches (abi/plugin-metric.ts).
import { MetricList, PluginMetric } from "../abi/plugin-metric";
import { FALLBACK_NAMES, Fallback } from "./fallback";
import { PREFIX_SKIP_NAMES } from "../request/prefix-skip";

export { PluginMetric } from "../abi/plugin-metric";

const PREFIX = "endpoint_picker.";

export class Telemetry extends MetricList {
  readonly requests: PluginMetric = this.counter("requests");
  readonly decisions: PluginMetric = this.counter("decisions");
  readonly prefixMatchedChars: PluginMetric = this.counter("prefix_matched_chars");
  readonly prefixTotalChars: PluginMetric = this.counter("prefix_total_chars");
  readonly prefixHits: PluginMetric = this.counter("prefix_hits");
  readonly inflight: PluginMetric = this.gauge("inflight");
  readonly metricsParseErrors: PluginMetric = this.counter("metrics_parse_errors");
  readonly hostErrors: PluginMetric = this.counter("host_errors");
  readonly evictedEndpoints: PluginMetric = this.counter("evicted_endpoints");
  readonly pollFailures: PluginMetric = this.counter("poll_failures");
  readonly sharedHintHits: PluginMetric = this.counter("shared_hint_hits");
  readonly sharedHintsExpired: PluginMetric = this.counter("shared_hints_expired");
  readonly answerCredits: PluginMetric = this.counter("answer_credits");
  readonly hotPreambleSpreads: PluginMetric = this.counter("hot_preamble_spreads");
  readonly overrideHeaderRefusals: PluginMetric = this.counter("override_header_refusals");
  readonly unsizedBodies: PluginMetric = this.counter("unsized_bodies");
  readonly lateBodyReads: PluginMetric = this.counter("late_body_reads");
  readonly discoveryFailures: PluginMetric = this.counter("discovery_failures");
  readonly discoveryDroppedEndpoints: PluginMetric = this.counter("discovery_dropped_endpoints");
  readonly discoveryUnreadableAnswers: PluginMetric = this.counter("discovery_unreadable_answers");
  /** One per fail-open reason (index = Fallback; "none" has no counter). */
  readonly fallbacks: StaticArray<PluginMetric> = this.counters("fallback.", FALLBACK_NAMES);
  /** One per reason a request got no prefix signal (index = PrefixSkip; "none" has no counter). */
  readonly prefixSkips: StaticArray<PluginMetric> = this.counters("prefix_skipped.", PREFIX_SKIP_NAMES);

  /** Defines every declared metric with the host. */
  define(): void {
    this.defineAll(PREFIX);
  }

  fallback(reason: i32): void {
    if (reason > 0 && reason < Fallback.Count) this.add(unchecked(this.fallbacks[reason]), 1);
  }

  prefixSkip(reason: i32): void {
    if (reason > 0 && reason < this.prefixSkips.length) this.add(unchecked(this.prefixSkips[reason]), 1);
  }
}
