// Ended streams a root keeps to reuse for its new ones, at most `capacity` of them: once a worker has seen as many
// streams at once as it sees now, a request allocates no context (and leaves none for the collector).
export class StreamPool<T> {
  private readonly kept: StaticArray<T | null>;
  private count: i32 = 0;

  constructor(capacity: i32) {
    this.kept = new StaticArray<T | null>(capacity);
  }

  get size(): i32 {
    return this.count;
  }

  /** A kept stream (the caller resets it), or null when none is kept. */
  take(): T | null {
    if (this.count == 0) return null;
    const i = --this.count;
    const s = unchecked(this.kept[i]);
    unchecked((this.kept[i] = null));
    return s;
  }

  /** Keeps an ended stream unless the pool is full (then the collector takes it). */
  put(stream: T): void {
    const i = this.count;
    if (i >= this.kept.length) return;
    unchecked((this.kept[i] = stream));
    this.count = i + 1;
  }
}
