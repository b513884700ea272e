// Side-by-side timing that tolerates noisy machines: every contender runs once per round, rounds alternate
// the order (A B C, then C B A, ...), and results are medians over rounds. A ratio is the median of the
// per-round ratios, so a slow patch of the machine that hits both contenders of a round cancels out.

export interface Contender {
  name: string;
  /** Runs the operation `iterations` times. */
  run(iterations: number): void;
}

export interface RoundsOptions {
  rounds: number;
  /** Wall time each contender should take per round; sets its iteration count. */
  targetMs: number;
  /** At least this many iterations per round (for operations slower than targetMs). */
  minIterations?: number;
  /** "wall" (default) or "cpu": this process's CPU time, which leaves out the time other processes had the core. */
  clock?: "wall" | "cpu";
}

export interface RoundsResult {
  /** Iterations per round, by contender. */
  iterations: Record<string, number>;
  /** Microseconds per operation in each round, by contender. */
  samplesUs: Record<string, number[]>;
  /** Median over rounds of microseconds per operation, by contender. */
  medianUs: Record<string, number>;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median over rounds of a[r] / b[r]. */
export function medianRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((v, r) => v / b[r]));
}

function elapsedMs(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** User + system CPU time of the process (microsecond resolution: for rounds of milliseconds). */
function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e3;
}

/**
 * Iterations that take about targetMs. The count doubles until one run takes at least half of targetMs (which
 * also warms the JIT up), then the fastest of three runs with that count sets the final one.
 */
function calibrate(c: Contender, targetMs: number, minIterations: number): number {
  let n = 1;
  while (n < 1 << 24 && elapsedMs(() => c.run(n)) < targetMs / 2) n *= 2;
  // The fastest of three runs: a collection or a JIT tier-up in one of them must not shrink the count.
  const ms = Math.min(elapsedMs(() => c.run(n)), elapsedMs(() => c.run(n)), elapsedMs(() => c.run(n)));
  return Math.max(minIterations, Math.round((targetMs * n) / Math.max(ms, 1e-3)));
}

export function interleavedRounds(contenders: readonly Contender[], options: RoundsOptions): RoundsResult {
  const iterations: Record<string, number> = {};
  const samplesUs: Record<string, number[]> = {};
  for (const c of contenders) {
    iterations[c.name] = calibrate(c, options.targetMs, options.minIterations ?? 1);
    samplesUs[c.name] = [];
  }
  const measure = options.clock === "cpu" ? cpuMs : elapsedMs;
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const c of order) {
      const n = iterations[c.name];
      samplesUs[c.name].push((measure(() => c.run(n)) * 1000) / n);
    }
  }
  const medianUs: Record<string, number> = {};
  for (const c of contenders) medianUs[c.name] = median(samplesUs[c.name]);
  return { iterations, samplesUs, medianUs };
}
