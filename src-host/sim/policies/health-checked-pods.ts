// The pods a stock Envoy load balancer routes among, as its active health checker learns them (envoy
// source/extensions/health_checkers/common/health_checker_base_impl.cc HealthCheckerImplBase::ActiveHealthCheckSession:
// handleFailure marks a healthy host unhealthy after `unhealthy_threshold` consecutive failed checks, handleSuccess
// marks an unhealthy host healthy after `healthy_threshold` successes, and a host never checked yet on its first
// success). Every host is checked once per interval; a pod that is down or gone fails its check (the connection is
// refused). A host the cluster no longer lists (a pod removed from EDS) stays while it is healthy and goes once its
// checks fail (upstream_impl.cc updateDynamicHostList: without ignore_health_on_host_removal a removed host that still
// passes active health checking is kept). The balancer picks among `pods`, which is the same array until a host
// changes health.
import type { VirtualClock } from "../../host/clock.ts";
import type { SimPod } from "../sim-pod.ts";
import type { PodView } from "./pod-view.ts";

export interface HealthCheckThresholds {
  unhealthyThreshold: number;
  healthyThreshold: number;
}

/** examples/envoy/envoy.yaml, the vllm cluster's health_checks: unhealthy_threshold 2, healthy_threshold 1. */
export const ENVOY_HEALTH_CHECK: HealthCheckThresholds = Object.freeze({ unhealthyThreshold: 2, healthyThreshold: 1 });

interface HostHealth {
  healthy: boolean;
  checked: boolean;
  /** Consecutive check results against the host's current state. */
  streak: number;
}

export class HealthCheckedPods implements PodView {
  private list: SimPod[] = [];
  private readonly hosts = new Map<SimPod, HostHealth>();
  private readonly cancel: () => void;

  constructor(
    /** The hosts the cluster lists now, ordered by pod id. */
    private readonly listed: () => readonly SimPod[],
    clock: VirtualClock,
    intervalMs: number,
    private readonly thresholds: HealthCheckThresholds = ENVOY_HEALTH_CHECK,
  ) {
    // The cluster starts with every pod up and healthy (the checks before the first request passed).
    for (const pod of listed()) this.hosts.set(pod, { healthy: pod.up, checked: true, streak: 0 });
    this.list = listed().filter((p) => p.up);
    this.cancel = clock.every(intervalMs, () => this.check());
  }

  get pods(): readonly SimPod[] {
    return this.list;
  }

  /** Every host the cluster holds (listed, or removed but still passing its checks) with its health, by pod id. */
  hostHealth(): Array<{ pod: SimPod; healthy: boolean }> {
    return [...this.hosts.entries()].map(([pod, h]) => ({ pod, healthy: h.healthy })).sort((a, b) => a.pod.id - b.pod.id);
  }

  /** One round of health checks, one per host. */
  check(): void {
    const listed = this.listed();
    const isListed = new Set(listed);
    for (const pod of listed) if (!this.hosts.has(pod)) this.hosts.set(pod, { healthy: false, checked: false, streak: 0 });
    let changed = false;
    for (const [pod, h] of this.hosts) {
      const passed = pod.up;
      if (passed === h.healthy) {
        h.streak = 0;
      } else {
        h.streak++;
        const threshold = passed ? this.thresholds.healthyThreshold : this.thresholds.unhealthyThreshold;
        if (!h.checked || h.streak >= threshold) {
          h.healthy = passed;
          h.streak = 0;
          changed = true;
        }
      }
      h.checked = true;
      if (!h.healthy && !isListed.has(pod)) this.hosts.delete(pod);
    }
    if (!changed) return;
    // Ordered by pod id, as the cluster lists them.
    this.list = [...this.hosts.entries()].filter(([, h]) => h.healthy).map(([p]) => p).sort((a, b) => a.id - b.id);
  }

  close(): void {
    this.cancel();
  }
}
