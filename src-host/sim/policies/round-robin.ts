import { HealthCheckedPods } from "./health-checked-pods.ts";
import type { Policy, PolicyContext } from "./policy.ts";

/** Envoy's ROUND_ROBIN: cycles through the hosts its health checker holds healthy. */
export function roundRobinPolicy(ctx: PolicyContext): Policy {
  const view = new HealthCheckedPods(ctx.allPods, ctx.clock, ctx.healthCheckIntervalMs);
  let next = 0;
  return {
    name: "round-robin",
    pick: () => {
      const pods = view.pods;
      return { pod: pods.length > 0 ? pods[next++ % pods.length] : null };
    },
    close: () => view.close(),
  };
}
