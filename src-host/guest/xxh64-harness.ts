// Minimal entry exposing the plugin's XXH64 to a Node oracle test (tests/integration/xxh64-oracle.test.ts).
import { xxh64 as xxh64Impl } from "../../assembly/prefix/xxh64";

export function xxh64(ptr: usize, len: usize, seed: u64): u64 {
  return xxh64Impl(ptr, len, seed);
}

/** Reserves `size` bytes of linear memory that the test may write input into. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}
