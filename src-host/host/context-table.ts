// Contexts by id, as Map<number, T> keeps them (get, set, has, delete, size, iteration in insertion order), for the
// VM's and the worker's streams. A stream is added when it starts and deleted when it ends, so a worker that runs one
// request at a time empties its map on every request; V8's Map shrinks its table whenever a delete leaves it a quarter
// full (a runtime call and a new table each time), which cost the host about 0.2 us a request per map. Envoy keeps its
// contexts in a hash map too (cpp-host wasm.h WasmBase contexts_); this one is open addressing with linear probing on
// the id, which context ids (sequential) spread perfectly, and a table that only grows.

const EMPTY = -1;

export class ContextTable<T> {
  /** The id in each slot, or EMPTY. */
  private ids: number[];
  private items: Array<T | undefined>;
  /** When each slot's id was first set: insertion order, for iteration (Map keeps an id's first position). */
  private order: number[];
  private count = 0;
  private nextOrder = 0;

  /** `capacity`: a power of two (a slot is the id masked by capacity - 1, and probing wraps with the same mask). */
  constructor(capacity = 16) {
    if (!Number.isInteger(capacity) || capacity < 1 || (capacity & (capacity - 1)) !== 0) {
      throw new RangeError(`context table capacity ${capacity} is not a power of two`);
    }
    this.ids = new Array<number>(capacity).fill(EMPTY);
    this.items = new Array<T | undefined>(capacity).fill(undefined);
    this.order = new Array<number>(capacity).fill(0);
  }

  get size(): number {
    return this.count;
  }

  /** The slot holding `id`, or -1. */
  private find(id: number): number {
    const ids = this.ids;
    const mask = ids.length - 1;
    for (let i = id & mask; ; i = (i + 1) & mask) {
      const at = ids[i];
      if (at === EMPTY) return -1;
      if (at === id) return i;
    }
  }

  get(id: number): T | undefined {
    const i = this.find(id);
    return i < 0 ? undefined : this.items[i];
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  set(id: number, item: T): this {
    if (!Number.isInteger(id) || id < 0) throw new RangeError(`context id ${id} is not a non-negative integer`);
    const found = this.find(id);
    if (found >= 0) {
      this.items[found] = item;
      return this;
    }
    if (2 * (this.count + 1) > this.ids.length) this.grow();
    this.place(id, item, this.nextOrder++);
    this.count++;
    return this;
  }

  delete(id: number): boolean {
    let hole = this.find(id);
    if (hole < 0) return false;
    const ids = this.ids;
    const mask = ids.length - 1;
    // Backward-shift deletion: later entries of the probe run move into the hole, so no tombstones are left.
    for (let i = (hole + 1) & mask; ids[i] !== EMPTY; i = (i + 1) & mask) {
      const home = ids[i] & mask;
      // The entry at i may fill the hole unless its home slot lies cyclically in (hole, i].
      const stays = hole <= i ? hole < home && home <= i : hole < home || home <= i;
      if (stays) continue;
      ids[hole] = ids[i];
      this.items[hole] = this.items[i];
      this.order[hole] = this.order[i];
      hole = i;
    }
    ids[hole] = EMPTY;
    this.items[hole] = undefined;
    this.count--;
    return true;
  }

  keys(): IterableIterator<number> {
    return this.slotsInOrder().map((i) => this.ids[i])[Symbol.iterator]();
  }

  values(): IterableIterator<T> {
    return this.slotsInOrder().map((i) => this.items[i] as T)[Symbol.iterator]();
  }

  entries(): IterableIterator<[number, T]> {
    return this.slotsInOrder().map((i): [number, T] => [this.ids[i], this.items[i] as T])[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[number, T]> {
    return this.entries();
  }

  /** The occupied slots, oldest id first. */
  private slotsInOrder(): number[] {
    const slots: number[] = [];
    for (let i = 0; i < this.ids.length; i++) if (this.ids[i] !== EMPTY) slots.push(i);
    return slots.sort((a, b) => this.order[a] - this.order[b]);
  }

  private place(id: number, item: T, order: number): void {
    const ids = this.ids;
    const mask = ids.length - 1;
    let i = id & mask;
    while (ids[i] !== EMPTY) i = (i + 1) & mask;
    ids[i] = id;
    this.items[i] = item;
    this.order[i] = order;
  }

  private grow(): void {
    const { ids, items, order } = this;
    const capacity = 2 * ids.length;
    this.ids = new Array<number>(capacity).fill(EMPTY);
    this.items = new Array<T | undefined>(capacity).fill(undefined);
    this.order = new Array<number>(capacity).fill(0);
    for (let i = 0; i < ids.length; i++) if (ids[i] !== EMPTY) this.place(ids[i], items[i] as T, order[i]);
  }
}
