import { SeededRandom } from "../../util/seeded-random.ts";
import type { Policy, PolicyContext } from "./policy.ts";

/** Fewest requests in flight from the gateway (Envoy LEAST_REQUEST with full scan); random among ties. */
export function leastRequestPolicy(ctx: PolicyContext): Policy {
  const rng = SeededRandom.derive(ctx.seed, "least-request");
  return {
    name: "least-request",
    pick(_req, candidates) {
      let best = Infinity;
      let ties = 0;
      let chosen = candidates[0];
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
  };
}
