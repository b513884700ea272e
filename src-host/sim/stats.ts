// What one policy run measured, and its summary figures.
import { ClosedLoopStats, type ClosedLoopSummary } from "./closed-loop-stats.ts";
import type { IndexDiagnosticsSummary } from "./index-diagnostics.ts";
import type { PlacementSummary } from "./placement-diagnostics.ts";
import { quantile } from "./quantile.ts";

export interface PolicySummary {
  requests: number;
  completed: number;
  failed: number;
  ttft_mean_s: number;
  ttft_p50_s: number;
  ttft_p90_s: number;
  ttft_p99_s: number;
  e2e_p50_s: number;
  /** Prompt tokens served from the pods' caches / prompt tokens, measured by the pods themselves. */
  token_hit_rate: number;
  output_tok_s: number;
  queue_max: number;
  queue_mean: number;
  sim_duration_s: number;
  wall_s: number;
  extra: Record<string, number>;
  /** Arrivals that waited for a ready session, and TTFT counted from the scheduled arrival. */
  closed_loop: ClosedLoopSummary;
  /** Index accuracy of policies that explain their decisions (the picker). */
  index?: IndexDiagnosticsSummary;
  /** Where the policy placed requests against the pods' real caches (every policy, with --diagnose). */
  placement?: PlacementSummary;
  /** First tokens served by the pods no wedge fault names (only for workloads with one). */
  healthy_pods?: HealthyPodsSummary;
  /** LoRA adapters the pods loaded (only for workloads whose pods serve adapters). */
  lora_loads?: number;
  /** Requests sent to a pod that was down or gone, as the policy's deployment still believed it up (each failed; only
   *  for workloads whose pods restart or leave). */
  sent_to_down_pods?: number;
}

export interface HealthyPodsSummary {
  requests: number;
  ttft_p50_s: number;
  ttft_p90_s: number;
  token_hit_rate: number;
}

/** TTFT and hit rate over the first tokens of a subset of the pods. */
export class PodSubsetStats {
  private readonly ttftMs: number[] = [];
  private promptTokens = 0;
  private cachedTokens = 0;

  firstToken(ttftMs: number, cached: number, prompt: number): void {
    this.ttftMs.push(ttftMs);
    this.cachedTokens += cached;
    this.promptTokens += prompt;
  }

  summary(): HealthyPodsSummary {
    const ttft = Float64Array.from(this.ttftMs).sort();
    return {
      requests: ttft.length,
      ttft_p50_s: quantile(ttft, 0.5) / 1000,
      ttft_p90_s: quantile(ttft, 0.9) / 1000,
      token_hit_rate: this.promptTokens > 0 ? this.cachedTokens / this.promptTokens : 0,
    };
  }
}

export interface TimelinePoint {
  /** Bucket start, seconds from the run start. */
  t_s: number;
  hit_rate: number;
  requests: number;
}

export class RunStats {
  readonly ttftMs: number[] = [];
  readonly e2eMs: number[] = [];
  readonly closedLoop = new ClosedLoopStats();
  requests = 0;
  failed = 0;
  promptTokens = 0;
  cachedTokens = 0;
  outputTokens = 0;
  firstArrivalMs = Infinity;
  lastFinishMs = -Infinity;
  queueMax = 0;
  queueSum = 0;
  queueSamples = 0;
  private readonly bucketPrompt: number[] = [];
  private readonly bucketCached: number[] = [];
  private readonly bucketCount: number[] = [];

  constructor(
    readonly startMs: number,
    readonly bucketMs: number,
  ) {}

  firstToken(timeMs: number, ttftMs: number, cached: number, prompt: number): void {
    this.ttftMs.push(ttftMs);
    this.cachedTokens += cached;
    this.promptTokens += prompt;
    const b = Math.max(0, Math.floor((timeMs - this.startMs) / this.bucketMs));
    while (this.bucketPrompt.length <= b) {
      this.bucketPrompt.push(0);
      this.bucketCached.push(0);
      this.bucketCount.push(0);
    }
    this.bucketPrompt[b] += prompt;
    this.bucketCached[b] += cached;
    this.bucketCount[b]++;
  }

  finished(timeMs: number, e2eMs: number, outputTokens: number): void {
    this.e2eMs.push(e2eMs);
    this.outputTokens += outputTokens;
    if (timeMs > this.lastFinishMs) this.lastFinishMs = timeMs;
  }

  sampleQueues(waiting: readonly number[]): void {
    for (const q of waiting) {
      if (q > this.queueMax) this.queueMax = q;
      this.queueSum += q;
      this.queueSamples++;
    }
  }

  timeline(): TimelinePoint[] {
    return this.bucketPrompt.map((p, i) => ({
      t_s: (i * this.bucketMs) / 1000,
      hit_rate: p > 0 ? this.bucketCached[i] / p : 0,
      requests: this.bucketCount[i],
    }));
  }

  summary(
    wallS: number, extra: Record<string, number> = {}, index?: IndexDiagnosticsSummary, placement?: PlacementSummary,
  ): PolicySummary {
    const ttft = Float64Array.from(this.ttftMs).sort();
    const e2e = Float64Array.from(this.e2eMs).sort();
    const span = (this.lastFinishMs - this.firstArrivalMs) / 1000;
    return {
      requests: this.requests,
      completed: e2e.length,
      failed: this.failed,
      ttft_mean_s: mean(ttft) / 1000,
      ttft_p50_s: quantile(ttft, 0.5) / 1000,
      ttft_p90_s: quantile(ttft, 0.9) / 1000,
      ttft_p99_s: quantile(ttft, 0.99) / 1000,
      e2e_p50_s: quantile(e2e, 0.5) / 1000,
      token_hit_rate: this.promptTokens > 0 ? this.cachedTokens / this.promptTokens : 0,
      output_tok_s: span > 0 ? this.outputTokens / span : 0,
      queue_max: this.queueMax,
      queue_mean: this.queueSamples > 0 ? this.queueSum / this.queueSamples : 0,
      sim_duration_s: Number.isFinite(span) ? span : 0,
      wall_s: wallS,
      extra,
      closed_loop: this.closedLoop.summary(ttft, this.requests),
      ...(index !== undefined ? { index } : {}),
      ...(placement !== undefined ? { placement } : {}),
    };
  }
}

function mean(sorted: Float64Array): number {
  if (sorted.length === 0) return 0;
  let s = 0;
  for (let i = 0; i < sorted.length; i++) s += sorted[i];
  return s / sorted.length;
}
