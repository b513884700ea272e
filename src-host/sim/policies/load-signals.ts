// Load scores shared by the scoring policies, normalized as the inference extension's scorers do:
// queue = (max - q) / (max - min) over the candidates (1 when all equal), kv = 1 - usage.

export function queueScores(waiting: ArrayLike<number>, out: Float64Array): Float64Array {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < waiting.length; i++) {
    if (waiting[i] < min) min = waiting[i];
    if (waiting[i] > max) max = waiting[i];
  }
  for (let i = 0; i < waiting.length; i++) out[i] = max === min ? 1 : (max - waiting[i]) / (max - min);
  return out;
}

export function kvScore(usage: number): number {
  return 1 - usage;
}

/** Index of the highest score; ties broken uniformly with `random` (the max-score picker shuffles first). */
export function argMaxRandomTie(scores: ArrayLike<number>, n: number, random: () => number): number {
  let best = -Infinity;
  let ties = 0;
  let chosen = 0;
  for (let i = 0; i < n; i++) {
    const s = scores[i];
    if (s > best + 1e-12) {
      best = s;
      ties = 1;
      chosen = i;
    } else if (Math.abs(s - best) <= 1e-12) {
      ties++;
      // Reservoir choice: each of the tied indices ends up chosen with probability 1 / ties.
      if (random() * ties < 1) chosen = i;
    }
  }
  return chosen;
}
