// The inference extension's approximate prefix index, reimplemented from its published rules: the
// request's user input (the prompt, or the JSON of the chat messages) cut into 64-byte blocks, hashed as a
// chain with xxh64 (first parent = xxh64(model), block i = xxh64(block bytes ‖ parent as 8 LE bytes)), at
// most 256 blocks; per pod an LRU of 31,250 block hashes filled at schedule time; a pod's score is its
// longest run of leading matched blocks over the request's block count.
import xxhash, { type XXHashAPI } from "xxhash-wasm";

export const GIE_BLOCK_BYTES = 64;
export const GIE_MAX_BLOCKS = 256;
export const GIE_LRU_PER_POD = 31_250;

const MASK_53 = (1n << 53n) - 1n;
const enc = new TextEncoder();

let api: XXHashAPI | null = null;

export async function loadXxhash(): Promise<XXHashAPI> {
  return (api ??= await xxhash());
}

export interface GieHashOptions {
  blockBytes?: number;
  maxBlocks?: number;
}

/** Block hash chain of `input` for `model` (full blocks only), as 64-bit values. */
export function gieBlockHashes(xx: XXHashAPI, model: string, input: Uint8Array, options: GieHashOptions = {}): bigint[] {
  const size = options.blockBytes ?? GIE_BLOCK_BYTES;
  const maxBlocks = options.maxBlocks ?? GIE_MAX_BLOCKS;
  if (input.length < size) return [];
  const blocks = Math.min(Math.floor(input.length / size), maxBlocks);
  const scratch = new Uint8Array(size + 8);
  const view = new DataView(scratch.buffer);
  let parent = xx.h64Raw(enc.encode(model), 0n);
  const out: bigint[] = [];
  for (let b = 0; b < blocks; b++) {
    scratch.set(input.subarray(b * size, (b + 1) * size), 0);
    view.setBigUint64(size, parent, true);
    parent = xx.h64Raw(scratch, 0n);
    out.push(parent);
  }
  return out;
}

/** Chat input as the extension reads it: the JSON of the messages array. */
export function gieChatInput(messages: readonly { role: string; content: string }[]): Uint8Array {
  return enc.encode(JSON.stringify(messages.map((m) => ({ role: m.role, content: m.content }))));
}

/** Map key of a 64-bit block hash (53 low bits; collisions are negligible at simulator scale). */
export function hashKey(h: bigint): number {
  return Number(h & MASK_53);
}

export class GiePrefixIndex {
  private readonly lru = new Map<number, Map<number, true>>();
  private readonly holders = new Map<number, Set<number>>();

  constructor(readonly capacityPerPod = GIE_LRU_PER_POD) {}

  /** Records that `pod` was sent these blocks (most recent last); evicts the pod's oldest past capacity. */
  add(keys: readonly number[], pod: number): void {
    let lru = this.lru.get(pod);
    if (lru === undefined) this.lru.set(pod, (lru = new Map()));
    for (const k of keys) {
      if (lru.has(k)) {
        lru.delete(k);
      } else {
        let set = this.holders.get(k);
        if (set === undefined) this.holders.set(k, (set = new Set()));
        set.add(pod);
      }
      lru.set(k, true);
      if (lru.size > this.capacityPerPod) {
        const oldest = lru.keys().next().value as number;
        lru.delete(oldest);
        const set = this.holders.get(oldest)!;
        set.delete(pod);
        if (set.size === 0) this.holders.delete(oldest);
      }
    }
  }

  /** For every pod holding the first block: how many leading blocks it holds (the extension's greedy walk). */
  longestPrefix(keys: readonly number[]): Map<number, number> {
    const res = new Map<number, number>();
    for (const k of keys) {
      const set = this.holders.get(k);
      if (set === undefined || set.size === 0) break;
      for (const pod of set) res.set(pod, (res.get(pod) ?? 0) + 1);
    }
    return res;
  }

  removePod(pod: number): void {
    const lru = this.lru.get(pod);
    if (lru === undefined) return;
    for (const k of lru.keys()) {
      const set = this.holders.get(k);
      set?.delete(pod);
      if (set?.size === 0) this.holders.delete(k);
    }
    this.lru.delete(pod);
  }

  sizeOf(pod: number): number {
    return this.lru.get(pod)?.size ?? 0;
  }
}
