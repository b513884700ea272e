// A conversation's next turn resends the previous turn's whole prompt, so the previous turn's chain (t chunks,
// last hash h) is a prefix of the new chain exactly when the new chain holds h at position t - 1 (each hash
// seeds the next, so one equal hash means every earlier chunk is equal too). A hint that carries (t, h) lets a
// worker that never saw the previous turn credit its endpoint with all t chunks, instead of only the landmark
// position where the two chains met. Used by the shared-data hints; any other hint store can carry the same pair.

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
