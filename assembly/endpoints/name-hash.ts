// Hash of a LoRA adapter name (FNV-1a 64 over its UTF-8 bytes). Adapter names are short, and hashing one byte at a
// time lets the Prometheus parser hash a label value while it unescapes it, without a scratch buffer.
// Whoever looks an adapter up (EndpointMetrics.isAdapterLoaded) must hash the name with this same function.

export const NAME_HASH_SEED: u64 = 0xcbf29ce484222325;
const FNV_PRIME: u64 = 0x100000001b3;

// @ts-ignore: decorator
@inline
export function nameHashStep(h: u64, byte: u32): u64 {
  return (h ^ u64(byte & 0xff)) * FNV_PRIME;
}

export function hashNameBytes(ptr: usize, len: usize): u64 {
  let h = NAME_HASH_SEED;
  for (let i: usize = 0; i < len; i++) h = nameHashStep(h, load<u8>(ptr + i));
  return h;
}

// Same hash as hashNameBytes over String.UTF8.encode(s), computed without encoding into a buffer.
// A lone surrogate is hashed as its three-byte WTF-8 form, as String.UTF8.encode does by default.
export function hashNameString(s: string): u64 {
  let h = NAME_HASH_SEED;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let cp = <u32>s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
      const lo = <u32>s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    if (cp < 0x80) {
      h = nameHashStep(h, cp);
    } else if (cp < 0x800) {
      h = nameHashStep(h, 0xc0 | (cp >> 6));
      h = nameHashStep(h, 0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      h = nameHashStep(h, 0xe0 | (cp >> 12));
      h = nameHashStep(h, 0x80 | ((cp >> 6) & 0x3f));
      h = nameHashStep(h, 0x80 | (cp & 0x3f));
    } else {
      h = nameHashStep(h, 0xf0 | (cp >> 18));
      h = nameHashStep(h, 0x80 | ((cp >> 12) & 0x3f));
      h = nameHashStep(h, 0x80 | ((cp >> 6) & 0x3f));
      h = nameHashStep(h, 0x80 | (cp & 0x3f));
    }
  }
  return h;
}
