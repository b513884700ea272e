// The chunk-hash chain: the canonical prompt stream is cut into fixed-size chunks of Unicode code points and
// each chunk is hashed with the previous chunk's hash as seed, so h[i] identifies the whole prefix up to chunk i.
import { xxh64 } from "./xxh64";

// Domain tags keep the model hash, the salted seed and chunk hashes in separate input spaces: without the salt
// tag, a salted seed xxh64(salt, modelHash) would equal the unsalted h[0] of a prompt whose first chunk is the salt.
const MODEL_DOMAIN: u64 = 0x6b76_6d6f_6465_6c31; // "kvmodel1"
const SALT_DOMAIN: u64 = 0x6b76_7361_6c74_3031; // "kvsalt01"

// Continuation bytes are 10xxxxxx: bit 7 set and bit 6 clear, tested for all 8 bytes of a word at once.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/**
 * The first seed of a chain: the model name, then (when saltLen > 0) the tenant salt hashed with the model hash
 * as seed. Each part is hashed whole, so ("ab", "c") and ("a", "bc") give unrelated seeds.
 */
export function chainSeed(modelPtr: usize, modelLen: usize, saltPtr: usize, saltLen: usize): u64 {
  const modelHash = xxh64(modelPtr, modelLen, MODEL_DOMAIN);
  if (saltLen == 0) return modelHash;
  return xxh64(saltPtr, saltLen, modelHash ^ SALT_DOMAIN);
}

/** Number of UTF-8 lead bytes (bytes that are not continuation bytes) in a little-endian 8-byte word. */
// @ts-ignore: decorator
@inline function leadBytesIn(word: u64): i32 {
  const continuation = word & ~(word << 1) & HIGH_BITS;
  return 8 - <i32>popcnt<u64>(continuation);
}

// @ts-ignore: decorator
@inline function isLeadByte(b: u32): bool {
  return (b & 0xc0) != 0x80;
}

export class ChainHasher {
  readonly maxChunks: i32;
  /** h[i] = xxh64(chunk i, h[i - 1]), h[-1] = seed; valid for [0, count). */
  readonly hashes: StaticArray<u64>;
  /** Byte offset (from the start of the input) just past chunk i; valid for [0, count). */
  readonly ends: StaticArray<u32>;
  count: i32 = 0;

  constructor(maxChunks: i32) {
    const n = maxChunks > 0 ? maxChunks : 0;
    this.maxChunks = n;
    this.hashes = new StaticArray<u64>(n);
    this.ends = new StaticArray<u32>(n);
  }

  /**
   * Hashes every full chunk of `chunkChars` code points in the UTF-8 bytes [ptr, ptr + len), up to maxChunks.
   * A chunk ends just before the lead byte of the next chunk's first code point, or at the end of the input;
   * stray continuation bytes stay with the code point before them (chunk 0 keeps any that open the input).
   * A trailing chunk with fewer than `chunkChars` code points is not hashed. Returns the number of hashes.
   */
  build(ptr: usize, len: usize, chunkChars: i32, seed: u64): i32 {
    this.count = 0;
    const max = this.maxChunks;
    if (chunkChars <= 0 || max == 0) return 0;

    const hashes = this.hashes;
    const ends = this.ends;
    const end = ptr + len;
    let count = 0;
    let hash = seed;
    let chunkStart = ptr;
    let seen = 0; // lead bytes seen in the current chunk
    let p = ptr;

    while (count < max) {
      // Advance to the boundary: the first lead byte after this chunk's chunkChars code points.
      while (p < end) {
        if (seen < chunkChars && p + 8 <= end) {
          const leads = leadBytesIn(load<u64>(p));
          if (seen + leads <= chunkChars) {
            seen += leads;
            p += 8;
            continue;
          }
        }
        if (isLeadByte(<u32>load<u8>(p))) {
          if (seen == chunkChars) break;
          seen++;
        }
        p++;
      }
      if (p >= end) {
        // End of input: the last chunk counts only if it holds chunkChars code points.
        if (seen == chunkChars) {
          hash = xxh64(chunkStart, end - chunkStart, hash);
          unchecked((hashes[count] = hash));
          unchecked((ends[count] = <u32>(end - ptr)));
          count++;
        }
        break;
      }
      hash = xxh64(chunkStart, p - chunkStart, hash);
      unchecked((hashes[count] = hash));
      unchecked((ends[count] = <u32>(p - ptr)));
      count++;
      chunkStart = p;
      seen = 1; // the boundary lead byte opens the next chunk
      p++;
    }

    this.count = count;
    return count;
  }
}
