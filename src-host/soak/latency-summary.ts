// Percentiles of a sample (nearest rank), for latency and lag figures.

export interface LatencySummary {
  n: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** Nearest-rank percentile of an ascending array: the smallest value with at least q of the sample at or below it. */
export function percentileOfSorted(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    p50: percentileOfSorted(sorted, 0.5),
    p90: percentileOfSorted(sorted, 0.9),
    p99: percentileOfSorted(sorted, 0.99),
    max: sorted.length > 0 ? sorted[sorted.length - 1] : null,
    mean: sorted.length > 0 ? sum / sorted.length : null,
  };
}
