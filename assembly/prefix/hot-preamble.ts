// A hot preamble (the tools and system prompt before a request's first user message, which most recent requests
// carry, such as an agent's tool prompt) is worth holding on several endpoints: prefilling it once more costs one
// request's prefill, while a single holder that takes every new conversation ends up hosting most of them, and
// their histories evict each other there (measured: 4 pods, 40 agent sessions on one 8,000-token tool prompt, the
// holder took 29 of 43 first turns). How hot: counted per worker over its last WINDOW decisions, in a ring of the
// preamble keys and a direct-mapped table of their counts (a key that collides with a counted one is not counted, so
// it never reads as hot). Nothing is allocated per request.
import { chunksEndingBy } from "./chain";

const WINDOW: i32 = 256;
const TABLE_SIZE: i32 = 1024;
/** Shares are counted over at least this many decisions: a worker's first few requests say little of its traffic. */
const MIN_SAMPLE: i32 = 8;

export class PreambleHeat {
  private readonly ring: StaticArray<u64> = new StaticArray<u64>(WINDOW);
  private readonly keys: StaticArray<u64> = new StaticArray<u64>(TABLE_SIZE);
  private readonly counts: StaticArray<i32> = new StaticArray<i32>(TABLE_SIZE);
  private next: i32 = 0;
  private seen: i32 = 0;

  /**
   * Counts one decision whose preamble is `key` (0: the request has none) and returns the share of the last
   * WINDOW decisions (this one included, and at least MIN_SAMPLE) that carried the same preamble; 0 for key 0.
   */
  observe(key: u64): f64 {
    const at = this.next;
    const old = unchecked(this.ring[at]);
    if (old != 0) {
      const slot = <i32>(old & <u64>(TABLE_SIZE - 1));
      unchecked((this.counts[slot] = unchecked(this.counts[slot]) - 1));
    }
    this.next = at + 1 == WINDOW ? 0 : at + 1;
    if (this.seen < WINDOW) this.seen++;
    let counted: u64 = 0;
    let count = 0;
    if (key != 0) {
      const slot = <i32>(key & <u64>(TABLE_SIZE - 1));
      count = unchecked(this.counts[slot]);
      if (unchecked(this.keys[slot]) == key || count == 0) {
        unchecked((this.keys[slot] = key));
        count++;
        unchecked((this.counts[slot] = count));
        counted = key;
      } else {
        count = 0; // the slot counts another preamble: this one reads as cold
      }
    }
    // Only a counted key goes in the ring, so every ring entry is one count of the key its slot holds.
    unchecked((this.ring[at] = counted));
    return <f64>count / <f64>max<i32>(this.seen, MIN_SAMPLE);
  }
}

/**
 * Counts the request's preamble (the chunks that end by firstUserStart, a stream offset; none when it is not
 * positive) and, when more of the recent requests carry it than its holders can take (share × endpoints >
 * holders), credits every active endpoint with the holders' match, for a request that matches no more than the
 * preamble anywhere: load then places it, and the preamble is prefilled on one more endpoint, as its share of the
 * traffic needs. The holders are the endpoints with the longest match (a cross-worker hint may leave it short of the
 * preamble's end). A conversation whose previous turn's endpoint is known (homeKnown) stays there: only counted.
 * matched[slot] is each active endpoint's match in chunks; ends and hashes are the chain's. When it credits,
 * heldBefore[slot] keeps each active endpoint's match from before (what it holds, for the counters). Returns whether
 * it credited.
 */
export function spreadHotPreamble(
  heat: PreambleHeat, matched: StaticArray<i32>, activeSlots: StaticArray<i32>, activeCount: i32,
  ends: StaticArray<u32>, hashes: StaticArray<u64>, chainLength: i32, firstUserStart: i32, homeKnown: bool,
  heldBefore: StaticArray<i32>,
): bool {
  const preamble = firstUserStart > 0 ? chunksEndingBy(ends, min<i32>(chainLength, hashes.length), firstUserStart) : 0;
  const share = heat.observe(preamble > 0 ? unchecked(hashes[preamble - 1]) : 0);
  const n = min<i32>(activeCount, activeSlots.length);
  // One holder takes a share of at most 1 / n; the pass below runs only for a preamble hotter than that.
  if (preamble == 0 || homeKnown || share * <f64>n <= 1) return false;
  let best = 0;
  let holders = 0;
  for (let i = 0; i < n; i++) {
    const slot = unchecked(activeSlots[i]);
    if (<u32>slot >= <u32>matched.length) continue;
    const m = unchecked(matched[slot]);
    if (m > preamble) return false;
    if (m > best) {
      best = m;
      holders = 1;
    } else if (m == best) {
      holders++;
    }
  }
  if (best == 0 || <f64>holders >= share * <f64>n) return false;
  for (let i = 0; i < n; i++) {
    const slot = unchecked(activeSlots[i]);
    if (<u32>slot >= <u32>matched.length) continue;
    if (<u32>slot < <u32>heldBefore.length) unchecked((heldBefore[slot] = unchecked(matched[slot])));
    unchecked((matched[slot] = best));
  }
  return true;
}
