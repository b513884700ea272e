// Session affinity: the session (group, conversation or document) hashed onto a ring of pod points,
// `VIRTUAL_NODES` per pod, as Envoy's ring-hash balancer does; removing a pod only moves its own sessions. The ring
// holds the hosts the gateway's health checker holds healthy (thread_aware_lb_impl.cc
// ThreadAwareLoadBalancerBase::refresh builds it from each priority's healthy hosts, outside panic).
import { hashString } from "../../util/seeded-random.ts";
import type { SimPod } from "../sim-pod.ts";
import { HealthCheckedPods } from "./health-checked-pods.ts";
import type { Policy, PolicyContext } from "./policy.ts";

export const VIRTUAL_NODES = 100;

export class HashRing {
  private readonly points: Uint32Array;
  private readonly owners: SimPod[];

  constructor(pods: readonly SimPod[], virtualNodes = VIRTUAL_NODES) {
    const entries: Array<[number, SimPod]> = [];
    for (const pod of pods) for (let v = 0; v < virtualNodes; v++) entries.push([hashString(`${pod.address}#${v}`), pod]);
    entries.sort((a, b) => a[0] - b[0] || a[1].id - b[1].id);
    this.points = Uint32Array.from(entries, (e) => e[0]);
    this.owners = entries.map((e) => e[1]);
  }

  /** The pod owning the first point at or after the key's hash (wrapping around). */
  lookup(key: string): SimPod {
    const h = hashString(key);
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.points[mid] < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === this.points.length ? 0 : lo];
  }
}

export function consistentHashPolicy(ctx: PolicyContext): Policy {
  const view = new HealthCheckedPods(ctx.allPods, ctx.clock, ctx.healthCheckIntervalMs);
  let ring: HashRing | null = null;
  let ringOf: readonly SimPod[] | null = null;
  return {
    name: "consistent-hash",
    pick(req) {
      const pods = view.pods;
      if (pods.length === 0) return { pod: null };
      if (ringOf !== pods) {
        ring = new HashRing(pods);
        ringOf = pods;
      }
      return { pod: ring!.lookup(req.sessionKey) };
    },
    close: () => view.close(),
  };
}
