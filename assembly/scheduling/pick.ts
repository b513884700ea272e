// Chooses the healthy candidate with the highest total; totals within TIE_EPSILON of the best are ties, broken
// uniformly at random so equally good endpoints share the load instead of the first one taking it all.
import { Candidates } from "./candidates";
import { Rng } from "./rng";

export const TIE_EPSILON: f64 = 1e-9;

// Returns the candidate index, or -1 when no candidate is healthy.
export function pickBest(c: Candidates, total: StaticArray<f64>, rng: Rng): i32 {
  const n = c.boundedCount(total.length);
  const healthy = c.healthy;
  let best = -Infinity;
  let found = false;
  for (let i = 0; i < n; i++) {
    if (!unchecked(healthy[i])) continue;
    const t = unchecked(total[i]);
    if (t > best || !found) {
      if (t != t) continue; // NaN never wins
      best = t;
      found = true;
    }
  }
  return found ? pickAmongBest(c, total, best, rng) : -1;
}

// pickBest given its best healthy total (NaN when no candidate is healthy), e.g. from score.ts totalScores.
export function pickAmongBest(c: Candidates, total: StaticArray<f64>, best: f64, rng: Rng): i32 {
  if (best != best) return -1;
  const n = c.boundedCount(total.length);
  const healthy = c.healthy;
  const floor = best - TIE_EPSILON;
  let ties = 0;
  let firstTie = -1;
  for (let i = 0; i < n; i++) {
    if (unchecked(healthy[i]) && unchecked(total[i]) >= floor) {
      if (ties == 0) firstTie = i;
      ties++;
    }
  }
  if (ties == 1) return firstTie;
  let k = ties > 1 ? rng.below(ties) : 0;
  for (let i = 0; i < n; i++) {
    if (unchecked(healthy[i]) && unchecked(total[i]) >= floor) {
      if (k == 0) return i;
      k--;
    }
  }
  return -1;
}
