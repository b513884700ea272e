// The short ASCII strings the module passed to host calls lately (shared-data keys, header names, an endpoint's
// address), in slots chosen by a hash of their bytes. A repeat is found by comparing its bytes, four at a time, with
// those kept for its slot: no native decode of a new string, and the string found keeps the hash V8 computed for it,
// which the Map lookups that follow would otherwise compute again.

const SLOTS = 256;
/** The longest string kept (a header name, a key). */
export const RECENT_MAX_BYTES = 64;
const WORDS = RECENT_MAX_BYTES / 4;

export class RecentAsciiStrings {
  private readonly strings: string[] = new Array<string>(SLOTS).fill("");
  private readonly lengths = new Int32Array(SLOTS);
  /** Slot i's bytes as little-endian 32-bit words at i * WORDS, the last one padded with zero bytes. */
  private readonly words = new Int32Array(SLOTS * WORDS);
  private readonly scratch = new Int32Array(WORDS);

  /**
   * The string of the `len` (at most RECENT_MAX_BYTES) bytes at `ptr` of `bytes` when they are all ASCII, else null.
   * `view` is a DataView of the same memory; the caller has checked the range.
   */
  read(bytes: Buffer, view: DataView, ptr: number, len: number): string | null {
    const scratch = this.scratch;
    const whole = len >>> 2;
    let hash = len;
    let high = 0;
    for (let i = 0; i < whole; i++) {
      const w = view.getInt32(ptr + (i << 2), true);
      scratch[i] = w;
      high |= w;
      hash = Math.imul(hash ^ w, 0x9e3779b1);
    }
    let n = whole;
    if ((len & 3) !== 0) {
      // The last 1..3 bytes: never a read past the range.
      let w = 0;
      for (let at = whole << 2, shift = 0; at < len; at++, shift += 8) w |= bytes[ptr + at] << shift;
      scratch[n++] = w;
      high |= w;
      hash = Math.imul(hash ^ w, 0x9e3779b1);
    }
    if ((high & 0x80808080) !== 0) return null;
    const slot = (hash >>> 24) & (SLOTS - 1);
    const base = slot * WORDS;
    const words = this.words;
    if (this.lengths[slot] === len) {
      let i = 0;
      while (i < n && words[base + i] === scratch[i]) i++;
      if (i === n) return this.strings[slot];
    }
    const s = bytes.toString("latin1", ptr, ptr + len);
    this.strings[slot] = s;
    this.lengths[slot] = len;
    for (let i = 0; i < n; i++) words[base + i] = scratch[i];
    return s;
  }
}
