import { SeededRandom } from "../../util/seeded-random.ts";
import type { Policy, PolicyContext } from "./policy.ts";

/** Uniformly random pod. */
export function randomPolicy(ctx: PolicyContext): Policy {
  const rng = SeededRandom.derive(ctx.seed, "random");
  return { name: "random", pick: (_req, candidates) => ({ pod: candidates[rng.int(candidates.length)] }) };
}
