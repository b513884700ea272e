// FIFO of waiting requests that also takes preempted requests back at the front (a ring-buffer deque).
export class RequestQueue<T> {
  private items: (T | undefined)[] = new Array(16);
  private head = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  peek(): T | undefined {
    return this.size === 0 ? undefined : this.items[this.head];
  }

  push(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) % this.items.length] = item;
    this.size++;
  }

  unshift(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.head = (this.head - 1 + this.items.length) % this.items.length;
    this.items[this.head] = item;
    this.size++;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.size--;
    return item;
  }

  /** Removes one item anywhere in the queue (O(n)); returns whether it was present. */
  remove(item: T): boolean {
    const cap = this.items.length;
    for (let i = 0; i < this.size; i++) {
      if (this.items[(this.head + i) % cap] !== item) continue;
      for (let j = i; j < this.size - 1; j++) {
        this.items[(this.head + j) % cap] = this.items[(this.head + j + 1) % cap];
      }
      this.items[(this.head + this.size - 1) % cap] = undefined;
      this.size--;
      return true;
    }
    return false;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.size; i++) yield this.items[(this.head + i) % this.items.length] as T;
  }

  private grow(): void {
    const bigger: (T | undefined)[] = new Array(this.items.length * 2);
    for (let i = 0; i < this.size; i++) bigger[i] = this.items[(this.head + i) % this.items.length];
    this.items = bigger;
    this.head = 0;
  }
}
