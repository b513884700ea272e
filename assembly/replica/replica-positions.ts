// Which chunk positions of a chain go to Redis. A publish writes the chain's tail (the next turn of the
// conversation extends it) and the positions the cross-worker hints use (prefix/shared-hints.ts hintPositions);
// a lookup probes the last TAIL_PROBES positions of its own chain, where the previous turn's tail lies when a
// turn adds fewer chunks than that, then the same hint positions below them. Longest first.
import { hintPositions } from "../prefix/shared-hints";

export const TAIL_PROBES: i32 = 8;
const HINT_POSITIONS: i32 = 8;
export const MAX_PUBLISH_KEYS: i32 = HINT_POSITIONS + 1;
export const MAX_LOOKUP_KEYS: i32 = HINT_POSITIONS + TAIL_PROBES;

export function publishPositions(n: i32, scratch: StaticArray<i32>, out: StaticArray<i32>): i32 {
  if (n <= 0) return 0;
  let count = 0;
  unchecked((out[count++] = n - 1));
  const hints = hintPositions(n, scratch);
  for (let i = 0; i < hints && count < out.length; i++) {
    const p = unchecked(scratch[i]);
    if (p != n - 1) unchecked((out[count++] = p));
  }
  return count;
}

export function lookupPositions(n: i32, scratch: StaticArray<i32>, out: StaticArray<i32>): i32 {
  if (n <= 0) return 0;
  let count = 0;
  const lowestTail = max(0, n - TAIL_PROBES);
  for (let p = n - 1; p >= lowestTail && count < out.length; p--) unchecked((out[count++] = p));
  const hints = hintPositions(n, scratch);
  for (let i = 0; i < hints && count < out.length; i++) {
    const p = unchecked(scratch[i]);
    if (p < lowestTail) unchecked((out[count++] = p));
  }
  return count;
}
