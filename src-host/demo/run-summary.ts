// The figures of one demo run: request and error counts, the backends' token-weighted prefix-cache hit rate,
// client-side TTFT percentiles and output throughput.
import { quantile } from "../sim/quantile.ts";
import type { RequestSample } from "./conversation-runner.ts";
import type { PrefixCacheCounters } from "./demo-cluster.ts";

export interface RunSummary {
  requests: number;
  errors: number;
  /** Sum of prefix-cache hit tokens / sum of queried tokens over all backends; 0 when nothing was queried. */
  cacheHitRate: number;
  cacheHitTokens: number;
  cacheQueryTokens: number;
  ttftMs: { p50: number; p90: number; p99: number; mean: number };
  outputTokens: number;
  outputTokensPerSecond: number;
  wallSeconds: number;
  /** Requests served by each backend (x-backend-id). */
  byBackend: Record<string, number>;
  /** Share of follow-up turns answered by the backend that answered the conversation's previous turn. */
  sameBackendFollowUps: number;
  /** Up to five distinct error messages. */
  errorMessages: string[];
}

export function summarizeRun(samples: readonly RequestSample[], counters: PrefixCacheCounters, wallMs: number): RunSummary {
  const ttfts = sortedTtfts(samples);
  const outputTokens = samples.reduce((n, s) => n + s.outputTokens, 0);
  const byBackend: Record<string, number> = {};
  for (const s of samples) if (s.backend !== null) byBackend[s.backend] = (byBackend[s.backend] ?? 0) + 1;
  const wallSeconds = wallMs / 1000;
  return {
    requests: samples.length,
    errors: samples.filter((s) => s.error !== null).length,
    cacheHitRate: counters.queries > 0 ? counters.hits / counters.queries : 0,
    cacheHitTokens: counters.hits,
    cacheQueryTokens: counters.queries,
    ttftMs: {
      p50: quantile(ttfts, 0.5),
      p90: quantile(ttfts, 0.9),
      p99: quantile(ttfts, 0.99),
      mean: ttfts.length ? ttfts.reduce((a, b) => a + b, 0) / ttfts.length : 0,
    },
    outputTokens,
    outputTokensPerSecond: wallSeconds > 0 ? outputTokens / wallSeconds : 0,
    wallSeconds,
    sameBackendFollowUps: sameBackendShare(samples),
    errorMessages: [...new Set(samples.flatMap((s) => (s.error === null ? [] : [s.error])))].slice(0, 5),
    byBackend: Object.fromEntries(Object.entries(byBackend).sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))),
  };
}

/** Successful requests' TTFTs in ascending order (the CDF's x values). */
export function sortedTtfts(samples: readonly RequestSample[]): number[] {
  return samples.flatMap((s) => (s.error === null && s.ttftMs !== null ? [s.ttftMs] : [])).sort((a, b) => a - b);
}

function sameBackendShare(samples: readonly RequestSample[]): number {
  const previous = new Map<string, string | null>();
  for (const s of samples) previous.set(`${s.conversation}/${s.turn}`, s.backend);
  let followUps = 0;
  let same = 0;
  for (const s of samples) {
    if (s.turn === 0 || s.backend === null) continue;
    const before = previous.get(`${s.conversation}/${s.turn - 1}`);
    if (before === undefined || before === null) continue;
    followUps++;
    if (before === s.backend) same++;
  }
  return followUps > 0 ? same / followUps : 0;
}
