// What a policy's deployment knows of the pods it may route to: learned from its gateway's health checks, its
// endpoint picker's pod informer, or at once (the simulator's own oracle).
import type { SimPod } from "../sim-pod.ts";

export interface PodView {
  /** The pods believed ready, ordered by id; the same array until that belief changes. */
  readonly pods: readonly SimPod[];
}
