// A vLLM-style paged KV block pool with automatic prefix caching.
// - Capacity is a fixed number of blocks of `blockSize` tokens.
// - A full block that has been computed is registered under its chain hash (see block-hash.ts). Two requests
//   that compute the same block side by side both register it, as vLLM does not deduplicate: the hash stays
//   cached while either copy does, and a lookup takes the copy registered first.
// - Blocks referenced by a request are pinned (ref count > 0) and never evicted.
// - Unreferenced blocks sit in a free queue in LRU order; a cached one keeps its content until it is
//   reallocated, so a later request can still hit it. Allocation takes the least recently freed block.
// - Usage (vllm:kv_cache_usage_perc) counts referenced blocks only, as vLLM does.
import { computeBlockHashes } from "./block-hash.ts";
import { BlockHashIndex } from "./block-hash-index.ts";

export interface PrefixCacheOptions {
  numBlocks: number;
  blockSize?: number;
}

const NO_HASH = -1;
const NO_BLOCK = -1;

export class PrefixCache {
  readonly blockSize: number;
  readonly numBlocks: number;
  /** Tokens of the requests admitted, looked up once each (vllm:prefix_cache_queries). */
  queriesTotal = 0;
  /** Of those, tokens served from cache (vllm:prefix_cache_hits). */
  hitsTotal = 0;

  private readonly refCount: Int32Array;
  private readonly blockHash: Float64Array;
  /** Next block registered under the same hash (NO_BLOCK: none); the index holds the first. */
  private readonly sameHashNext: Int32Array;
  private registered = 0;
  // Doubly linked free queue over block ids; index `numBlocks` is the sentinel. Head = least recent.
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly sentinel: number;
  private free: number;
  private readonly hashToBlock: BlockHashIndex;

  constructor(options: PrefixCacheOptions) {
    const blockSize = options.blockSize ?? 16;
    if (!Number.isInteger(options.numBlocks) || options.numBlocks < 1) throw new RangeError("numBlocks must be >= 1");
    if (!Number.isInteger(blockSize) || blockSize < 1) throw new RangeError("blockSize must be >= 1");
    this.blockSize = blockSize;
    this.numBlocks = options.numBlocks;
    const n = options.numBlocks;
    this.hashToBlock = new BlockHashIndex(n);
    this.refCount = new Int32Array(n);
    this.blockHash = new Float64Array(n).fill(NO_HASH);
    this.sameHashNext = new Int32Array(n).fill(NO_BLOCK);
    this.prev = new Int32Array(n + 1);
    this.next = new Int32Array(n + 1);
    this.sentinel = n;
    this.prev[n] = n;
    this.next[n] = n;
    for (let b = 0; b < n; b++) this.pushTail(b);
    this.free = n;
  }

  /** Blocks not referenced by any request (cached or empty): what an allocation can take. */
  get freeBlocks(): number {
    return this.free;
  }

  get usedBlocks(): number {
    return this.numBlocks - this.free;
  }

  /** Blocks whose content is registered and reusable (a block computed twice counts twice). */
  get cachedBlocks(): number {
    return this.registered;
  }

  usage(): number {
    return this.usedBlocks / this.numBlocks;
  }

  /**
   * Leading blocks of a chain that are cached, limited like vLLM so that at least one token of a
   * `numTokens`-token sequence is left to compute. No side effects.
   */
  countHitBlocks(hashes: ArrayLike<number>, numTokens: number): number {
    const limit = Math.min(hashes.length, Math.floor((numTokens - 1) / this.blockSize));
    let n = 0;
    while (n < limit && this.hashToBlock.has(hashes[n])) n++;
    return n;
  }

  /** Cached tokens for a sequence given its block hashes. No side effects, no stats. */
  peekCachedTokens(hashes: ArrayLike<number>, numTokens: number): number {
    return this.countHitBlocks(hashes, numTokens) * this.blockSize;
  }

  /** Cached tokens for a token sequence (full blocks only, never the whole sequence). No side effects. */
  lookup(tokens: ArrayLike<number>): number {
    if (tokens.length === 0) return 0;
    return this.peekCachedTokens(computeBlockHashes(tokens, this.blockSize), tokens.length);
  }

  /**
   * Starts a request of `numTokens` tokens: pins its cached prefix blocks and allocates blocks for the
   * tokens it computes next (the uncached rest, at most `maxNewTokens`), appending block ids to `blocks`.
   * Returns the cached token count, or -1 when the free blocks could not hold all `numTokens` (nothing is
   * changed then). Counts queries and hits when `recordStats` and the request fits.
   */
  admit(
    hashes: ArrayLike<number>,
    numTokens: number,
    maxNewTokens: number,
    blocks: number[],
    recordStats = true,
  ): number {
    const hit = this.countHitBlocks(hashes, numTokens);
    const tokensToCompute = Math.min(numTokens - hit * this.blockSize, maxNewTokens);
    let hitUnreferenced = 0;
    for (let i = 0; i < hit; i++) {
      if (this.refCount[this.hashToBlock.get(hashes[i])] === 0) hitUnreferenced++;
    }
    const bs = this.blockSize;
    const needed = Math.ceil((hit * bs + tokensToCompute) / bs) - hit;
    // Admission asks room for the whole sequence, not just the first chunk, so a long prompt does not start a
    // prefill it cannot finish (vLLM scheduler_reserve_full_isl, on by default: Scheduler.schedule passes
    // full_sequence_must_fit to KVCacheManager.allocate_slots for waiting requests).
    const wholeSequence = Math.ceil(numTokens / bs) - hit;
    if (this.free - hitUnreferenced < wholeSequence) return -1;
    // vLLM records the lookup once, when the request is admitted (Scheduler.schedule calls
    // KVCacheManager.record_prefix_cache_stats after allocate_slots succeeds): a refused attempt is not counted.
    if (recordStats) {
      this.queriesTotal += numTokens;
      this.hitsTotal += hit * bs;
    }
    for (let i = 0; i < hit; i++) {
      const b = this.hashToBlock.get(hashes[i]);
      if (this.refCount[b] === 0) {
        this.unlink(b);
        this.free--;
      }
      this.refCount[b]++;
      blocks.push(b);
    }
    for (let i = 0; i < needed; i++) blocks.push(this.takeFree());
    return hit * bs;
  }

  /** Blocks needed to hold `totalTokens` given `blocks`; 0 when it already fits. */
  blocksToGrow(blocks: readonly number[], totalTokens: number): number {
    return Math.max(0, Math.ceil(totalTokens / this.blockSize) - blocks.length);
  }

  /** Extends `blocks` to hold `totalTokens`. Returns false (changing nothing) when blocks are short. */
  grow(blocks: number[], totalTokens: number): boolean {
    const needed = this.blocksToGrow(blocks, totalTokens);
    if (needed > this.free) return false;
    for (let i = 0; i < needed; i++) blocks.push(this.takeFree());
    return true;
  }

  /** Registers a computed full block under its chain hash, beside any other copy already registered. */
  cacheBlock(block: number, hash: number): void {
    if (this.blockHash[block] !== NO_HASH) return;
    this.blockHash[block] = hash;
    this.registered++;
    const first = this.hashToBlock.get(hash);
    if (first === NO_BLOCK) {
      this.hashToBlock.set(hash, block);
    } else {
      let last = first;
      while (this.sameHashNext[last] !== NO_BLOCK) last = this.sameHashNext[last];
      this.sameHashNext[last] = block;
    }
  }

  /**
   * Unpins a request's blocks. Tail blocks enter the free queue first, so they are evicted before the
   * shared head of the sequence.
   */
  release(blocks: readonly number[]): void {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i];
      if (this.refCount[b] <= 0) throw new Error(`block ${b} released more often than acquired`);
      if (--this.refCount[b] === 0) {
        this.pushTail(b);
        this.free++;
      }
    }
  }

  refCountOf(block: number): number {
    return this.refCount[block];
  }

  isCached(hash: number): boolean {
    return this.hashToBlock.has(hash);
  }

  private takeFree(): number {
    const b = this.next[this.sentinel];
    if (b === this.sentinel) throw new Error("no free KV block");
    this.unlink(b);
    this.free--;
    if (this.blockHash[b] !== NO_HASH) this.uncache(b);
    this.refCount[b] = 1;
    return b;
  }

  /** Evicts a block's content: its hash stays cached if another copy holds it. */
  private uncache(b: number): void {
    const h = this.blockHash[b];
    const first = this.hashToBlock.get(h);
    const rest = this.sameHashNext[b];
    if (first === b) {
      if (rest === NO_BLOCK) this.hashToBlock.delete(h);
      else this.hashToBlock.set(h, rest);
    } else {
      let p = first;
      while (this.sameHashNext[p] !== b) p = this.sameHashNext[p];
      this.sameHashNext[p] = rest;
    }
    this.sameHashNext[b] = NO_BLOCK;
    this.blockHash[b] = NO_HASH;
    this.registered--;
  }

  private pushTail(b: number): void {
    const last = this.prev[this.sentinel];
    this.next[last] = b;
    this.prev[b] = last;
    this.next[b] = this.sentinel;
    this.prev[this.sentinel] = b;
  }

  private unlink(b: number): void {
    const p = this.prev[b];
    const n = this.next[b];
    this.next[p] = n;
    this.prev[n] = p;
  }
}
