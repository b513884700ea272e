// Pods ordered by their engine's next step boundary (an indexed min-heap: a pod's key changes after every
// submit and step, and is updated in place).
import type { SimPod } from "./sim-pod.ts";

export class PodHeap {
  private heap: SimPod[] = [];
  private keys: number[] = [];

  peekTime(): number {
    return this.heap.length > 0 ? this.keys[0] : Infinity;
  }

  peek(): SimPod | undefined {
    return this.heap[0];
  }

  /** Inserts the pod or moves it to its engine's current next event time. */
  update(pod: SimPod): void {
    const key = pod.up ? pod.engine.nextEventTime() : Infinity;
    let i = pod.heapIndex;
    if (i < 0) {
      i = this.heap.length;
      this.heap.push(pod);
      this.keys.push(key);
      pod.heapIndex = i;
    } else {
      this.keys[i] = key;
    }
    this.siftUp(i);
    this.siftDown(pod.heapIndex);
  }

  remove(pod: SimPod): void {
    const i = pod.heapIndex;
    if (i < 0) return;
    const last = this.heap.length - 1;
    this.swap(i, last);
    this.heap.pop();
    this.keys.pop();
    pod.heapIndex = -1;
    if (i < this.heap.length) {
      this.siftUp(i);
      this.siftDown(this.heap[i].heapIndex);
    }
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  private siftDown(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private less(a: number, b: number): boolean {
    return this.keys[a] < this.keys[b] || (this.keys[a] === this.keys[b] && this.heap[a].id < this.heap[b].id);
  }

  private swap(a: number, b: number): void {
    if (a === b) return;
    [this.heap[a], this.heap[b]] = [this.heap[b], this.heap[a]];
    [this.keys[a], this.keys[b]] = [this.keys[b], this.keys[a]];
    this.heap[a].heapIndex = a;
    this.heap[b].heapIndex = b;
  }
}
