// The request extractor and the chunk-hash chain behind a few exports, so that a test can compile them with and
// without WebAssembly SIMD and compare the canonical streams and chain hashes byte for byte
// (tests/integration/simd-scalar-equivalence.test.ts).
import { RequestExtractor } from "../../assembly/request/extract";
import { ChainHasher, chainSeed } from "../../assembly/prefix/chain";

let extractor: RequestExtractor | null = null;
const chain = new ChainHasher(4096);

/** Whether this module was compiled with SIMD. */
export function simd(): bool {
  return ASC_FEATURE_SIMD;
}

/** Starts over with an extractor whose stream holds at most streamCap bytes. */
export function init(streamCap: i32): void {
  extractor = new RequestExtractor(streamCap, 32);
}

/** Reserves size bytes of linear memory for the test's input. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}

/** Extracts from the body at ptr; returns the status and leaves the stream for the getters below. */
export function extract(ptr: usize, len: usize, maxSteps: i32): i32 {
  return extractor!.extract(ptr, len, maxSteps);
}

export function streamPtr(): usize {
  return extractor!.streamPtr;
}

export function streamLen(): i32 {
  return extractor!.streamLen;
}

/** Flags of the last extraction: 1 truncated, 2 prefix usable, 4 model truncated; kind in bits 8.., skip reason 16... */
export function extractFlags(): i32 {
  const e = extractor!;
  return (e.streamTruncated ? 1 : 0) | (e.prefixUsable ? 2 : 0) | (e.modelTruncated ? 4 : 0) | (e.kind << 8) | (e.prefixSkip << 16);
}

/** Hashes [ptr, ptr + len) as a chain seeded by the last extraction's model; returns the chain length. */
export function chainOf(ptr: usize, len: usize, chunkChars: i32): i32 {
  const e = extractor!;
  return chain.build(ptr, len, chunkChars, chainSeed(e.modelPtr, <usize>e.modelLen, 0, 0));
}

export function hashAt(i: i32): u64 {
  return chain.hashes[i];
}

export function endAt(i: i32): u32 {
  return chain.ends[i];
}
