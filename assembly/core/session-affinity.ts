// Which endpoint last served a session (the value of session.header). A fixed, direct-mapped table: a
// collision forgets the older session, which only costs that session its affinity bonus.
const SIZE: i32 = 4096;

export class SessionAffinity {
  private readonly keys: StaticArray<u64> = new StaticArray<u64>(SIZE);
  private readonly slots: StaticArray<i32> = new StaticArray<i32>(SIZE);
  private readonly generations: StaticArray<u32> = new StaticArray<u32>(SIZE);

  remember(sessionHash: u64, slot: i32, generation: u32): void {
    if (sessionHash == 0) return;
    const i = <i32>(sessionHash & <u64>(SIZE - 1));
    unchecked((this.keys[i] = sessionHash));
    unchecked((this.slots[i] = slot));
    unchecked((this.generations[i] = generation));
  }

  /** The slot that last served the session, if its endpoint is still the same; -1 otherwise. */
  slotFor(sessionHash: u64): i32 {
    if (sessionHash == 0) return -1;
    const i = <i32>(sessionHash & <u64>(SIZE - 1));
    return unchecked(this.keys[i]) == sessionHash ? unchecked(this.slots[i]) : -1;
  }

  generationFor(sessionHash: u64): u32 {
    const i = <i32>(sessionHash & <u64>(SIZE - 1));
    return unchecked(this.generations[i]);
  }
}
