// The gateway process's memory over the run: RSS, JS heap and each plugin VM's linear memory, sampled at
// fixed fractions of the run, and whether linear memory still grew after warm-up.
import type { PluginHost } from "../host/plugin-host.ts";

export interface MemorySample {
  /** Share of the planned run elapsed when sampled (1 = end of schedule; the last sample is after the drain). */
  at: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** Per worker VM. */
  linearMemoryBytes: number[];
}

export interface MemoryVerdict {
  /** Any worker's linear memory at the end above its size at the middle of the run. */
  linearGrewInSecondHalf: boolean;
  /** The earliest sample share after which no worker's linear memory changed. */
  linearFlatFrom: number | null;
}

export function sampleMemory(at: number, host: PluginHost | null): MemorySample {
  const m = process.memoryUsage();
  return { at, rssBytes: m.rss, heapUsedBytes: m.heapUsed, linearMemoryBytes: host ? host.workers.map((w) => w.vm.linearMemoryBytes()) : [] };
}

/** Samples `host` every `step` of a run of `runMs` (starting now, with a sample at 0) until stopped. */
export class MemorySeries {
  readonly samples: MemorySample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private taken = 0;
  private started = 0;

  constructor(
    private readonly host: PluginHost | null,
    private readonly runMs: number,
    private readonly step = 0.1,
  ) {}

  start(): void {
    const started = (this.started = performance.now());
    this.samples.push(sampleMemory(0, this.host));
    const steps = Math.round(1 / this.step);
    const scheduleNext = () => {
      if (this.taken >= steps) return;
      const due = ((this.taken + 1) * this.step * this.runMs) - (performance.now() - started);
      this.timer = setTimeout(() => {
        this.taken++;
        this.samples.push(sampleMemory(Math.round(this.taken * this.step * 1000) / 1000, this.host));
        scheduleNext();
      }, Math.max(0, due));
    };
    scheduleNext();
  }

  /** Stops sampling and takes a last sample (after the drain, so usually past 100%). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.samples.push(sampleMemory(Math.round(((performance.now() - this.started) / this.runMs) * 1000) / 1000, this.host));
  }
}

export function memoryVerdict(samples: readonly MemorySample[]): MemoryVerdict {
  const withLinear = samples.filter((s) => s.linearMemoryBytes.length > 0);
  if (withLinear.length === 0) return { linearGrewInSecondHalf: false, linearFlatFrom: null };
  const last = withLinear[withLinear.length - 1];
  // The latest sample at or before the middle of the run.
  const middle = [...withLinear].reverse().find((s) => s.at <= 0.5) ?? withLinear[0];
  const grew = last.linearMemoryBytes.some((b, w) => b > (middle.linearMemoryBytes[w] ?? 0));
  let flatFrom = last.at;
  for (let i = withLinear.length - 2; i >= 0; i--) {
    if (withLinear[i].linearMemoryBytes.some((b, w) => b !== last.linearMemoryBytes[w])) break;
    flatFrom = withLinear[i].at;
  }
  return { linearGrewInSecondHalf: grew, linearFlatFrom: flatFrom };
}
