// The Gateway API Inference Extension's default scheduling, approximated: prefix-cache scorer (weight 3)
// over its own index of what it sent where, queue scorer (2) and KV-cache utilization scorer (2) over
// metrics it scrapes every 50 ms, and the max-score picker (random among equal scores), among the pods its pod
// informer holds ready (informed-pods.ts).
import { SeededRandom } from "../../util/seeded-random.ts";
import type { SimPod } from "../sim-pod.ts";
import { GiePrefixIndex, gieBlockHashes, gieChatInput, hashKey, loadXxhash } from "./gie-prefix-index.ts";
import { InformedPods } from "./informed-pods.ts";
import { argMaxRandomTie, kvScore, queueScores } from "./load-signals.ts";
import type { Policy, PolicyContext } from "./policy.ts";

export const GIE_WEIGHTS = Object.freeze({ prefix: 3, queue: 2, kv: 2 });
export const GIE_METRICS_REFRESH_MS = 50;

interface Scraped {
  waiting: number;
  kvUsage: number;
}

/** Weighted total per candidate, given each candidate's matched blocks, the request's block count and load. */
export function gieScores(matched: readonly number[], totalBlocks: number, scraped: readonly Scraped[]): number[] {
  const n = scraped.length;
  const queue = queueScores(scraped.map((s) => s.waiting), new Float64Array(n));
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const prefix = totalBlocks === 0 ? 0 : matched[i] / totalBlocks;
    out[i] = GIE_WEIGHTS.prefix * prefix + GIE_WEIGHTS.queue * queue[i] + GIE_WEIGHTS.kv * kvScore(scraped[i].kvUsage);
  }
  return out;
}

export async function gieApproxPolicy(ctx: PolicyContext): Promise<Policy> {
  const xx = await loadXxhash();
  const rng = SeededRandom.derive(ctx.seed, "gie-approx");
  const index = new GiePrefixIndex();
  const scraped = new Map<number, Scraped>();
  const scrape = () => {
    for (const pod of ctx.allPods()) scraped.set(pod.id, { waiting: pod.reportedWaiting, kvUsage: pod.reportedKvUsage() });
  };
  scrape();
  const cancel = ctx.clock.every(GIE_METRICS_REFRESH_MS, scrape);
  const random = () => rng.next();
  // The datastore dropped a pod: so does the prefix index (its entries name a pod no longer in the pool).
  const view = new InformedPods(ctx.allPods, ctx.clock, undefined, () => {
    const live = new Set(ctx.allPods().map((p) => p.id));
    for (const id of [...scraped.keys()]) {
      if (!live.has(id)) {
        scraped.delete(id);
        index.removePod(id);
      }
    }
    scrape();
  });
  return {
    name: "gie-approx",
    pick(req) {
      const candidates: readonly SimPod[] = view.pods;
      if (candidates.length === 0) return { pod: null };
      // The prefix scorer seeds its chain with the request's target model: an adapter's requests chain apart.
      const keys = gieBlockHashes(xx, req.model, gieChatInput(req.messages)).map(hashKey);
      const longest = index.longestPrefix(keys);
      const matched = candidates.map((p) => longest.get(p.id) ?? 0);
      const load = candidates.map((p) => scraped.get(p.id) ?? { waiting: 0, kvUsage: 0 });
      const scores = gieScores(matched, keys.length, load);
      const pod = candidates[argMaxRandomTie(scores, candidates.length, random)];
      index.add(keys, pod.id);
      return { pod };
    },
    onPodsChanged: () => view.podsChanged(),
    close() {
      cancel();
      view.close();
    },
  };
}
