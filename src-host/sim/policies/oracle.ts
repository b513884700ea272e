// Knows every pod's cache and queue: picks the pod with the smallest estimated time to first token,
// estimated as (prefill work queued ahead + this request's uncached tokens) at the pod's prefill rate, plus
// this request's attention over its context (engine.ts),
// plus the steps that work takes (overhead + decode of the running batch per step) and, when the batch
// is full, one decode step per slot ahead of it, plus the load of a LoRA adapter the pod does not keep loaded; all of
// it divided by the pod's own speed (a pool variant, a slow fault). It learns of pods at once (no deployment to model).
import { SeededRandom } from "../../util/seeded-random.ts";
import type { SimPod } from "../sim-pod.ts";
import type { SimRequest } from "../sim-request.ts";
import type { PodsSpec } from "../workload.ts";
import { attentionCostFor } from "../../backend/engine.ts";
import type { Policy, PolicyContext } from "./policy.ts";

export function estimateTtftMs(pod: SimPod, req: SimRequest, spec: PodsSpec): number {
  const len = req.promptTokens.length;
  const uncached = len - pod.cachedTokens(req.blockHashes, len);
  const work = pod.pendingPrefillTokens + uncached;
  const running = pod.numRunning;
  const stepMs = spec.decodeStepMs.baseMs + spec.decodeStepMs.perSequenceMs * running;
  const budget = Math.max(1, spec.maxBatchTokens - running);
  const steps = Math.ceil(work / budget);
  const slotWait = Math.max(0, running + pod.numWaiting + 1 - spec.maxNumSeqs) * stepMs;
  // The request's own attention over its context, as the engine costs it (queued prefills' contexts are not known).
  const cached = len - uncached;
  const attentionMs = ((spec.attentionMsPerMTokenPairs ?? attentionCostFor(spec.prefillTokensPerSec)) * uncached * (cached + (uncached + 1) / 2)) / 1e6;
  return ((work * 1000) / spec.prefillTokensPerSec + attentionMs + steps * stepMs + slotWait + loraLoadMs(pod, req)) / pod.engine.config.speed;
}

/** The adapter's load time when the pod does not keep it loaded (engine.ts loadLoras). */
function loraLoadMs(pod: SimPod, req: SimRequest): number {
  const lora = req.lora;
  const config = pod.engine.config;
  return lora === undefined || config.maxLoras === 0 || pod.engine.isLoraLoaded(lora) ? 0 : config.loraLoadMs;
}

export function oraclePolicy(ctx: PolicyContext): Policy {
  const rng = SeededRandom.derive(ctx.seed, "oracle");
  const spec = ctx.workload.pods;
  return {
    name: "oracle",
    pick(req, candidates) {
      let best = Infinity;
      let ties = 0;
      let chosen = candidates[0];
      for (const pod of candidates) {
        const t = estimateTtftMs(pod, req, spec);
        if (t < best - 1e-9) {
          best = t;
          ties = 1;
          chosen = pod;
        } else if (Math.abs(t - best) <= 1e-9 && rng.next() * ++ties < 1) {
          chosen = pod;
        }
      }
      return { pod: chosen };
    },
  };
}
