// One chunk of the chain (chain.ts) found and hashed in the same pass over its bytes: the lead bytes of each 32-byte
// stripe are counted as xxh64 reads it, so the bytes are not read once to find the boundary and again to hash.
import { xxh64Acc1Start, xxh64Acc2Start, xxh64Acc4Start, xxh64LongEnd, xxh64Round, xxh64Short } from "./xxh64";
import {
  LEAD_BLOCK_BYTES, TALLY_MAX_BLOCKS, leadBytesIn32, leadBytesInBlock, leadMaskIn32, tallyContinuations, tallyTotal,
} from "../text/utf8-lead-bytes";

// @ts-ignore: decorator
@inline function isLeadByte(b: u32): bool {
  return (b & 0xc0) != 0x80;
}

/** Index (0..31) of set bit n (0: the lowest) of m, which has more than n set bits. */
// @ts-ignore: decorator
@inline function nthSetBit(m: u32, n: u32): u32 {
  let at: u32 = 0;
  let c = popcnt<u32>(m & 0xffff);
  if (n >= c) {
    n -= c;
    m >>>= 16;
    at = 16;
  }
  c = popcnt<u32>(m & 0xff);
  if (n >= c) {
    n -= c;
    m >>>= 8;
    at += 8;
  }
  c = popcnt<u32>(m & 0xf);
  if (n >= c) {
    n -= c;
    m >>>= 4;
    at += 4;
  }
  c = popcnt<u32>(m & 0x3);
  if (n >= c) {
    n -= c;
    m >>>= 2;
    at += 2;
  }
  return n >= (m & 1) ? at + 1 : at;
}

export class ChunkHash {
  /** The hash of the chunk the last find() found. */
  hash: u64 = 0;

  /**
   * Finds the chunk that starts at `start` and holds `chars` code points (it ends just before the lead byte after them,
   * or at `end`), and hashes it with `seed`: xxh64 over its bytes, into `hash`. Returns the chunk's end, or 0 when the
   * input ends before the chunk holds `chars` code points (nothing hashed then).
   */
  find(start: usize, end: usize, chars: usize, seed: u64): usize {
    // Fewer bytes than code points wanted: the input's last, partial chunk, not hashed (nor read).
    if (end - start < chars) return 0;
    let need = chars; // lead bytes the chunk still takes before its boundary
    let p = start;
    let acc1 = xxh64Acc1Start(seed);
    let acc2 = xxh64Acc2Start(seed);
    let acc3 = seed;
    let acc4 = xxh64Acc4Start(seed);
    // A block holds at most 64 lead bytes, so the next need / 64 blocks lie wholly before the boundary whatever their
    // bytes (a chunk's first chars bytes at least): with SIMD their continuation bytes are tallied, with no test or
    // branch per block, as xxh64 reads them, and counted once after.
    if (ASC_FEATURE_SIMD) {
      while (need >= LEAD_BLOCK_BYTES && p + LEAD_BLOCK_BYTES <= end) {
        const blocks = min(min(need, end - p) / LEAD_BLOCK_BYTES, TALLY_MAX_BLOCKS);
        const runEnd = p + blocks * LEAD_BLOCK_BYTES;
        let tally = i8x16.splat(0);
        do {
          tally = tallyContinuations(tally, p);
          acc1 = xxh64Round(acc1, load<u64>(p));
          acc2 = xxh64Round(acc2, load<u64>(p, 8));
          acc3 = xxh64Round(acc3, load<u64>(p, 16));
          acc4 = xxh64Round(acc4, load<u64>(p, 24));
          acc1 = xxh64Round(acc1, load<u64>(p, 32));
          acc2 = xxh64Round(acc2, load<u64>(p, 40));
          acc3 = xxh64Round(acc3, load<u64>(p, 48));
          acc4 = xxh64Round(acc4, load<u64>(p, 56));
          p += 64;
        } while (p < runEnd);
        need -= blocks * LEAD_BLOCK_BYTES - tallyTotal(tally);
      }
    }
    // Stripes with at most `need` lead bytes in all lie wholly before the boundary: xxh64 reads them as whole stripes,
    // two at a time while they fit, then one.
    while (p + 64 <= end) {
      const leads = leadBytesInBlock(p);
      if (leads > need) break;
      need -= leads;
      acc1 = xxh64Round(acc1, load<u64>(p));
      acc2 = xxh64Round(acc2, load<u64>(p, 8));
      acc3 = xxh64Round(acc3, load<u64>(p, 16));
      acc4 = xxh64Round(acc4, load<u64>(p, 24));
      acc1 = xxh64Round(acc1, load<u64>(p, 32));
      acc2 = xxh64Round(acc2, load<u64>(p, 40));
      acc3 = xxh64Round(acc3, load<u64>(p, 48));
      acc4 = xxh64Round(acc4, load<u64>(p, 56));
      p += 64;
    }
    if (p + 32 <= end) {
      const leads = leadBytesIn32(p);
      if (leads <= need) {
        need -= leads;
        acc1 = xxh64Round(acc1, load<u64>(p));
        acc2 = xxh64Round(acc2, load<u64>(p, 8));
        acc3 = xxh64Round(acc3, load<u64>(p, 16));
        acc4 = xxh64Round(acc4, load<u64>(p, 24));
        p += 32;
      }
    }
    let boundary: usize;
    if (p + 32 <= end) {
      // The stripe at p holds the boundary: its lead byte number need (from 0).
      const leads = leadMaskIn32(p);
      boundary = p + (leads == 0xffff_ffff ? need : <usize>nthSetBit(leads, <u32>need));
    } else {
      boundary = p;
      while (boundary < end) {
        if (isLeadByte(<u32>load<u8>(boundary))) {
          if (need == 0) break;
          need--;
        }
        boundary++;
      }
      if (need != 0) return 0;
    }
    const len = boundary - start;
    this.hash = p > start ? xxh64LongEnd(acc1, acc2, acc3, acc4, len, p, boundary) : xxh64Short(start, len, seed);
    return boundary;
  }
}
