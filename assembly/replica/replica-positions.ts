// Which chunk positions of a chain go to Redis. A publish writes the chain's tail (the next turn of the
// conversation extends it) and the positions the cross-worker hints use (prefix/shared-hints.ts hintPositions);
// a lookup probes the last TAIL_PROBES positions of its own chain, where the previous turn's tail lies when a
// turn adds fewer chunks than that, the previous turn's tail itself when the request says where that turn's prompt
// ended, then the same hint positions below them. Longest first.
import { hintPositions } from "../prefix/shared-hints";

export const TAIL_PROBES: i32 = 8;
const HINT_POSITIONS: i32 = 8;
export const MAX_PUBLISH_KEYS: i32 = HINT_POSITIONS + 1;
export const MAX_LOOKUP_KEYS: i32 = HINT_POSITIONS + TAIL_PROBES + 1;

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

/** previousEnd: whole chunks of the previous turn's prompt (Decision.previousPromptChunks), 0 when unknown. */
export function lookupPositions(n: i32, scratch: StaticArray<i32>, out: StaticArray<i32>, previousEnd: i32 = 0): i32 {
  if (n <= 0) return 0;
  let count = 0;
  const lowestTail = max(0, n - TAIL_PROBES);
  for (let p = n - 1; p >= lowestTail && count < out.length; p--) unchecked((out[count++] = p));
  const previousTail = previousEnd > 0 && previousEnd <= n ? previousEnd - 1 : -1;
  let previousDue = previousTail >= 0 && previousTail < lowestTail;
  const hints = hintPositions(n, scratch);
  for (let i = 0; i < hints && count < out.length; i++) {
    const p = unchecked(scratch[i]);
    if (p >= lowestTail) continue;
    if (previousDue && previousTail >= p) {
      previousDue = false;
      if (previousTail > p && count < out.length) unchecked((out[count++] = previousTail));
    }
    if (count < out.length) unchecked((out[count++] = p));
  }
  if (previousDue && count < out.length) unchecked((out[count++] = previousTail));
  return count;
}
