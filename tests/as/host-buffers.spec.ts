import { hostMalloc, releaseHostBuffer } from "../../assembly/abi/memory";

describe("hostMalloc / releaseHostBuffer", () => {
  it("give the block a host buffer was let go in to the next host allocation that fits, up to its first size", () => {
    const p = hostMalloc(1000);
    releaseHostBuffer(p);
    const q = hostMalloc(10);
    expect(q).toBe(p, "a smaller buffer takes the kept block");
    releaseHostBuffer(q);
    expect(hostMalloc(1000)).toBe(p, "the block's capacity is what it was allocated with, not the last buffer's size");
    const other = hostMalloc(8);
    expect(other).not.toBe(p, "a block lent out is not lent twice");
    releaseHostBuffer(other);
    releaseHostBuffer(p);
  });

  it("never lend a block to two live buffers, nor one smaller than asked, whatever the sizes and order", () => {
    // Live buffers with their size and fill byte; each is filled whole when made and checked whole when let go.
    const ptrs = new StaticArray<usize>(4);
    const sizes = new StaticArray<usize>(4);
    let seed: u32 = 12345;
    let damaged = 0;
    for (let step = 0; step < 20000; step++) {
      seed = seed * 1103515245 + 12345;
      const slot = <i32>((seed >> 16) & 3);
      const ptr = ptrs[slot];
      if (ptr != 0) {
        for (let i: usize = 0; i < sizes[slot]; i++) if (load<u8>(ptr + i) != <u8>(slot + 1)) damaged++;
        releaseHostBuffer(ptr);
        ptrs[slot] = 0;
        continue;
      }
      seed = seed * 1103515245 + 12345;
      // Mostly header-sized buffers, some bodies, a few past what is kept.
      const pick = (seed >> 8) & 15;
      const size: usize = pick < 10 ? 1 + ((seed >> 12) & 511) : pick < 15 ? 1 + ((seed >> 12) & 16383) : 65536 + ((seed >> 12) & 4095);
      const p = hostMalloc(size);
      memory.fill(p, <u8>(slot + 1), size);
      ptrs[slot] = p;
      sizes[slot] = size;
    }
    for (let s = 0; s < 4; s++) if (ptrs[s] != 0) releaseHostBuffer(ptrs[s]);
    expect(damaged).toBe(0);
  });
});
