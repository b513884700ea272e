// ASCII strings written straight into a byte array: what the host hands the module is nearly always ASCII
// (header names and values, property values), and writing its characters directly avoids an encoded copy.

export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** Writes `s` (ASCII: one byte per character) into `out` at `at`. */
export function writeAscii(out: Uint8Array, at: number, s: string): void {
  for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
}
