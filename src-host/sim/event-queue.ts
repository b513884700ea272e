// A min-heap of timed callbacks; equal times run in insertion order.

interface Entry {
  time: number;
  seq: number;
  run: (timeMs: number) => void;
}

export class EventQueue {
  private heap: Entry[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  peekTime(): number {
    return this.heap.length > 0 ? this.heap[0].time : Infinity;
  }

  push(time: number, run: (timeMs: number) => void): void {
    const h = this.heap;
    h.push({ time, seq: this.seq++, run });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  pop(): Entry | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l], h[m])) m = l;
        if (r < h.length && less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}

function less(a: Entry, b: Entry): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}
