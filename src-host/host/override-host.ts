// How a router picks the upstream host once the plugin has spoken. Stock Envoy: the
// envoy.load_balancing_policies.override_host policy reads a header whose value may list several
// "ip:port" entries; the first that names a host of the cluster wins, otherwise the fallback policy decides.
// Higress: proxy_set_upstream_override_host names the host directly, with the same fallback.
import type { UpstreamHost } from "./cluster.ts";

export const OVERRIDE_HEADER = "x-gateway-destination-endpoint";

const ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

/** The host the override selects, or null when the fallback load balancer must decide. */
export function selectOverrideHost(value: string | null | undefined, hosts: UpstreamHost[]): UpstreamHost | null {
  if (!value) return null;
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (!ADDRESS.test(entry)) continue;
    const host = hosts.find((h) => h.address === entry);
    if (host && host.healthStatus !== "Unhealthy") return host;
  }
  return null;
}
