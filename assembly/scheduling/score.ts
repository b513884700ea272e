// Weighted total per candidate: sum over signals of w_s * score_s / (configured weight sum). The denominator is
// fixed, so a signal a candidate lacks (score 0) lowers its total instead of being averaged away.
// Unhealthy candidates get 0 (pick.ts never chooses them anyway).
import { Candidates } from "./candidates";
import { Weights, effectiveWeight } from "./weights";

export function totalScores(
  c: Candidates,
  w: Weights,
  queue: StaticArray<f64>,
  kv: StaticArray<f64>,
  prefix: StaticArray<f64>,
  inflight: StaticArray<f64>,
  lora: StaticArray<f64>,
  failure: StaticArray<f64>,
  session: StaticArray<f64>,
  total: StaticArray<f64>,
): void {
  let n = c.boundedCount(total.length);
  n = min<i32>(n, min<i32>(queue.length, min<i32>(kv.length, min<i32>(prefix.length, inflight.length))));
  n = min<i32>(n, min<i32>(lora.length, min<i32>(failure.length, session.length)));
  const sum = w.sum();
  const inverseSum = sum > 0 ? 1 / sum : 0;
  const wq = effectiveWeight(w.queue);
  const wk = effectiveWeight(w.kvCache);
  const wp = effectiveWeight(w.prefixCache);
  const wi = effectiveWeight(w.inflight);
  const wl = effectiveWeight(w.loraAffinity);
  const wf = effectiveWeight(w.failure);
  const ws = effectiveWeight(w.session);
  for (let i = 0; i < n; i++) {
    let t: f64 = 0;
    if (unchecked(c.healthy[i]) && sum > 0) {
      t =
        (wq * unchecked(queue[i]) +
          wk * unchecked(kv[i]) +
          wp * unchecked(prefix[i]) +
          wi * unchecked(inflight[i]) +
          wl * unchecked(lora[i]) +
          wf * unchecked(failure[i]) +
          ws * unchecked(session[i])) *
        inverseSum;
    }
    unchecked((total[i] = t));
  }
}
