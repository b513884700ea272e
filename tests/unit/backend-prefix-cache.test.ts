import assert from "node:assert/strict";
import { test } from "node:test";
import { computeBlockHashes, hashBlock, ROOT_BLOCK_HASH } from "../../src-host/backend/block-hash.ts";
import { BlockHashIndex } from "../../src-host/backend/block-hash-index.ts";
import { PrefixCache } from "../../src-host/backend/prefix-cache.ts";

function seq(n: number, start = 0): number[] {
  return Array.from({ length: n }, (_, i) => start + i);
}

/** Admits a whole sequence, registers all its full blocks, returns its block ids (still pinned). */
function fill(cache: PrefixCache, tokens: number[]): number[] {
  const blocks: number[] = [];
  const hashes = computeBlockHashes(tokens, cache.blockSize);
  const hit = cache.admit(hashes, tokens.length, tokens.length, blocks);
  assert.ok(hit >= 0, "admission must fit");
  hashes.forEach((h, i) => cache.cacheBlock(blocks[i], h));
  return blocks;
}

test("block hashes form a chain: a change in one block changes it and every later block only", () => {
  const a = seq(64);
  const b = a.slice();
  b[20] = 9999; // inside block 1
  const ha = computeBlockHashes(a, 16);
  const hb = computeBlockHashes(b, 16);
  assert.equal(ha.length, 4);
  assert.equal(ha[0], hb[0]);
  for (let i = 1; i < 4; i++) assert.notEqual(ha[i], hb[i]);
  // Each hash depends on its parent, not just its own tokens.
  assert.equal(ha[1], hashBlock(ha[0], a, 16, 16));
  assert.notEqual(hashBlock(ROOT_BLOCK_HASH, a, 16, 16), ha[1]);
  // Hashes are exact integers usable as keys.
  for (const h of ha) assert.ok(Number.isSafeInteger(h) && h >= 0);
});

test("only full blocks are hashed, and a chain can be extended incrementally", () => {
  const tokens = seq(47);
  assert.equal(computeBlockHashes(tokens, 16).length, 2);
  const partial = computeBlockHashes(tokens.slice(0, 20), 16);
  assert.equal(partial.length, 1);
  assert.deepEqual(computeBlockHashes(tokens, 16, partial), computeBlockHashes(tokens, 16));
});

test("lookup counts full cached blocks and always leaves one token to compute", () => {
  const cache = new PrefixCache({ numBlocks: 16, blockSize: 16 });
  const tokens = seq(40);
  cache.release(fill(cache, tokens));
  assert.equal(cache.lookup(tokens), 32);
  assert.equal(cache.lookup(seq(60)), 32, "a longer prompt with the same start hits the cached blocks");
  assert.equal(cache.lookup(tokens.slice(0, 32)), 16, "a fully cached prompt still computes its last block");
  assert.equal(cache.lookup(tokens.slice(0, 33)), 32);
  assert.equal(cache.lookup(seq(40, 1)), 0, "a different first block misses everything");
  const changedSecond = tokens.slice();
  changedSecond[17] = -5;
  assert.equal(cache.lookup(changedSecond), 16);
});

test("unreferenced blocks are evicted least recently released first; pinned blocks are never evicted", () => {
  const cache = new PrefixCache({ numBlocks: 6, blockSize: 4 });
  const a = seq(9, 100); // 2 full blocks + 1 partial = 3 blocks
  const b = seq(9, 200);
  const aBlocks = fill(cache, a);
  const bBlocks = fill(cache, b);
  assert.equal(cache.freeBlocks, 0);
  assert.equal(cache.usage(), 1);
  cache.release(bBlocks); // a stays pinned
  assert.equal(cache.usage(), 0.5);
  const c = seq(9, 300);
  const cBlocks = fill(cache, c); // needs 3 blocks: only b's can go
  assert.equal(cache.lookup(a), 8, "pinned a survives");
  assert.equal(cache.lookup(b), 0, "released b was evicted");
  // Not enough free blocks: admission is refused and nothing changes.
  const before = cache.freeBlocks;
  const d: number[] = [];
  assert.equal(cache.admit(computeBlockHashes(seq(9, 400), 4), 9, 9, d), -1);
  assert.equal(d.length, 0);
  assert.equal(cache.freeBlocks, before);
  cache.release(aBlocks);
  cache.release(cBlocks);
  assert.equal(cache.freeBlocks, 6);
  // a was released before c, so a is evicted first.
  fill(cache, seq(8, 500)); // 2 blocks
  assert.equal(cache.lookup(c), 8);
});

test("a released sequence loses its tail blocks before its head", () => {
  const cache = new PrefixCache({ numBlocks: 4, blockSize: 4 });
  const a = seq(17, 10); // 4 full blocks + 1 token: 5 blocks would be needed, so use 16 tokens
  const blocks = fill(cache, a.slice(0, 16));
  cache.release(blocks);
  fill(cache, seq(4, 900)); // takes one block
  assert.equal(cache.lookup(a), 12, "the last block went first, the first three remain");
});

test("admission pins hit blocks, shares them between requests and counts queries and hits in tokens", () => {
  const cache = new PrefixCache({ numBlocks: 10, blockSize: 4 });
  const prompt = seq(10);
  const first: number[] = [];
  const h = computeBlockHashes(prompt, 4);
  assert.equal(cache.admit(h, 10, 10, first), 0);
  h.forEach((x, i) => cache.cacheBlock(first[i], x));
  const second: number[] = [];
  assert.equal(cache.admit(h, 10, 10, second), 8);
  assert.deepEqual(second.slice(0, 2), first.slice(0, 2), "the cached blocks are shared");
  assert.equal(cache.refCountOf(first[0]), 2);
  assert.equal(second.length, 3);
  assert.equal(cache.queriesTotal, 20);
  assert.equal(cache.hitsTotal, 8);
  // Without recording, stats stay.
  const third: number[] = [];
  cache.admit(h, 10, 10, third, false);
  assert.equal(cache.queriesTotal, 20);
  // A hit on a released-but-cached block takes it back out of the free queue.
  cache.release(first);
  cache.release(second);
  cache.release(third);
  assert.equal(cache.freeBlocks, 10);
  const again: number[] = [];
  assert.equal(cache.admit(h, 10, 10, again), 8);
  assert.equal(cache.freeBlocks, 7);
  // Growing for decode allocates whole blocks only when the next token crosses a boundary.
  assert.equal(cache.blocksToGrow(again, 12), 0);
  assert.ok(cache.grow(again, 13));
  assert.equal(again.length, 4);
  assert.throws(() => cache.release([again[3], again[3]]), /released more often/);
});

/** A deliberately naive model of the same policy, for randomized comparison. */
class NaiveCache {
  // `order`: when the block was registered; a hash held by several blocks is found in the first registered.
  blocks: { ref: number; hash: number | null; order: number }[];
  free: number[] = []; // LRU order, head evicted first
  registrations = 0;
  constructor(n: number, readonly bs: number) {
    this.blocks = Array.from({ length: n }, () => ({ ref: 0, hash: null, order: 0 }));
    for (let i = 0; i < n; i++) this.free.push(i);
  }
  find(h: number): number {
    let found = -1;
    this.blocks.forEach((b, i) => {
      if (b.hash === h && (found < 0 || b.order < this.blocks[found].order)) found = i;
    });
    return found;
  }
  hitBlocks(hashes: number[], numTokens: number): number {
    let n = 0;
    while (n < hashes.length && n < Math.floor((numTokens - 1) / this.bs) && this.find(hashes[n]) >= 0) n++;
    return n;
  }
  admit(hashes: number[], numTokens: number, out: number[]): number {
    const hit = this.hitBlocks(hashes, numTokens);
    const needed = Math.ceil(numTokens / this.bs) - hit;
    const hitFree = hashes.slice(0, hit).filter((h) => this.blocks[this.find(h)].ref === 0).length;
    if (this.free.length - hitFree < needed) return -1;
    for (let i = 0; i < hit; i++) {
      const b = this.find(hashes[i]);
      if (this.blocks[b].ref === 0) this.free.splice(this.free.indexOf(b), 1);
      this.blocks[b].ref++;
      out.push(b);
    }
    for (let i = 0; i < needed; i++) {
      const b = this.free.shift()!;
      this.blocks[b] = { ref: 1, hash: null, order: 0 };
      out.push(b);
    }
    return hit * this.bs;
  }
  cache(b: number, h: number): void {
    if (this.blocks[b].hash === null) this.blocks[b] = { ref: this.blocks[b].ref, hash: h, order: ++this.registrations };
  }
  release(bs: number[]): void {
    for (let i = bs.length - 1; i >= 0; i--) if (--this.blocks[bs[i]].ref === 0) this.free.push(bs[i]);
  }
}

test("randomized operations agree with a naive reference model", () => {
  let s = 12345;
  const rnd = (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) % n;
  };
  const bs = 4;
  const cache = new PrefixCache({ numBlocks: 24, blockSize: bs });
  const naive = new NaiveCache(24, bs);
  // A few families of prompts sharing prefixes, so hits, sharing and eviction all happen.
  const families = [seq(40, 0), seq(40, 1000), seq(40, 2000)];
  const live: { real: number[]; ref: number[] }[] = [];
  for (let step = 0; step < 3000; step++) {
    if (live.length > 0 && rnd(3) === 0) {
      const { real, ref } = live.splice(rnd(live.length), 1)[0];
      cache.release(real);
      naive.release(ref);
    } else {
      const fam = families[rnd(families.length)];
      const tokens = fam.slice(0, 1 + rnd(fam.length));
      if (rnd(4) === 0) tokens[rnd(tokens.length)] = 5000 + rnd(50);
      const hashes = computeBlockHashes(tokens, bs);
      const real: number[] = [];
      const ref: number[] = [];
      const got = cache.admit(hashes, tokens.length, tokens.length, real);
      const want = naive.admit(hashes, tokens.length, ref);
      assert.equal(got, want, `step ${step}: cached tokens`);
      if (got >= 0) {
        hashes.forEach((h, i) => {
          cache.cacheBlock(real[i], h);
          naive.cache(ref[i], h);
        });
        live.push({ real, ref });
      }
    }
    assert.equal(cache.freeBlocks, naive.free.length, `step ${step}: free blocks`);
    for (const fam of families) {
      const hashes = computeBlockHashes(fam, bs);
      assert.equal(cache.peekCachedTokens(hashes, fam.length), naive.hitBlocks(hashes, fam.length) * bs);
    }
  }
});

test("the block hash index agrees with a Map under random inserts and deletes", () => {
  const index = new BlockHashIndex(300);
  const oracle = new Map<number, number>();
  let s = 99;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
  // Few distinct keys so that probe runs collide and deletions shift entries.
  const keys = Array.from({ length: 400 }, () => rnd() * 2048 + (rnd() % 2048));
  for (let i = 0; i < 20000; i++) {
    const k = keys[rnd() % keys.length];
    if (rnd() % 2 === 0 && oracle.size < 300) {
      index.set(k, i);
      oracle.set(k, i);
    } else {
      assert.equal(index.delete(k), oracle.delete(k));
    }
    if (i % 97 === 0) for (const key of keys) assert.equal(index.get(key), oracle.get(key) ?? -1);
  }
  assert.equal(index.size, oracle.size);
});

test("a block computed twice is cached twice: the hash stays while either copy does (vLLM BlockHashToBlockMap)", () => {
  const cache = new PrefixCache({ numBlocks: 4, blockSize: 4 });
  const tokens = seq(8);
  const hashes = computeBlockHashes(tokens, 4);
  // Two requests prefill the same 8 tokens side by side; neither saw the other's blocks at admission.
  const first: number[] = [];
  const second: number[] = [];
  assert.equal(cache.admit(hashes, 8, 8, first), 0);
  assert.equal(cache.admit(hashes, 8, 8, second), 0);
  hashes.forEach((h, i) => cache.cacheBlock(first[i], h));
  hashes.forEach((h, i) => cache.cacheBlock(second[i], h));
  cache.release(first);
  // Both free blocks are first's; taking them evicts first's copies, second's (still running) remain.
  const other: number[] = [];
  assert.equal(cache.admit(computeBlockHashes(seq(8, 100), 4), 8, 8, other), 0);
  assert.deepEqual(other.sort(), first.slice().sort());
  assert.ok(cache.isCached(hashes[0]) && cache.isCached(hashes[1]));
  assert.equal(cache.lookup(seq(9)), 8);
  // A new request hits second's copies.
  const third: number[] = [];
  cache.release(other);
  assert.equal(cache.admit(hashes, 9, 9, third), 8);
  assert.deepEqual(third.slice(0, 2), second);
});
