// A conversation's next turn resends the previous turn's whole prompt, so the previous turn's chain (t chunks,
// last hash h) is a prefix of the new chain exactly when the new chain holds h at position t - 1 (each hash
// seeds the next, so one equal hash means every earlier chunk is equal too). A hint that carries (t, h) lets a
// worker that never saw the previous turn credit its endpoint with all t chunks, instead of only the landmark
// position where the two chains met. Used by the shared-data hints; any other hint store can carry the same pair.

import { xxh64 } from "./xxh64";
import { chunksEndingBy } from "./chain";

const CONVERSATION_DOMAIN: u64 = 0x6b76_636f_6e76_3031; // "kvconv01"
/** Longest stretch past the last whole chunk that conversationKey hashes (more gives no key). */
export const CONVERSATION_KEY_MAX_BYTES: i32 = 4096;

/**
 * A key that names a conversation: every turn resends the same beginning up to the end of its first user message
 * (stream offset firstUserEnd), so the key is the chain hash of the last chunk that ends there or before, with the
 * bytes from that chunk's end to firstUserEnd hashed on top. Landmark positions cannot name it: a short first
 * message ends inside a system prompt many conversations share, where their hints overwrite each other. 0 when
 * there is no first user message, or it ends past what the chain covers by more than CONVERSATION_KEY_MAX_BYTES.
 * ends[i] is the stream offset just past chunk i and hashes[i] its chain hash, for i < count; seed is the chain's.
 */
export function conversationKey(
  streamPtr: usize, firstUserEnd: i32, ends: StaticArray<u32>, hashes: StaticArray<u64>, count: i32, seed: u64,
): u64 {
  if (firstUserEnd <= 0) return 0;
  const lo = chunksEndingBy(ends, min<i32>(count, hashes.length), firstUserEnd);
  const from: i32 = lo > 0 ? <i32>unchecked(ends[lo - 1]) : 0;
  if (firstUserEnd - from > CONVERSATION_KEY_MAX_BYTES) return 0;
  const base = lo > 0 ? unchecked(hashes[lo - 1]) : seed;
  const key = xxh64(streamPtr + <usize>from, <usize>(firstUserEnd - from), base ^ CONVERSATION_DOMAIN);
  return key != 0 ? key : 1;
}

/** Whether the chain hashes[0, n) extends a chain of tailChunks chunks ending in tailHash. */
export function extendsTail(hashes: StaticArray<u64>, n: i32, tailChunks: i32, tailHash: u64): bool {
  if (n > hashes.length) n = hashes.length;
  return tailChunks > 0 && tailChunks <= n && unchecked(hashes[tailChunks - 1]) == tailHash;
}

/**
 * Which of a chain's landmark positions (longest first, as probed) carry its tail: the longest one, which the
 * next turn probes when it grew by less than the landmark stride, and the longest 2^k - 1 one, which every longer
 * chain probes whatever it added. Returns a bit mask over positions' indices.
 */
export function tailCarriers(positions: StaticArray<i32>, count: i32): u32 {
  if (count <= 0) return 0;
  let mask: u32 = 1;
  for (let i = 0; i < count && i < 32; i++) {
    const p = unchecked(positions[i]);
    if (((p + 1) & p) == 0) {
      mask |= <u32>1 << <u32>i;
      break;
    }
  }
  return mask;
}
