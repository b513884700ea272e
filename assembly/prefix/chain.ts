// The chunk-hash chain: the canonical prompt stream is cut into fixed-size chunks of Unicode code points and
// each chunk is hashed with the previous chunk's hash as seed, so h[i] identifies the whole prefix up to chunk i.
import { xxh64 } from "./xxh64";
import { LEAD_BLOCK_BYTES, leadBytesIn8, leadBytesInBlock } from "../text/utf8-lead-bytes";
import { asciiBlocksPrefix } from "../text/ascii-prefix";

// Domain tags keep the model hash, the salted seed and chunk hashes in separate input spaces: without the salt
// tag, a salted seed xxh64(salt, modelHash) would equal the unsalted h[0] of a prompt whose first chunk is the salt.
const MODEL_DOMAIN: u64 = 0x6b76_6d6f_6465_6c31; // "kvmodel1"
const SALT_DOMAIN: u64 = 0x6b76_7361_6c74_3031; // "kvsalt01"

/**
 * The first seed of a chain: the model name, then (when saltLen > 0) the tenant salt hashed with the model hash
 * as seed. Each part is hashed whole, so ("ab", "c") and ("a", "bc") give unrelated seeds.
 */
export function chainSeed(modelPtr: usize, modelLen: usize, saltPtr: usize, saltLen: usize): u64 {
  const modelHash = xxh64(modelPtr, modelLen, MODEL_DOMAIN);
  if (saltLen == 0) return modelHash;
  return xxh64(saltPtr, saltLen, modelHash ^ SALT_DOMAIN);
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
    let need = <usize>chunkChars; // lead bytes the current chunk still takes before its boundary
    let p = ptr;

    // Over a plain ASCII stretch every byte is a code point: a chunk there is chunkChars bytes, found without counting,
    // when the byte after it (the next chunk's lead byte) is in the stretch too.
    const step = <usize>chunkChars;
    const asciiEnd = ptr + asciiBlocksPrefix(ptr, <usize>min<u64>(<u64>len, <u64>max * <u64>step + 1));
    while (count < max && step < asciiEnd - chunkStart) {
      const boundary = chunkStart + step;
      hash = xxh64(chunkStart, step, hash);
      unchecked((hashes[count] = hash));
      unchecked((ends[count] = <u32>(boundary - ptr)));
      count++;
      chunkStart = boundary;
    }
    p = chunkStart;

    while (count < max) {
      // Advance to the boundary: the first lead byte once the chunk holds chunkChars code points. A block of
      // k bytes holds at most k lead bytes, so whole blocks are counted while need >= k.
      while (need >= LEAD_BLOCK_BYTES && p + LEAD_BLOCK_BYTES <= end) {
        need -= leadBytesInBlock(p);
        p += LEAD_BLOCK_BYTES;
      }
      while (need >= 8 && p + 8 <= end) {
        need -= leadBytesIn8(p);
        p += 8;
      }
      while (p < end) {
        if (isLeadByte(<u32>load<u8>(p))) {
          if (need == 0) break;
          need--;
        }
        p++;
      }
      if (p >= end) {
        // End of input: the last chunk counts only if it holds chunkChars code points.
        if (need == 0) {
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
      // Counted again from the boundary's lead byte: an ASCII chunk is then whole blocks (512 = 8 x 64 by default),
      // where starting one byte on would leave 63 bytes to count by word and byte.
      need = <usize>chunkChars;
    }

    this.count = count;
    return count;
  }
}

/** How many of the chunks [0, count) end at or before stream offset `offset` (ends[i]: just past chunk i; ends grow). */
export function chunksEndingBy(ends: StaticArray<u32>, count: i32, offset: i32): i32 {
  count = min<i32>(count, ends.length);
  let lo = 0;
  let hi = count; // chunks [0, lo) end at or before offset, [hi, count) after it
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (<i64>unchecked(ends[mid]) <= <i64>offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
