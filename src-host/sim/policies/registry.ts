// The policies the simulator knows, by name. Add a policy: one file exporting a PolicyFactory, one line here.
import { consistentHashPolicy } from "./consistent-hash.ts";
import { gieApproxPolicy } from "./gie-approx.ts";
import { leastRequestPolicy } from "./least-request.ts";
import { oraclePolicy } from "./oracle.ts";
import { pickerPolicy, pickerRedisPolicy } from "./picker.ts";
import { pickerEnvoyDiscoveryPolicy, pickerEnvoyPolicy } from "./picker-envoy.ts";
import type { PolicyFactory } from "./policy.ts";
import { precisePolicy } from "./precise.ts";
import { randomPolicy } from "./random.ts";
import { roundRobinPolicy } from "./round-robin.ts";

export const POLICIES: Readonly<Record<string, PolicyFactory>> = Object.freeze({
  random: randomPolicy,
  "round-robin": roundRobinPolicy,
  "least-request": leastRequestPolicy,
  "consistent-hash": consistentHashPolicy,
  "gie-approx": gieApproxPolicy,
  precise: precisePolicy,
  oracle: oraclePolicy,
  picker: pickerPolicy,
  "picker-redis": pickerRedisPolicy,
  "picker-envoy": pickerEnvoyPolicy,
  "picker-envoy-discovery": pickerEnvoyDiscoveryPolicy,
});

/** picker-redis only differs from picker with several gateway replicas (--replicas), picker-envoy-discovery from
 *  picker-envoy when pods come and go: both asked for by name. */
export const DEFAULT_POLICIES = Object.keys(POLICIES).filter((p) => p !== "picker-redis" && p !== "picker-envoy-discovery");

export function policyFactory(name: string): PolicyFactory {
  const f = POLICIES[name];
  if (f === undefined) throw new Error(`unknown policy "${name}" (known: ${Object.keys(POLICIES).join(", ")})`);
  return f;
}
