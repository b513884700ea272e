// The share of requests Envoy's own balancer sends to degraded hosts in a one-priority cluster, as Envoy computes it
// (envoy source/common/upstream/load_balancer_impl.cc LoadBalancerBase::recalculatePerPriorityState, distributeLoad
// and recalculatePerPriorityPanic): healthy availability H = min(100, 140 x healthy / total), degraded D the same
// over degraded hosts (140: the default overprovisioning factor, kDefaultOverProvisioningFactor), N = min(100, H + D);
// healthy load min(100, H x 100 / N), degraded load min(the rest, D x 100 / N), a rounding remainder to healthy hosts
// while H > 0. With N < 100 and fewer than half the hosts healthy or degraded (isHostSetInPanic, default
// healthy_panic_threshold 50) the set is in panic: Envoy balances over every host alike, degraded ones included.
// `total` is Envoy's host count: it leaves out excluded hosts (upstream_impl.cc excludeBasedOnHealthFlag: pending a
// first check, excluded_via_immediate_hc_fail, EDS DRAINING), as the caller does (member-slots.ts excluded).

/** Envoy's overprovisioning factor by default, in percent. */
const OVERPROVISIONING: u64 = 140;
/** Envoy's healthy_panic_threshold by default, in percent. */
const PANIC_THRESHOLD: u64 = 50;

/** The percent of requests Envoy's balancer gives the `degraded` hosts of `total` (`healthy` healthy): 0 when the
 *  healthy ones suffice, or when the set is in panic or has no host healthy or degraded (then the share is no
 *  longer Envoy's degraded load: the caller treats those cases as it treats unhealthy hosts). */
export function envoyDegradedLoad(healthy: i32, degraded: i32, total: i32): i32 {
  if (total <= 0 || degraded <= 0 || healthy < 0 || healthy + degraded > total) return 0;
  const t = <u64>total;
  const h = min<u64>(100, OVERPROVISIONING * <u64>healthy / t);
  const d = min<u64>(100, OVERPROVISIONING * <u64>degraded / t);
  const n = min<u64>(100, h + d);
  if (n == 0) return 0;
  if (n < 100 && 100 * <u64>(healthy + degraded) < PANIC_THRESHOLD * t) return 0;
  const healthyLoad = min<u64>(100, h * 100 / n);
  const degradedLoad = min<u64>(100 - healthyLoad, d * 100 / n);
  // The remainder goes to the healthy hosts when there are any (first_healthy), else to the degraded ones.
  return h > 0 ? <i32>degradedLoad : <i32>(100 - healthyLoad);
}
