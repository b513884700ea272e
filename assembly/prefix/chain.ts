// The chunk-hash chain: the canonical prompt stream is cut into fixed-size chunks of Unicode code points and
// each chunk is hashed with the previous chunk's hash as seed, so h[i] identifies the whole prefix up to chunk i.
import { xxh64 } from "./xxh64";
import { ChunkHash } from "./chunk-hash";

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

export class ChainHasher {
  readonly maxChunks: i32;
  /** h[i] = xxh64(chunk i, h[i - 1]), h[-1] = seed; valid for [0, count). */
  readonly hashes: StaticArray<u64>;
  /** Byte offset (from the start of the input) just past chunk i; valid for [0, count). */
  readonly ends: StaticArray<u32>;
  count: i32 = 0;
  private readonly chunk: ChunkHash = new ChunkHash();

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

    // Each chunk is found and hashed in one pass over its bytes (chunk-hash.ts).
    const chunk = this.chunk;
    while (count < max) {
      const boundary = chunk.find(chunkStart, end, <usize>chunkChars, hash);
      if (boundary == 0) break; // the last chunk counts only if it holds chunkChars code points
      hash = chunk.hash;
      unchecked((hashes[count] = hash));
      unchecked((ends[count] = <u32>(boundary - ptr)));
      count++;
      chunkStart = boundary;
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
