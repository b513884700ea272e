// How long a process's event loop was held up during the run (a busy or stalled loop delays every request in it).
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export class EventLoopDelayMonitor {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });

  start(): this {
    this.histogram.enable();
    return this;
  }

  stop(): LoopDelay {
    this.histogram.disable();
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    return { p50Ms: ms(this.histogram.percentile(50)), p99Ms: ms(this.histogram.percentile(99)), maxMs: ms(this.histogram.max) };
  }
}
