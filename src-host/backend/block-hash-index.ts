// Block hash -> block id, in typed arrays (linear probing, backward-shift deletion). A JS Map keyed by
// 53-bit numbers boxes every key and made garbage collection dominate long simulations.
const EMPTY = -1;

export class BlockHashIndex {
  private readonly keys: Float64Array;
  private readonly values: Int32Array;
  private readonly mask: number;
  private readonly shift: number;
  private count = 0;

  /** Holds up to `capacity` entries (one per KV block) at load factor <= 0.5. */
  constructor(readonly capacity: number) {
    let slots = 8;
    let bits = 3;
    while (slots < capacity * 2) {
      slots *= 2;
      bits++;
    }
    this.shift = 32 - bits;
    this.keys = new Float64Array(slots).fill(EMPTY);
    this.values = new Int32Array(slots);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Block id stored under `hash`, or -1. */
  get(hash: number): number {
    const keys = this.keys;
    for (let i = this.slot(hash); ; i = (i + 1) & this.mask) {
      const k = keys[i];
      if (k === hash) return this.values[i];
      if (k === EMPTY) return -1;
    }
  }

  has(hash: number): boolean {
    return this.get(hash) !== -1;
  }

  /** Inserts or overwrites. */
  set(hash: number, block: number): void {
    const keys = this.keys;
    let i = this.slot(hash);
    for (; keys[i] !== EMPTY; i = (i + 1) & this.mask) {
      if (keys[i] === hash) {
        this.values[i] = block;
        return;
      }
    }
    if (this.count >= this.capacity) throw new Error("block hash index is full");
    keys[i] = hash;
    this.values[i] = block;
    this.count++;
  }

  delete(hash: number): boolean {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.slot(hash);
    while (keys[i] !== hash) {
      if (keys[i] === EMPTY) return false;
      i = (i + 1) & mask;
    }
    // Shift later members of the probe run back so lookups never stop at a hole too early.
    let hole = i;
    for (let j = (i + 1) & mask; keys[j] !== EMPTY; j = (j + 1) & mask) {
      const home = this.slot(keys[j]);
      const distHole = (hole - home) & mask;
      const distJ = (j - home) & mask;
      if (distHole < distJ) {
        keys[hole] = keys[j];
        this.values[hole] = this.values[j];
        hole = j;
      }
    }
    keys[hole] = EMPTY;
    this.count--;
    return true;
  }

  private slot(hash: number): number {
    const lo = hash >>> 0;
    const hi = (hash / 4_294_967_296) >>> 0;
    // Fibonacci hashing: the top bits of the product are the well-mixed ones.
    return Math.imul(lo ^ Math.imul(hi, 0x85eb_ca6b), 0x9e37_79b1) >>> this.shift;
  }
}
