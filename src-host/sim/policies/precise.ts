// Scoring on the truth: each pod's real prefix cache (cached tokens / prompt tokens) with weight 3, plus
// the same queue (2) and KV (2) scorers on live pod state. An upper bound for approximate indexes; deployed as an
// endpoint picker, it learns of pods from its pod informer (informed-pods.ts).
import { SeededRandom } from "../../util/seeded-random.ts";
import { InformedPods } from "./informed-pods.ts";
import { argMaxRandomTie, kvScore, queueScores } from "./load-signals.ts";
import type { Policy, PolicyContext } from "./policy.ts";

export const PRECISE_WEIGHTS = Object.freeze({ prefix: 3, queue: 2, kv: 2 });

export function precisePolicy(ctx: PolicyContext): Policy {
  const rng = SeededRandom.derive(ctx.seed, "precise");
  const random = () => rng.next();
  let waiting = new Float64Array(0);
  let queue = new Float64Array(0);
  let scores = new Float64Array(0);
  const view = new InformedPods(ctx.allPods, ctx.clock);
  return {
    name: "precise",
    pick(req) {
      const candidates = view.pods;
      const n = candidates.length;
      if (n === 0) return { pod: null };
      if (waiting.length < n) {
        waiting = new Float64Array(n);
        queue = new Float64Array(n);
        scores = new Float64Array(n);
      }
      for (let i = 0; i < n; i++) waiting[i] = candidates[i].numWaiting;
      queueScores(waiting.subarray(0, n), queue);
      const len = req.promptTokens.length;
      for (let i = 0; i < n; i++) {
        const pod = candidates[i];
        const prefix = pod.cachedTokens(req.blockHashes, len) / len;
        scores[i] = PRECISE_WEIGHTS.prefix * prefix + PRECISE_WEIGHTS.queue * queue[i] + PRECISE_WEIGHTS.kv * kvScore(pod.kvUsage());
      }
      return { pod: candidates[argMaxRandomTie(scores, n, random)] };
    },
    onPodsChanged: () => view.podsChanged(),
    close: () => view.close(),
  };
}
