// Candidates that differ only in one load signal, for the queue and in-flight score specs.
import { Candidates, LoraState } from "../../../assembly/scheduling/candidates";

/** Healthy candidates with metrics, each with the given waiting count. */
export function withWaiting(values: Array<f64>): Candidates {
  const c = new Candidates(8);
  for (let i = 0; i < values.length; i++) c.add(i, true, true, values[i], 0, 0, false, 0, 0, LoraState.Unknown, 0, false);
  return c;
}

/** Healthy candidates without metrics, each with the given requests in flight. */
export function withInflight(values: Array<i32>): Candidates {
  const c = new Candidates(8);
  for (let i = 0; i < values.length; i++) c.add(i, true, false, 0, 0, 0, false, values[i], 0, LoraState.Unknown, 0, false);
  return c;
}
