// The short ASCII strings the module passed to host calls lately (shared-data keys, header names, an endpoint's
// address), in slots chosen by a hash of their bytes. A repeat is found by comparing its bytes with the string in its
// slot: no native decode of a new string, and the string found keeps the hash V8 computed for it, which the Map
// lookups that follow would otherwise compute again.

const SLOTS = 256;

export class RecentAsciiStrings {
  private readonly slots: string[] = new Array<string>(SLOTS).fill("");

  /** The string in the slot of `hash` when it is these bytes, else null. */
  find(u8: Uint8Array, ptr: number, len: number, hash: number): string | null {
    const s = this.slots[hash & (SLOTS - 1)];
    if (s.length !== len) return null;
    for (let i = 0; i < len; i++) if (s.charCodeAt(i) !== u8[ptr + i]) return null;
    return s;
  }

  /** Keeps `s` (whose bytes hash to `hash`) in its slot; returns it. */
  keep(hash: number, s: string): string {
    this.slots[hash & (SLOTS - 1)] = s;
    return s;
  }
}
