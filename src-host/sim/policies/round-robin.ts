import type { Policy } from "./policy.ts";

/** Cycles through the pods that are up. */
export function roundRobinPolicy(): Policy {
  let next = 0;
  return { name: "round-robin", pick: (_req, candidates) => ({ pod: candidates[next++ % candidates.length] }) };
}
