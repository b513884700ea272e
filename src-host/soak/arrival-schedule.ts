// Open-loop arrivals: a fixed number of start times, drawn as a Poisson process conditioned on its count
// (sorted uniform times), so a run offers exactly round(rate × seconds) requests whatever the machine does.
import { SeededRandom } from "../util/seeded-random.ts";

/** Start offsets in milliseconds, ascending, all in [0, seconds × 1000). */
export function arrivalTimesMs(rps: number, seconds: number, seed: number): Float64Array {
  if (!(rps > 0) || !(seconds > 0) || !Number.isFinite(rps * seconds)) throw new RangeError("rps and seconds must be positive and finite");
  const count = Math.max(1, Math.round(rps * seconds));
  const rng = SeededRandom.derive(seed, "arrivals");
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) times[i] = rng.next() * seconds * 1000;
  return times.sort();
}
