// Where a record was written, as offsets in the writer that held it. Sections written into head go in front of
// main once the scan ends, so a span written into main then moves by head's length; one written into head is
// already at its stream offset.
export class WrittenSpan {
  /** Offsets [start, end) (stream offsets once moveBehind ran), or -1 when nothing is marked. */
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

  /** head (headLen bytes) was put in front of main. */
  moveBehind(headLen: i32): void {
    if (!this.marked || this.inHead) return;
    this.start += headLen;
    this.end += headLen;
  }
}
