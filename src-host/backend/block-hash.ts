// The prefix cache key of a KV block: hash(parent block hash, token ids of the block), as in vLLM, so a
// block is only reusable when every token before it matches too. Hashes are 53-bit integers (two 32-bit
// lanes) so they stay exact as JS numbers and Map keys, and collisions are negligible at simulator scale.
// The root seed is the same for every pod, so one request's hashes can be computed once and looked up in
// every pod's cache. A LoRA adapter's chains start from a root keyed by its name: vLLM adds the adapter name
// to every block's extra keys, so an adapter never shares KV with the base model or another adapter.

export const ROOT_BLOCK_HASH = 0x1f3d_5b79;

const TWO_POW_21 = 2_097_152;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of tokens[start, start + count) chained onto `parent`. */
export function hashBlock(parent: number, tokens: ArrayLike<number>, start: number, count: number): number {
  let a = (Math.floor(parent / TWO_POW_21) ^ 0x9e37_79b9) | 0;
  let b = ((parent % TWO_POW_21) ^ 0x27d4_eb2f) | 0;
  for (let i = start, end = start + count; i < end; i++) {
    const t = tokens[i] | 0;
    let k = Math.imul(t, 0xcc9e_2d51);
    k = (k << 15) | (k >>> 17);
    a ^= Math.imul(k, 0x1b87_3593);
    a = (a << 13) | (a >>> 19);
    a = (Math.imul(a, 5) + 0xe654_6b64) | 0;
    b = (b + Math.imul(t, 0x85eb_ca77)) | 0;
    b = (b << 13) | (b >>> 19);
    b = Math.imul(b, 0x9e37_79b1);
  }
  a = fmix(a ^ count);
  b = fmix(b ^ Math.imul(count, 0x165667b1) ^ a);
  return a * TWO_POW_21 + (b >>> 11);
}

/** Root of the hash chains of requests served by `lora` (the base model's when absent). */
export function rootBlockHash(lora?: string): number {
  if (lora === undefined) return ROOT_BLOCK_HASH;
  const codes = Array.from(lora, (c) => c.codePointAt(0)!);
  return hashBlock(ROOT_BLOCK_HASH, codes, 0, codes.length);
}

/**
 * Hashes of the full blocks of `tokens`, appended to `out` starting after the blocks `out` already holds
 * (so a caller can extend a chain as a sequence grows). Partial trailing blocks are never hashed.
 */
export function computeBlockHashes(
  tokens: ArrayLike<number>,
  blockSize: number,
  out: number[] = [],
  numTokens: number = tokens.length,
  root: number = ROOT_BLOCK_HASH,
): number[] {
  const full = Math.floor(numTokens / blockSize);
  let parent = out.length > 0 ? out[out.length - 1] : root;
  for (let blk = out.length; blk < full; blk++) {
    parent = hashBlock(parent, tokens, blk * blockSize, blockSize);
    out.push(parent);
  }
  return out;
}
