// Memory shared with the host. The host returns buffers by calling our exported `malloc` and writing the
// pointer and length into out-params (spec: "Memory management"); the plugin owns and frees them.

// Out-param slots, reused by every host call and read back before it returns (calls never nest): process-wide
// scratch by design, never a result that outlives the call.
export const OUT_PTR: usize = memory.data(8);
export const OUT_LEN: usize = memory.data(8);
export const OUT_EXTRA: usize = memory.data(8);

// The last block a host buffer was allocated in, once the plugin let it go, kept for the host's next allocation that
// fits (up to KEPT_MAX bytes): a request's header map and body come back in sizes that repeat, so most host
// allocations take it instead of a TLSF free and search. Only a block whose capacity hostMalloc itself knows is kept
// (the one it lent last), never one sized by a length the host wrote. Process-wide, as the heap is.
const KEPT_MAX: usize = 64 * 1024;
let keptPtr: usize = 0;
let keptCapacity: usize = 0;
// The block hostMalloc returned last and the bytes it holds (0: none).
let lentPtr: usize = 0;
let lentCapacity: usize = 0;

/** Allocation entry point for the host (exported as `malloc`). Returns 0 on a request we refuse. */
export function hostMalloc(size: usize): usize {
  if (size == 0 || size > <usize>0x7fff0000) return 0;
  const kept = keptPtr;
  if (kept != 0 && size <= keptCapacity) {
    keptPtr = 0;
    lentPtr = kept;
    lentCapacity = keptCapacity;
    return kept;
  }
  const ptr = heap.alloc(size);
  lentPtr = ptr;
  lentCapacity = size;
  return ptr;
}

/** Gives back a buffer the host returned (allocated through hostMalloc): kept for the next one when it fits. */
export function releaseHostBuffer(ptr: usize): void {
  if (ptr != lentPtr) {
    heap.free(ptr);
    return;
  }
  lentPtr = 0;
  const capacity = lentCapacity;
  if (capacity > KEPT_MAX || (keptPtr != 0 && keptCapacity >= capacity)) {
    heap.free(ptr);
    return;
  }
  if (keptPtr != 0) heap.free(keptPtr);
  keptPtr = ptr;
  keptCapacity = capacity;
}

/** A buffer the host returned through OUT_PTR / OUT_LEN; valid until `release()`. */
export class Returned {
  ptr: usize = 0;
  len: usize = 0;

  /** Takes ownership of the buffer that the last host call wrote into the out-params. */
  take(): Returned {
    this.ptr = load<u32>(OUT_PTR);
    this.len = load<u32>(OUT_LEN);
    if (this.ptr == 0) this.len = 0;
    return this;
  }

  release(): void {
    if (this.ptr != 0) releaseHostBuffer(this.ptr);
    this.ptr = 0;
    this.len = 0;
  }

  toString(): string {
    return this.len == 0 ? "" : String.UTF8.decodeUnsafe(this.ptr, this.len);
  }
}

/** Frees a buffer the last host call returned that the caller does not read. */
export function freeOutBuffer(): void {
  const ptr = <usize>load<u32>(OUT_PTR);
  if (ptr != 0) releaseHostBuffer(ptr);
}

export function clearOutParams(): void {
  store<u64>(OUT_PTR, 0);
  store<u64>(OUT_LEN, 0);
  store<u64>(OUT_EXTRA, 0);
}
