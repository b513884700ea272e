import { ChainHasher, chainSeed } from "../../assembly/prefix/chain";
import { xxh64Bytes } from "../../assembly/prefix/xxh64";

function utf8(s: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(s));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function buildOn(hasher: ChainHasher, bytes: Uint8Array, chunkChars: i32, seed: u64): i32 {
  return hasher.build(bytes.dataStart, <usize>bytes.length, chunkChars, seed);
}

function seedOf(model: string, salt: string): u64 {
  const m = utf8(model);
  const s = utf8(salt);
  return chainSeed(m.dataStart, <usize>m.length, s.dataStart, <usize>s.length);
}

let rngState: u64 = 0x9e3779b97f4a7c15;
function nextRandom(): u64 {
  rngState ^= rngState << 13;
  rngState ^= rngState >> 7;
  rngState ^= rngState << 17;
  return rngState;
}
function randomBelow(n: i32): i32 {
  return <i32>(nextRandom() % <u64>n);
}

/** Independent model of the chain: list the lead bytes, then cut at every chunkChars-th one. */
class ReferenceChain {
  hashes: Array<u64> = new Array<u64>();
  ends: Array<u32> = new Array<u32>();

  constructor(bytes: Uint8Array, chunkChars: i32, seed: u64, maxChunks: i32) {
    const leads = new Array<i32>();
    for (let i = 0; i < bytes.length; i++) {
      if ((bytes[i] & 0xc0) != 0x80) leads.push(i);
    }
    const fullChunks = leads.length / chunkChars;
    let hash = seed;
    let start = 0;
    for (let k = 0; k < fullChunks && k < maxChunks; k++) {
      const nextLead = (k + 1) * chunkChars;
      const end = nextLead < leads.length ? leads[nextLead] : bytes.length;
      hash = xxh64Bytes(bytes.subarray(start, end), hash);
      this.hashes.push(hash);
      this.ends.push(<u32>end);
      start = end;
    }
  }
}

function expectMatchesReference(hasher: ChainHasher, bytes: Uint8Array, chunkChars: i32, seed: u64): void {
  const count = buildOn(hasher, bytes, chunkChars, seed);
  const ref = new ReferenceChain(bytes, chunkChars, seed, hasher.maxChunks);
  expect<i32>(count).toBe(ref.hashes.length);
  expect<i32>(hasher.count).toBe(count);
  for (let i = 0; i < count; i++) {
    expect<u64>(hasher.hashes[i]).toBe(ref.hashes[i]);
    expect<u32>(hasher.ends[i]).toBe(ref.ends[i]);
  }
}

describe("ChainHasher boundaries", () => {
  it("cuts by code points, not bytes, across 1- to 4-byte UTF-8 sequences", () => {
    // a(1) é(2) | €(3) 😀(4) | x y | z (partial, ignored)
    const hasher = new ChainHasher(16);
    const seed: u64 = 42;
    const count = buildOn(hasher, utf8("aé€😀xyz"), 2, seed);
    expect<i32>(count).toBe(3);
    expect<u32>(hasher.ends[0]).toBe(3);
    expect<u32>(hasher.ends[1]).toBe(10);
    expect<u32>(hasher.ends[2]).toBe(12);
    const h0 = xxh64Bytes(utf8("aé"), seed);
    const h1 = xxh64Bytes(utf8("€😀"), h0);
    const h2 = xxh64Bytes(utf8("xy"), h1);
    expect<u64>(hasher.hashes[0]).toBe(h0);
    expect<u64>(hasher.hashes[1]).toBe(h1);
    expect<u64>(hasher.hashes[2]).toBe(h2);
  });

  it("hashes a final chunk that is exactly full and ignores a partial one", () => {
    const hasher = new ChainHasher(16);
    expect<i32>(buildOn(hasher, utf8("abcdef"), 3, 1)).toBe(2);
    expect<u32>(hasher.ends[1]).toBe(6);
    expect<i32>(buildOn(hasher, utf8("abcdefgh"), 3, 1)).toBe(2);
    expect<u32>(hasher.ends[1]).toBe(6);
    expect<i32>(buildOn(hasher, utf8("ab"), 3, 1)).toBe(0);
    expect<i32>(buildOn(hasher, new Uint8Array(0), 3, 1)).toBe(0);
  });

  it("a longer stream keeps every earlier hash (a turn extends the previous prompt)", () => {
    const first = new ChainHasher(64);
    const second = new ChainHasher(64);
    const turn1 = utf8("System: tu es un assistant. Utilisateur: bonjour, ça va? 你好世界");
    const turn2 = concat(turn1, utf8(" Assistant: très bien! 🙂 Et toi?"));
    for (let chunkChars = 1; chunkChars <= 9; chunkChars++) {
      const n1 = buildOn(first, turn1, chunkChars, 99);
      const n2 = buildOn(second, turn2, chunkChars, 99);
      expect<bool>(n2 > n1).toBe(true);
      for (let i = 0; i < n1; i++) {
        expect<u64>(second.hashes[i]).toBe(first.hashes[i]);
        expect<u32>(second.ends[i]).toBe(first.ends[i]);
      }
    }
  });

  it("a change in an early chunk changes that hash and every later one", () => {
    const hasher = new ChainHasher(32);
    const a = utf8("0123456789abcdefghijklmnopqrstuvwxyz");
    const b = utf8("0123X56789abcdefghijklmnopqrstuvwxyz"); // chunk 1 of size 4 differs
    const n = buildOn(hasher, a, 4, 5);
    const original = new Array<u64>(n);
    for (let i = 0; i < n; i++) original[i] = hasher.hashes[i];
    expect<i32>(buildOn(hasher, b, 4, 5)).toBe(n);
    expect<u64>(hasher.hashes[0]).toBe(original[0]);
    for (let i = 1; i < n; i++) expect<u64>(hasher.hashes[i]).not.toBe(original[i]);
  });

  it("stops at maxChunks", () => {
    const hasher = new ChainHasher(3);
    const bytes = utf8("aaaabbbbccccddddeeee");
    expect<i32>(buildOn(hasher, bytes, 4, 0)).toBe(3);
    expect<u32>(hasher.ends[2]).toBe(12);
    const unbounded = new ChainHasher(10);
    expect<i32>(buildOn(unbounded, bytes, 4, 0)).toBe(5);
    for (let i = 0; i < 3; i++) expect<u64>(hasher.hashes[i]).toBe(unbounded.hashes[i]);
  });

  it("does not look past len: the byte after the input never moves the last boundary", () => {
    const hasher = new ChainHasher(8);
    const withLead = utf8("abcdX");
    const withContinuation = utf8("abcd\u00e9"); // 0xC3 0xA9
    withContinuation[4] = 0xa9; // a continuation byte right after the input
    expect<i32>(hasher.build(withLead.dataStart, 4, 2, 3)).toBe(2);
    const h = hasher.hashes[1];
    expect<i32>(hasher.build(withContinuation.dataStart, 4, 2, 3)).toBe(2);
    expect<u64>(hasher.hashes[1]).toBe(h);
    expect<u32>(hasher.ends[1]).toBe(4);
  });

  it("rejects non-positive chunk sizes and zero capacity without trapping", () => {
    const bytes = utf8("hello world");
    expect<i32>(buildOn(new ChainHasher(4), bytes, 0, 0)).toBe(0);
    expect<i32>(buildOn(new ChainHasher(4), bytes, -5, 0)).toBe(0);
    const empty = new ChainHasher(0);
    expect<i32>(buildOn(empty, bytes, 2, 0)).toBe(0);
    const negative = new ChainHasher(-3);
    expect<i32>(negative.maxChunks).toBe(0);
    expect<i32>(buildOn(negative, bytes, 2, 0)).toBe(0);
  });
});

describe("ChainHasher against a reference model", () => {
  it("matches on random valid UTF-8 of mixed widths, for chunk sizes 1..40", () => {
    const pieces: string[] = ["a", "Z", " ", "é", "ß", "€", "中", "😀", "\n", "{", "ф"];
    const hasher = new ChainHasher(128);
    for (let trial = 0; trial < 300; trial++) {
      let text = "";
      const n = randomBelow(200);
      for (let i = 0; i < n; i++) text += pieces[randomBelow(pieces.length)];
      expectMatchesReference(hasher, utf8(text), 1 + randomBelow(40), nextRandom());
    }
  });

  it("matches on random bytes including invalid UTF-8, stray continuations and truncated sequences", () => {
    const hasher = new ChainHasher(64);
    for (let trial = 0; trial < 300; trial++) {
      const bytes = new Uint8Array(randomBelow(300));
      const continuationHeavy = (trial & 1) == 0;
      for (let i = 0; i < bytes.length; i++) {
        const r = <u8>nextRandom();
        bytes[i] = continuationHeavy && (r & 3) != 0 ? 0x80 | (r & 0x3f) : r;
      }
      expectMatchesReference(hasher, bytes, 1 + randomBelow(20), nextRandom());
    }
  });

  it("matches on mostly-ASCII text for chunk sizes that take whole 64-byte blocks (the default is 512)", () => {
    // Runs of ASCII with a multi-byte character or a stray continuation byte now and then: blocks that are all
    // ASCII, blocks that are not, and boundaries at, just after and well after a block's end.
    const pieces: string[] = ["the ", "model ", "cache ", "a", "\n", "é", "€", "中", "😀"];
    const hasher = new ChainHasher(64);
    for (let trial = 0; trial < 120; trial++) {
      let text = "";
      const n = 200 + randomBelow(700);
      const spice = 1 + randomBelow(40);
      for (let i = 0; i < n; i++) text += pieces[randomBelow(spice) == 0 ? 4 + randomBelow(5) : randomBelow(4)];
      const bytes = utf8(text);
      if ((trial & 3) == 0 && bytes.length > 0) bytes[randomBelow(bytes.length)] = 0x80 | <u8>randomBelow(64);
      const chunkChars = (trial & 1) == 0 ? 64 * (1 + randomBelow(8)) : 60 + randomBelow(500);
      expectMatchesReference(hasher, bytes, chunkChars, nextRandom());
    }
  });

  it("matches on ASCII streams with non-ASCII only at the edges, for chunk sizes past one lane sum (2048 bytes)", () => {
    // A chunk found in one pass over ASCII, and one whose pass must go on past the continuation bytes it met:
    // multi-byte characters or stray continuations at the start, the end, or just before or after a boundary.
    const hasher = new ChainHasher(16);
    const edges: string[] = ["é", "€", "😀", "中"];
    for (let trial = 0; trial < 60; trial++) {
      const chunkChars = (trial & 1) == 0 ? 64 * (1 + randomBelow(80)) : 16 + randomBelow(6000);
      const n = chunkChars * (1 + randomBelow(3)) + randomBelow(200);
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = <u8>(0x20 + randomBelow(0x5f));
      let text = bytes;
      const where = trial % 5;
      const edge = utf8(edges[randomBelow(edges.length)]);
      if (where == 1) text = concat(edge, bytes);
      else if (where == 2) text = concat(bytes, edge);
      else if (where == 3 && n > chunkChars + 1) {
        const at = chunkChars + randomBelow(3) - 1;
        text = concat(concat(bytes.subarray(0, at), edge), bytes.subarray(at));
      } else if (where == 4) text[randomBelow(n)] = 0x80 | <u8>randomBelow(64);
      expectMatchesReference(hasher, text, chunkChars, nextRandom());
    }
  });

  it("keeps a stray continuation byte that falls on a block-aligned boundary of an ASCII stream with its chunk", () => {
    const hasher = new ChainHasher(16);
    for (let k = 1; k <= 8; k++) {
      const chunkChars = 64 * k;
      for (let j = 1; j <= 3; j++) {
        const bytes = new Uint8Array(chunkChars * 4 + 70).fill(0x61);
        bytes[chunkChars * j] = 0x80 | <u8>j;
        expectMatchesReference(hasher, bytes, chunkChars, nextRandom());
      }
    }
  });

  it("matches on long continuation-heavy streams for large chunk sizes", () => {
    const hasher = new ChainHasher(16);
    for (let trial = 0; trial < 30; trial++) {
      const chunkChars = 2048 + randomBelow(4096);
      const bytes = new Uint8Array(chunkChars * 2 + randomBelow(chunkChars * 3));
      const heavy = 1 + randomBelow(4);
      for (let i = 0; i < bytes.length; i++) {
        const r = <u8>nextRandom();
        bytes[i] = randomBelow(heavy + 1) != 0 ? 0x80 | (r & 0x3f) : r & 0x7f;
      }
      expectMatchesReference(hasher, bytes, chunkChars, nextRandom());
    }
  });

  it("matches with a multi-byte character or a stray continuation byte at every offset around 32-byte stripes", () => {
    // The boundary in each position of a stripe, in the first or second half of a 64-byte block, before or after the
    // character; and chunks of fewer than 32 bytes.
    const hasher = new ChainHasher(16);
    const sizes: i32[] = [5, 31, 32, 33, 63, 64, 65, 96, 97];
    const edges: string[] = ["é", "中", "😀"];
    for (let s = 0; s < sizes.length; s++) {
      const chunkChars = sizes[s];
      const ascii = new Uint8Array(chunkChars * 3 + 40).fill(0x61);
      for (let at = 0; at < 110 && at < ascii.length; at++) {
        const e = (at + s) % (edges.length + 1);
        let text: Uint8Array;
        if (e < edges.length) {
          text = concat(concat(ascii.subarray(0, at), utf8(edges[e])), ascii.subarray(at));
        } else {
          text = ascii.slice();
          text[at] = 0x80 | <u8>(at & 0x3f);
        }
        expectMatchesReference(hasher, text, chunkChars, nextRandom());
      }
    }
  });

  it("handles input that is only continuation bytes", () => {
    const hasher = new ChainHasher(8);
    const bytes = new Uint8Array(50).fill(0x80);
    expect<i32>(buildOn(hasher, bytes, 1, 0)).toBe(0);
    bytes[49] = 0x41; // one lead byte at the end: a single one-code-point chunk holding everything
    expect<i32>(buildOn(hasher, bytes, 1, 0)).toBe(1);
    expect<u32>(hasher.ends[0]).toBe(50);
    expectMatchesReference(hasher, bytes, 1, 0);
  });
});

describe("chainSeed", () => {
  it("namespaces by model", () => {
    expect<u64>(seedOf("llama-3-8b", "")).not.toBe(seedOf("llama-3-70b", ""));
    expect<u64>(seedOf("m", "")).toBe(seedOf("m", ""));
  });

  it("namespaces by salt, and an empty salt is the same as no salt", () => {
    const m = utf8("model");
    const unsalted = chainSeed(m.dataStart, <usize>m.length, 0, 0);
    expect<u64>(seedOf("model", "")).toBe(unsalted);
    expect<u64>(seedOf("model", "tenant-a")).not.toBe(unsalted);
    expect<u64>(seedOf("model", "tenant-a")).not.toBe(seedOf("model", "tenant-b"));
  });

  it("keeps the model/salt split unambiguous", () => {
    expect<u64>(seedOf("ab", "c")).not.toBe(seedOf("a", "bc"));
    expect<u64>(seedOf("abc", "")).not.toBe(seedOf("ab", "c"));
    expect<u64>(seedOf("", "abc")).not.toBe(seedOf("abc", ""));
  });

  it("a salted seed is not the unsalted chain hash of a prompt that starts with the salt", () => {
    const hasher = new ChainHasher(4);
    const m = utf8("model");
    const salt = utf8("tenant");
    const unsalted = chainSeed(m.dataStart, <usize>m.length, 0, 0);
    expect<i32>(buildOn(hasher, salt, 6, unsalted)).toBe(1);
    expect<u64>(seedOf("model", "tenant")).not.toBe(hasher.hashes[0]);
  });

  it("different seeds give disjoint chains for the same prompt", () => {
    const a = new ChainHasher(16);
    const b = new ChainHasher(16);
    const prompt = utf8("the same prompt text for two tenants of one model");
    const n = buildOn(a, prompt, 5, seedOf("model", "tenant-a"));
    expect<i32>(buildOn(b, prompt, 5, seedOf("model", "tenant-b"))).toBe(n);
    for (let i = 0; i < n; i++) expect<u64>(a.hashes[i]).not.toBe(b.hashes[i]);
  });
});
