// How far from its start a byte range is plain ASCII, read a 64-byte block at a time (four 16-byte vectors with
// WebAssembly SIMD, eight 64-bit words without): a cheaper read than counting UTF-8 lead bytes.

const BLOCK_BYTES: usize = 64;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/**
 * A length k <= len such that the bytes [p, p + k) are all below 0x80: the start of the first 64-byte block that
 * holds a byte >= 0x80, or of the last partial block (not read). Not always the longest such length.
 */
export function asciiBlocksPrefix(p: usize, len: usize): usize {
  const start = p;
  const last = p + (len & ~(BLOCK_BYTES - 1));
  for (; p < last; p += BLOCK_BYTES) {
    if (ASC_FEATURE_SIMD) {
      const v = v128.or(v128.or(v128.load(p), v128.load(p, 16)), v128.or(v128.load(p, 32), v128.load(p, 48)));
      if (i8x16.bitmask(v) != 0) break;
    } else {
      const w = load<u64>(p) | load<u64>(p, 8) | load<u64>(p, 16) | load<u64>(p, 24) |
        load<u64>(p, 32) | load<u64>(p, 40) | load<u64>(p, 48) | load<u64>(p, 56);
      if ((w & HIGH_BITS) != 0) break;
    }
  }
  return p - start;
}
