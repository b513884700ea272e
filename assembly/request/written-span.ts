// Where a record was written, as offsets in the writer that held it. Once the scan ends, head's leading sections go
// in front of main and its tools where main's conversation starts (emit-core.ts assemble), so a span written into
// main moves by both; one written into head's leading part is already at its stream offset.
export class WrittenSpan {
  /** Offsets [start, end) (stream offsets once place ran), or -1 when nothing is marked. */
  start: i32 = -1;
  end: i32 = -1;
  private inHead: bool = false;

  get marked(): bool {
    return this.end >= 0;
  }

  mark(start: i32, end: i32, inHead: bool): void {
    this.start = start;
    this.end = end;
    this.inHead = inHead;
  }

  clear(): void {
    this.start = -1;
    this.end = -1;
    this.inHead = false;
  }

  /**
   * Head's bytes up to headLead went in front of main (lead bytes of them kept) and `inserted` bytes of tools where
   * main's conversation records start, which is at or before any marked record of main. A record written into head
   * after headLead (a section that went along with the tools) is no longer known.
   */
  place(lead: i32, headLead: i32, inserted: i32): void {
    if (!this.marked) return;
    if (this.inHead) {
      if (this.start >= headLead) this.clear();
      return;
    }
    this.start += lead + inserted;
    this.end += lead + inserted;
  }
}
