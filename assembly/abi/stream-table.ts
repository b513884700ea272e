// The live HTTP streams of the VM by context id: open addressing with linear probing, no tombstones (a delete moves
// later entries of its run back), kept at most half full. The id's Fibonacci hash spreads the host's consecutive ids
// over the table. A lookup is a multiply, a shift and usually one compare, where Map<u32, ...> hashed the id with
// xxh32 and walked a bucket chain, twice per callback (has, then get); a table grows only when more streams are
// live at once than ever before, so a warm worker allocates nothing here. T is the stream class (context.ts's
// HttpContext; generic so that this file imports nothing).

const FIBONACCI_32: u32 = 0x9e3779b9;
const MIN_BITS: u32 = 8;

export class StreamTable<T> {
  private ids: StaticArray<u32>;
  private contexts: StaticArray<T | null>;
  /** log2 of the capacity. */
  private bits: u32;
  private mask: u32;
  private live: i32 = 0;
  // The stream set or found last, and its id: the callbacks of one request come one after another, so a lookup is
  // usually that one. lastContext null: nothing cached.
  private lastId: u32 = 0;
  private lastContext: T | null = null;

  constructor(bits: u32 = MIN_BITS) {
    this.bits = bits;
    this.mask = (<u32>1 << bits) - 1;
    this.ids = new StaticArray<u32>(1 << bits);
    this.contexts = new StaticArray<T | null>(1 << bits);
  }

  get size(): i32 {
    return this.live;
  }

  get capacity(): i32 {
    return <i32>this.mask + 1;
  }

  @inline private home(id: u32): u32 {
    return (id * FIBONACCI_32) >> (32 - this.bits);
  }

  /** The stream with this id, or null. */
  get(id: u32): T | null {
    const last = this.lastContext;
    if (last !== null && this.lastId == id) return last;
    const ids = this.ids;
    const contexts = this.contexts;
    const mask = this.mask;
    let i = this.home(id);
    // At most half the slots are taken, so an empty slot ends every run; the bound only makes that explicit.
    for (let n: u32 = 0; n <= mask; n++) {
      const c = unchecked(contexts[i]);
      if (c === null) return null;
      if (unchecked(ids[i]) == id) {
        this.lastId = id;
        this.lastContext = c;
        return c;
      }
      i = (i + 1) & mask;
    }
    return null;
  }

  /** Adds the stream under its id (replacing one the id had). */
  set(id: u32, context: T): void {
    if ((this.live + 1) << 1 > this.capacity) this.grow();
    this.lastId = id;
    this.lastContext = context;
    const ids = this.ids;
    const contexts = this.contexts;
    const mask = this.mask;
    let i = this.home(id);
    for (let n: u32 = 0; n <= mask; n++) {
      const c = unchecked(contexts[i]);
      if (c === null) {
        unchecked((ids[i] = id));
        unchecked((contexts[i] = context));
        this.live++;
        return;
      }
      if (unchecked(ids[i]) == id) {
        unchecked((contexts[i] = context));
        return;
      }
      i = (i + 1) & mask;
    }
  }

  /** Removes the stream with this id and returns it, or null when there is none. */
  take(id: u32): T | null {
    const ids = this.ids;
    const contexts = this.contexts;
    const mask = this.mask;
    let i = this.home(id);
    let found: T | null = null;
    for (let n: u32 = 0; n <= mask; n++) {
      const c = unchecked(contexts[i]);
      if (c === null) return null;
      if (unchecked(ids[i]) == id) {
        found = c;
        break;
      }
      i = (i + 1) & mask;
    }
    if (found === null) return null;
    this.live--;
    if (this.lastId == id) this.lastContext = null;
    // Close the gap: an entry further along the run moves into it unless its home lies cyclically in (gap, entry].
    let gap = i;
    let j = i;
    for (let n: u32 = 0; n < mask; n++) {
      j = (j + 1) & mask;
      const c = unchecked(contexts[j]);
      if (c === null) break;
      const home = this.home(unchecked(ids[j]));
      if (((j - home) & mask) >= ((j - gap) & mask)) {
        unchecked((ids[gap] = unchecked(ids[j])));
        unchecked((contexts[gap] = c));
        gap = j;
      }
    }
    unchecked((contexts[gap] = null));
    unchecked((ids[gap] = 0));
    return found;
  }

  private grow(): void {
    const oldIds = this.ids;
    const oldContexts = this.contexts;
    const oldCapacity = oldIds.length;
    this.bits++;
    this.mask = (<u32>1 << this.bits) - 1;
    this.ids = new StaticArray<u32>(1 << this.bits);
    this.contexts = new StaticArray<T | null>(1 << this.bits);
    this.live = 0;
    for (let k = 0; k < oldCapacity; k++) {
      const c = unchecked(oldContexts[k]);
      if (c !== null) this.set(unchecked(oldIds[k]), c);
    }
  }
}
