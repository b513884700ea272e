// Bytes received and not yet consumed, in one growable buffer: appending doubles the capacity when it runs out
// and consuming moves a start offset, so a reply that arrives in many chunks is copied a bounded number of times
// (Envoy's Buffer::OwnedImpl appends slices; concatenating every chunk onto the whole was quadratic in the reply).
export class ByteQueue {
  private buffer = new Uint8Array(0);
  private start = 0;
  private end = 0;
  /** Bytes copied into the buffer so far, compaction and growth included: at most a few times what was appended. */
  copiedBytes = 0;

  get length(): number {
    return this.end - this.start;
  }

  /** The pending bytes; valid until the next append or consume. */
  view(): Uint8Array {
    return this.buffer.subarray(this.start, this.end);
  }

  append(chunk: Uint8Array): void {
    if (this.end + chunk.length > this.buffer.length) this.makeRoom(chunk.length);
    this.buffer.set(chunk, this.end);
    this.end += chunk.length;
    this.copiedBytes += chunk.length;
  }

  consume(n: number): void {
    this.start = Math.min(this.start + n, this.end);
    if (this.start === this.end) this.start = this.end = 0;
  }

  private makeRoom(extra: number): void {
    const pending = this.length;
    // Compact in place only while the pending bytes and the chunk fill at most half the buffer, so the next
    // compaction is at least half a buffer of appends away: copies stay within twice the bytes appended.
    let capacity = Math.max(this.buffer.length, 1024);
    while (capacity < 2 * (pending + extra)) capacity *= 2;
    if (capacity === this.buffer.length) {
      this.buffer.copyWithin(0, this.start, this.end);
    } else {
      const grown = new Uint8Array(capacity);
      grown.set(this.buffer.subarray(this.start, this.end), 0);
      this.buffer = grown;
    }
    this.copiedBytes += pending;
    this.start = 0;
    this.end = pending;
  }
}
