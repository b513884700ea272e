import { SeededRandom } from "../../util/seeded-random.ts";
import { HealthCheckedPods } from "./health-checked-pods.ts";
import type { Policy, PolicyContext } from "./policy.ts";

/**
 * Fewest requests in flight from the gateway (Envoy LEAST_REQUEST with full scan), among the hosts its health checker
 * holds healthy; random among ties.
 */
export function leastRequestPolicy(ctx: PolicyContext): Policy {
  const rng = SeededRandom.derive(ctx.seed, "least-request");
  const view = new HealthCheckedPods(ctx.allPods, ctx.clock, ctx.healthCheckIntervalMs);
  return {
    name: "least-request",
    pick() {
      const candidates = view.pods;
      let best = Infinity;
      let ties = 0;
      let chosen = candidates.length > 0 ? candidates[0] : null;
      for (const pod of candidates) {
        if (pod.inflight < best) {
          best = pod.inflight;
          ties = 1;
          chosen = pod;
        } else if (pod.inflight === best && rng.next() * ++ties < 1) {
          chosen = pod;
        }
      }
      return { pod: chosen };
    },
    close: () => view.close(),
  };
}
