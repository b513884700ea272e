// Allocation-free comparison of JSON string content with an AssemblyScript string.
import { readJsonCodePoint } from "./string-decoder";

/**
 * Whether the JSON string content [start, end) (escapes allowed) decodes to exactly s. Lone surrogates on
 * either side compare as U+FFFD.
 */
export function jsonStringEquals(start: usize, end: usize, s: string): bool {
  let p = start;
  const n = s.length;
  // UTF-8 never takes fewer bytes than UTF-16 code units, and escapes only make the source longer.
  if (<usize>n > end - p) return false;
  const units = changetype<usize>(s);
  let i = 0;
  while (i < n) {
    let cp = <u32>load<u16>(units + (<usize>i << 1));
    i++;
    if (cp - 0xd800 < 0x800) {
      const lo = i < n ? <u32>load<u16>(units + (<usize>i << 1)) : 0;
      if (cp < 0xdc00 && lo - 0xdc00 < 0x400) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      } else {
        cp = 0xfffd;
      }
    }
    if (p >= end) return false;
    const b = <u32>load<u8>(p);
    if (b < 0x80 && b != 0x5c) {
      if (b != cp) return false;
      p++;
      continue;
    }
    const r = readJsonCodePoint(p, end);
    if (<u32>r != cp) return false;
    p += <usize>(r >> 32);
  }
  return p == end;
}
