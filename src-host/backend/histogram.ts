// A Prometheus-style histogram (cumulative buckets are derived at render time).

/** vLLM's buckets for vllm:time_to_first_token_seconds. */
export const TTFT_BUCKETS_SECONDS: readonly number[] = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
  160.0, 640.0, 2560.0,
];

export interface HistogramSnapshot {
  /** Upper bounds, ascending, without +Inf. */
  bounds: readonly number[];
  /** Cumulative counts per bound (same length as bounds); the +Inf bucket equals `count`. */
  cumulative: number[];
  sum: number;
  count: number;
}

export class Histogram {
  private readonly counts: Float64Array;
  private total = 0;
  private sumOfValues = 0;

  constructor(readonly bounds: readonly number[]) {
    for (let i = 1; i < bounds.length; i++) {
      if (!(bounds[i] > bounds[i - 1])) throw new RangeError("histogram bounds must ascend");
    }
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.counts[i]++;
    this.total++;
    this.sumOfValues += value;
  }

  snapshot(): HistogramSnapshot {
    const cumulative: number[] = [];
    let acc = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      acc += this.counts[i];
      cumulative.push(acc);
    }
    return { bounds: this.bounds, cumulative, sum: this.sumOfValues, count: this.total };
  }
}
