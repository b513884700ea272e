// hashNameBytes of the last name asked for, kept with that name's bytes: the requests of one model hash its name
// once, and a later request compares the bytes a word at a time where hashing takes a multiply per byte.
import { hashNameBytes } from "./name-hash";

/** Longest name kept; a longer one is hashed every time. */
const KEPT_BYTES: i32 = 256;

export class KeptNameHash {
  private readonly bytes: StaticArray<u8> = new StaticArray<u8>(KEPT_BYTES);
  private len: usize = 0;
  private hash: u64 = 0;
  private kept: bool = false;

  /** hashNameBytes(ptr, len). */
  of(ptr: usize, len: usize): u64 {
    if (len > <usize>KEPT_BYTES) return hashNameBytes(ptr, len);
    const bytes = changetype<usize>(this.bytes);
    if (this.kept && len == this.len && sameBytes(ptr, bytes, len)) return this.hash;
    const hash = hashNameBytes(ptr, len);
    memory.copy(bytes, ptr, len);
    this.len = len;
    this.hash = hash;
    this.kept = true;
    return hash;
  }
}

// Whether the len bytes at a and b are equal, eight at a time, then the rest one at a time.
function sameBytes(a: usize, b: usize, len: usize): bool {
  let i: usize = 0;
  for (; i + 8 <= len; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false;
  for (; i < len; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
  return true;
}
