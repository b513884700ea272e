// The pods an inference-extension endpoint picker routes among: its datastore follows a pod informer (the Kubernetes
// watch on the pool's pods, gateway-api-inference-extension pkg/epp/controller/pod_reconciler.go PodReconciler.Reconcile
// and updateDatastore add a ready pod and delete one that is not ready or gone), so a change is seen once the watch event arrives, taken
// here as `lagMs` after it. `pods` is the same array until the belief changes.
import type { VirtualClock } from "../../host/clock.ts";
import type { SimPod } from "../sim-pod.ts";
import type { PodView } from "./pod-view.ts";

/** About a second from a pod's change to the endpoint picker's datastore. */
export const POD_INFORMER_LAG_MS = 1000;

export class InformedPods implements PodView {
  private list: SimPod[];
  private readonly pending = new Set<() => void>();

  constructor(
    private readonly allPods: () => readonly SimPod[],
    private readonly clock: VirtualClock,
    private readonly lagMs = POD_INFORMER_LAG_MS,
    /** Called after the datastore changed. */
    private readonly onChange?: () => void,
  ) {
    this.list = allPods().filter((p) => p.up);
  }

  get pods(): readonly SimPod[] {
    return this.list;
  }

  /** A pod changed now; the datastore learns it `lagMs` later. */
  podsChanged(): void {
    const cancel = this.clock.after(this.lagMs, () => {
      this.pending.delete(cancel);
      this.sync();
    });
    this.pending.add(cancel);
  }

  private sync(): void {
    const next = this.allPods().filter((p) => p.up);
    if (next.length === this.list.length && next.every((p, i) => p === this.list[i])) return;
    this.list = next;
    this.onChange?.();
  }

  close(): void {
    for (const cancel of this.pending) cancel();
    this.pending.clear();
  }
}
