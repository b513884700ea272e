// XXH64 throughput: our AssemblyScript xxh64 (assembly/prefix/xxh64.ts through the oracle test's harness,
// release flags) called directly from JS on 1 MiB already in its linear memory, against xxhash-wasm's h64Raw
// on the same bytes (which copies them into its own memory first), in interleaved rounds. A third contender
// copies the input into our memory before hashing, the like-for-like comparison with h64Raw.
import xxhash from "xxhash-wasm";
import { compileAs } from "../wasm/compile-as.ts";
import { XXH64_HARNESS_ENTRY } from "../wasm/guest-entries.ts";
import { interleavedRounds, medianRatio } from "./interleaved-rounds.ts";
import { SeededRandom } from "../util/seeded-random.ts";

export interface Xxh64Options {
  bytes: number;
  rounds: number;
  targetMs: number;
}

export interface Xxh64Result {
  bytes: number;
  rounds: number;
  /** Median over rounds of (our throughput) / (xxhash-wasm h64Raw throughput). */
  ratioToXxhashWasm: number;
  /** The same when our side also copies the input into linear memory first. */
  ratioWithCopyToXxhashWasm: number;
  /** Machine-specific median throughputs, GB/s (10^9 bytes per second). */
  gbPerSecond: { ours: number; oursWithCopy: number; xxhashWasm: number };
  /** Both implementations gave the same hash for the benchmark input. */
  hashesAgree: boolean;
}

interface Harness {
  memory: WebAssembly.Memory;
  xxh64(ptr: number, len: number, seed: bigint): bigint;
  alloc(size: number): number;
}

export async function xxh64Throughput(options: Xxh64Options): Promise<Xxh64Result> {
  const binary = (await compileAs(XXH64_HARNESS_ENTRY, "standalone")) as Uint8Array<ArrayBuffer>;
  const { instance } = await WebAssembly.instantiate(binary, {
    env: {
      abort() {
        throw new Error("xxh64 harness aborted");
      },
    },
  });
  const ours = instance.exports as unknown as Harness;
  const reference = await xxhash();

  const input = new Uint8Array(options.bytes);
  input.set(new SeededRandom(0x2545f491).bytes(options.bytes));
  const ptr = ours.alloc(options.bytes);
  new Uint8Array(ours.memory.buffer, ptr, options.bytes).set(input);
  const seed = 0x9e3779b97f4a7c15n;
  const hashesAgree = BigInt.asUintN(64, ours.xxh64(ptr, options.bytes, seed)) === BigInt.asUintN(64, reference.h64Raw(input, seed));

  let sink = 0n;
  const result = interleavedRounds(
    [
      {
        name: "ours",
        run(n) {
          for (let i = 0; i < n; i++) sink ^= ours.xxh64(ptr, options.bytes, seed);
        },
      },
      {
        name: "oursWithCopy",
        run(n) {
          for (let i = 0; i < n; i++) {
            new Uint8Array(ours.memory.buffer, ptr, options.bytes).set(input);
            sink ^= ours.xxh64(ptr, options.bytes, seed);
          }
        },
      },
      {
        name: "xxhashWasm",
        run(n) {
          for (let i = 0; i < n; i++) sink ^= reference.h64Raw(input, seed);
        },
      },
    ],
    { rounds: options.rounds, targetMs: options.targetMs },
  );
  if (sink === -1n) throw new Error("unreachable: keeps the hashes observable");
  const s = result.samplesUs;
  const gbps = (us: number) => options.bytes / (us * 1000);
  return {
    bytes: options.bytes,
    rounds: options.rounds,
    // Throughput ratio = inverse time ratio.
    ratioToXxhashWasm: medianRatio(s.xxhashWasm, s.ours),
    ratioWithCopyToXxhashWasm: medianRatio(s.xxhashWasm, s.oursWithCopy),
    gbPerSecond: { ours: gbps(result.medianUs.ours), oursWithCopy: gbps(result.medianUs.oursWithCopy), xxhashWasm: gbps(result.medianUs.xxhashWasm) },
    hashesAgree,
  };
}
