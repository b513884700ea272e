// ASCII case-insensitive compares a word at a time: the bytes of a header name or value folded to lower case eight
// (or four) at once and compared with a lower-case literal's bytes, where equalsIgnoreCase (ascii.ts) takes a byte
// and a string character per step.

const LOW7_64: u64 = 0x7f7f7f7f7f7f7f7f;
const HIGH_64: u64 = 0x8080808080808080;

/** The eight bytes of `x` with 'A'..'Z' lowered (+0x20), every other byte as it is (SWAR, no carry between bytes). */
@inline export function lowerAscii64(x: u64): u64 {
  const low7 = x & LOW7_64;
  // The high bit of each byte: its low seven bits are >= 'A' (0x41), then >= '[' (0x5b, one past 'Z').
  const fromA = low7 + 0x3f3f3f3f3f3f3f3f;
  const pastZ = low7 + 0x2525252525252525;
  const upper = fromA & ~pastZ & ~x & HIGH_64;
  return x | (upper >> 2);
}

/** lowerAscii64 on four bytes. */
@inline export function lowerAscii32(x: u32): u32 {
  const low7 = x & 0x7f7f7f7f;
  const fromA = low7 + 0x3f3f3f3f;
  const pastZ = low7 + 0x25252525;
  const upper = fromA & ~pastZ & ~x & 0x80808080;
  return x | (upper >> 2);
}

// Folding changes nothing but bit 0x20 of a byte: two words that differ elsewhere are not equal ignoring case.
const CASE_BIT_64: u64 = 0x2020202020202020;
const CASE_BIT_32: u32 = 0x20202020;

/** lowerAscii64(x) == lower, for `lower` with no byte in 'A'..'Z': an exact match (the lower-case names Envoy's
 *  header maps hold) or a word differing beyond the case bit is settled without folding. */
@inline export function equalsLowerWord64(x: u64, lower: u64): bool {
  return x == lower || ((x | CASE_BIT_64) == (lower | CASE_BIT_64) && lowerAscii64(x) == lower);
}

/** equalsLowerWord64 on four bytes. */
@inline export function equalsLowerWord32(x: u32, lower: u32): bool {
  return x == lower || ((x | CASE_BIT_32) == (lower | CASE_BIT_32) && lowerAscii32(x) == lower);
}

/**
 * Whether bytes [ptr, ptr+len) equal `lit` (ASCII, lower case) ignoring ASCII case, as equalsIgnoreCase does. Reads
 * only inside [ptr, ptr+len): a tail shorter than a word is compared by a word that overlaps the one before.
 */
export function equalsLowerAscii(ptr: usize, len: usize, lit: ArrayBuffer): bool {
  if (len != <usize>lit.byteLength) return false;
  const l = changetype<usize>(lit);
  if (len >= 8) {
    const last = len - 8;
    for (let i: usize = 0; i < last; i += 8) {
      if (lowerAscii64(load<u64>(ptr + i)) != load<u64>(l + i)) return false;
    }
    return lowerAscii64(load<u64>(ptr + last)) == load<u64>(l + last);
  }
  if (len >= 4) {
    const last = len - 4;
    return lowerAscii32(load<u32>(ptr)) == load<u32>(l) && lowerAscii32(load<u32>(ptr + last)) == load<u32>(l + last);
  }
  for (let i: usize = 0; i < len; i++) {
    if (lowerAscii32(<u32>load<u8>(ptr + i)) != <u32>load<u8>(l + i)) return false;
  }
  return true;
}
