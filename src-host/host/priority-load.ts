// How Envoy's load balancer shares a one-priority cluster's requests between its healthy and degraded hosts (envoy
// source/common/upstream/load_balancer_impl.cc LoadBalancerBase::recalculatePerPriorityState, distributeLoad,
// recalculatePerPriorityPanic, isHostSetInPanic; choosePriority draws 1..100 against the loads): availability is
// 140 (the default overprovisioning factor) x the healthy (or degraded) share of the hosts not excluded, capped at
// 100; the loads are those availabilities scaled to their sum when it is under 100, healthy hosts first; under
// 100 with fewer than half the hosts healthy or degraded (default healthy_panic_threshold 50) the set is in panic
// and every host is used alike.
import type { UpstreamHost } from "./cluster.ts";

const OVERPROVISIONING = 140;
const PANIC_THRESHOLD = 50;

export type HostClass = "healthy" | "degraded" | "excluded" | "unhealthy";

/** A host's class in Envoy's host set, from its health status name (host/admin-clusters.ts adminHealthStatus):
 *  degraded (EDS DEGRADED or an active check answered x-envoy-degraded), excluded (pending its first active check,
 *  or EDS DRAINING: upstream_impl.cc excludeBasedOnHealthFlag), healthy, or unhealthy (anything else). */
export function hostClass(healthStatus: string): HostClass {
  switch (healthStatus) {
    case "Healthy":
      return "healthy";
    case "Degraded":
    case "DegradedActiveHc":
      return "degraded";
    case "PendingActiveHc":
    case "Draining":
      return "excluded";
    default:
      return "unhealthy";
  }
}

export interface PriorityLoad {
  /** Percent of requests to healthy hosts; degraded hosts get the rest unless in panic. */
  healthy: number;
  degraded: number;
  /** Every host is used alike. */
  panic: boolean;
}

export function priorityLoad(healthy: number, degraded: number, total: number): PriorityLoad {
  if (total <= 0) return { healthy: 100, degraded: 0, panic: true };
  const h = Math.min(100, Math.floor((OVERPROVISIONING * healthy) / total));
  const d = Math.min(100, Math.floor((OVERPROVISIONING * degraded) / total));
  const n = Math.min(100, h + d);
  const panic = n < 100 && (100 * (healthy + degraded)) / total < PANIC_THRESHOLD;
  if (n === 0 || panic) return { healthy: 100, degraded: 0, panic: true };
  const healthyLoad = Math.min(100, Math.floor((h * 100) / n));
  const degradedLoad = Math.min(100 - healthyLoad, Math.floor((d * 100) / n));
  const rest = 100 - healthyLoad - degradedLoad;
  return h > 0 ? { healthy: healthyLoad + rest, degraded: degradedLoad, panic: false } : { healthy: 0, degraded: degradedLoad + rest, panic: false };
}

/** The hosts Envoy's balancer picks among for a draw in 1..100 (choosePriority; hostSourceToUse: all hosts in panic). */
export function hostsForDraw(hosts: UpstreamHost[], draw: number): UpstreamHost[] {
  const healthy = hosts.filter((x) => hostClass(x.healthStatus) === "healthy");
  const degraded = hosts.filter((x) => hostClass(x.healthStatus) === "degraded");
  const total = hosts.filter((x) => hostClass(x.healthStatus) !== "excluded").length;
  const load = priorityLoad(healthy.length, degraded.length, total);
  if (load.panic) return hosts;
  return draw <= load.healthy ? healthy : degraded;
}
