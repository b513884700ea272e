// Oracle test: the plugin's AssemblyScript XXH64 must be bit-exact with the xxhash-wasm package.
// The harness is compiled here with the asc API and the release build's optimization flags; the repo's
// asconfig.json (plugin runtime, ABI abort handler) is deliberately not applied to this standalone entry.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import xxhash from "xxhash-wasm";
import { compileAs } from "../../src-host/wasm/compile-as.ts";
import { XXH64_HARNESS_ENTRY } from "../../src-host/wasm/guest-entries.ts";
import { SeededRandom } from "../../src-host/util/seeded-random.ts";

interface Harness {
  memory: WebAssembly.Memory;
  xxh64(ptr: number, len: number, seed: bigint): bigint;
  alloc(size: number): number;
}

const MAX_LEN = 10 * 1024;
const GUARD = 64; // random bytes on each side of the input, which must not influence the hash

let harness: Harness;
let reference: (input: Uint8Array, seed: bigint) => bigint;
let arena = 0;

async function compileHarness(): Promise<Uint8Array<ArrayBuffer>> {
  return (await compileAs(XXH64_HARNESS_ENTRY, "standalone")) as Uint8Array<ArrayBuffer>;
}

/** Seeds, lengths and fill bytes from the seeded generator (a 64-bit seed is two 32-bit draws). */
function makeRng(seed: number) {
  const rng = new SeededRandom(seed);
  return {
    next64: (): bigint => (BigInt(rng.u32()) << 32n) | BigInt(rng.u32()),
    below: (n: number): number => rng.int(n),
    fill: (buf: Uint8Array): void => buf.set(rng.bytes(buf.length)),
  };
}

/** Writes `input` surrounded by random guard bytes at a byte offset in 0..7, and hashes it in wasm. */
function hashInWasm(input: Uint8Array, seed: bigint, misalign: number, rng: ReturnType<typeof makeRng>): bigint {
  const mem = new Uint8Array(harness.memory.buffer, arena, MAX_LEN + 2 * GUARD + 8);
  rng.fill(mem);
  const ptr = arena + GUARD + misalign;
  new Uint8Array(harness.memory.buffer).set(input, ptr);
  return BigInt.asUintN(64, harness.xxh64(ptr, input.length, seed));
}

function hex(v: bigint): string {
  return "0x" + v.toString(16).padStart(16, "0");
}

before(async () => {
  const binary = await compileHarness();
  const { instance } = await WebAssembly.instantiate(binary, {
    env: {
      abort() {
        throw new Error("abort called");
      },
    },
  });
  harness = instance.exports as unknown as Harness;
  arena = harness.alloc(MAX_LEN + 2 * GUARD + 8);
  const api = await xxhash();
  reference = (input, seed) => api.h64Raw(input, seed);
});

test("empty input with seed 0 gives the published vector 0xEF46DB3751D8E999", () => {
  const rng = makeRng(1);
  assert.equal(hex(hashInWasm(new Uint8Array(0), 0n, 0, rng)), "0xef46db3751d8e999");
});

test("every length 0..300 matches the reference, with random seeds and misalignments", () => {
  const rng = makeRng(0x5eed0001);
  for (let len = 0; len <= 300; len++) {
    for (let trial = 0; trial < 4; trial++) {
      const input = new Uint8Array(len);
      rng.fill(input);
      const seed = trial === 0 ? 0n : rng.next64();
      const misalign = rng.below(8);
      const got = hashInWasm(input, seed, misalign, rng);
      const want = BigInt.asUintN(64, reference(input, seed));
      assert.equal(hex(got), hex(want), `len=${len} seed=${hex(seed)} misalign=${misalign}`);
    }
  }
});

test("random lengths up to 10 KiB match the reference", () => {
  const rng = makeRng(0x5eed0002);
  for (let trial = 0; trial < 400; trial++) {
    const len = rng.below(MAX_LEN + 1);
    const input = new Uint8Array(len);
    rng.fill(input);
    const seed = rng.next64();
    const misalign = rng.below(8);
    const got = hashInWasm(input, seed, misalign, rng);
    const want = BigInt.asUintN(64, reference(input, seed));
    assert.equal(hex(got), hex(want), `len=${len} seed=${hex(seed)} misalign=${misalign}`);
  }
});

test("edge seeds (0, 1, 2^63, 2^64-1) and all-0x00 / all-0xFF inputs match the reference", () => {
  const rng = makeRng(0x5eed0003);
  const seeds = [0n, 1n, 1n << 63n, (1n << 64n) - 1n];
  for (const fillByte of [0x00, 0xff]) {
    for (const len of [0, 1, 3, 4, 7, 8, 31, 32, 33, 63, 64, 65, 1024]) {
      for (const seed of seeds) {
        const input = new Uint8Array(len).fill(fillByte);
        const got = hashInWasm(input, seed, 0, rng);
        const want = BigInt.asUintN(64, reference(input, seed));
        assert.equal(hex(got), hex(want), `fill=${fillByte} len=${len} seed=${hex(seed)}`);
      }
    }
  }
});
