import { SeededRandom } from "../../util/seeded-random.ts";
import { HealthCheckedPods } from "./health-checked-pods.ts";
import type { Policy, PolicyContext } from "./policy.ts";

/** Envoy's RANDOM: a uniformly random host among those its health checker holds healthy. */
export function randomPolicy(ctx: PolicyContext): Policy {
  const rng = SeededRandom.derive(ctx.seed, "random");
  const view = new HealthCheckedPods(ctx.allPods, ctx.clock, ctx.healthCheckIntervalMs);
  return {
    name: "random",
    pick: () => {
      const pods = view.pods;
      return { pod: pods.length > 0 ? pods[rng.int(pods.length)] : null };
    },
    close: () => view.close(),
  };
}
