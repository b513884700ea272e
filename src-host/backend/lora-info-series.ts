// vllm:lora_requests_info as a vLLM server accumulates it: prometheus_client keeps a gauge child for every label set
// ever set, in the order they were first set, and vLLM sets the child of the current (running, waiting) adapter
// lists to the current time at each step (vllm/v1/metrics/loggers.py PrometheusStatLogger.record,
// gauge_lora_info.labels(...).set_to_current_time()). A set seen before keeps its place and takes the new time;
// the others keep the time they were last current.

export interface LoraInfoSample {
  /** The running_lora_adapters label: adapter names joined by ",". */
  running: string;
  waiting: string;
  /** Unix seconds when this set was last the current one. */
  seconds: number;
}

export class LoraInfoSeries {
  private readonly byLabels = new Map<string, LoraInfoSample>();

  /** The server's adapter lists at `nowSeconds`. */
  set(running: readonly string[], waiting: readonly string[], nowSeconds: number): void {
    const sample = { running: running.join(","), waiting: waiting.join(","), seconds: nowSeconds };
    const key = JSON.stringify([sample.running, sample.waiting]);
    const known = this.byLabels.get(key);
    if (known !== undefined) known.seconds = nowSeconds;
    else this.byLabels.set(key, sample);
  }

  /** Every set seen, in the order first seen. */
  samples(): LoraInfoSample[] {
    return [...this.byLabels.values()];
  }
}
