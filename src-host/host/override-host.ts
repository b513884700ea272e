// How a router picks the upstream host once the plugin has spoken.
// - Stock Envoy, envoy.load_balancing_policies.override_host (envoy source/extensions/load_balancing_policies/
//   override_host/load_balancer.cc): the first value of the header, split on commas; the first entry that is
//   a host of the cluster wins whatever its health (findHost looks the address up in crossPriorityHostMap and
//   does not check health); no such entry: the fallback policy decides.
// - Higress, proxy_set_upstream_override_host: Envoy's upstream override host (host_utility.cc
//   HostUtility::selectOverrideHost, called by cluster_manager_impl.cc ClusterEntry::chooseHost): the host is
//   taken only if its health is in the cluster's CommonLbConfig.override_host_status, by default UNKNOWN,
//   HEALTHY and DEGRADED; else the fallback decides.
import type { UpstreamHost } from "./cluster.ts";

export const OVERRIDE_HEADER = "x-gateway-destination-endpoint";

/** Stock Envoy's override_host policy: the host the header selects, or null for the fallback policy. */
export function selectOverrideHost(value: string | null | undefined, hosts: UpstreamHost[]): UpstreamHost | null {
  if (!value) return null;
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const host = hosts.find((h) => h.address === entry);
    if (host) return host;
  }
  return null;
}

/** Higress: the overridden host if its health is one override_host_status admits by default, else null. */
export function selectHigressOverrideHost(value: string | null | undefined, hosts: UpstreamHost[]): UpstreamHost | null {
  if (!value) return null;
  const address = value.trim();
  return hosts.find((h) => h.address === address && h.healthStatus !== "Unhealthy" && h.healthStatus !== "Timeout" && h.healthStatus !== "Draining") ?? null;
}
