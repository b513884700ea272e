// This worker's own requests outstanding per endpoint (address hash): how many are in flight and how many of those
// still await their first byte. The shared load (shared-load.ts) is rebuilt from every live worker's own counts once
// per epoch, so that a worker that died with requests outstanding stops counting. Open addressing over a table twice
// the number of endpoints tracked; entries that fall to zero stay until the table is half full, then go together.
import { hashBucket } from "./hash-index";

/** Endpoints whose counts one worker tracks at once; a change to one more is dropped (its load reads low). */
const CAPACITY: i32 = 1024;
const TABLE_BITS: u64 = 11;
const TABLE: i32 = 1 << <i32>TABLE_BITS; // CAPACITY * 2

export class OwnLoad {
  /** Per bucket: the address hash (0: empty), and its counts. */
  private readonly hashes: StaticArray<u64> = new StaticArray<u64>(TABLE);
  private readonly inflightAt: StaticArray<i32> = new StaticArray<i32>(TABLE);
  private readonly pendingAt: StaticArray<i32> = new StaticArray<i32>(TABLE);
  // Scratch of dropZeros: the live entries while the table is rebuilt (at most CAPACITY: the table is full at that).
  private readonly keptHash: StaticArray<u64> = new StaticArray<u64>(CAPACITY);
  private readonly keptInflight: StaticArray<i32> = new StaticArray<i32>(CAPACITY);
  private readonly keptPending: StaticArray<i32> = new StaticArray<i32>(CAPACITY);
  /** Buckets in use, zero counts included. */
  private used: i32 = 0;
  /** Endpoints with requests in flight. */
  live: i32 = 0;

  /** Adds the deltas to the endpoint's counts; neither goes below 0, and no more await a first byte than are in flight. */
  change(hash: u64, inflightDelta: i32, pendingDelta: i32): void {
    if (hash == 0) return;
    let b = this.find(hash);
    if (unchecked(this.hashes[b]) == 0) {
      if (inflightDelta <= 0) return; // nothing outstanding to take back
      if (this.used >= CAPACITY) {
        this.dropZeros();
        if (this.used >= CAPACITY) return;
        b = this.find(hash);
      }
      unchecked((this.hashes[b] = hash));
      this.used++;
    }
    const before = unchecked(this.inflightAt[b]);
    const inflight = max<i32>(before + inflightDelta, 0);
    unchecked((this.inflightAt[b] = inflight));
    unchecked((this.pendingAt[b] = min<i32>(max<i32>(unchecked(this.pendingAt[b]) + pendingDelta, 0), inflight)));
    if (before == 0 && inflight > 0) this.live++;
    else if (before > 0 && inflight == 0) this.live--;
  }

  /** Buckets to visit with hashAt / inflightAtBucket / pendingAtBucket (an empty or zero one reads 0 in flight). */
  get buckets(): i32 {
    return TABLE;
  }

  hashAt(b: i32): u64 {
    return unchecked(this.hashes[b]);
  }

  inflightAtBucket(b: i32): i32 {
    return unchecked(this.inflightAt[b]);
  }

  pendingAtBucket(b: i32): i32 {
    return unchecked(this.pendingAt[b]);
  }

  // The hash's bucket, or the empty bucket where it would go.
  private find(hash: u64): i32 {
    let b = hashBucket(hash, TABLE_BITS);
    while (true) {
      const h = unchecked(this.hashes[b]);
      if (h == 0 || h == hash) return b;
      b = (b + 1) & (TABLE - 1);
    }
    return -1; // unreachable: the table is never more than half full
  }

  // Rebuilds the table without the endpoints nothing is outstanding at.
  private dropZeros(): void {
    const hashes = this.hashes;
    const inflightAt = this.inflightAt;
    const pendingAt = this.pendingAt;
    let kept = 0;
    for (let b = 0; b < TABLE; b++) {
      const h = unchecked(hashes[b]);
      if (h == 0 || unchecked(inflightAt[b]) == 0) continue;
      unchecked((this.keptHash[kept] = h));
      unchecked((this.keptInflight[kept] = unchecked(inflightAt[b])));
      unchecked((this.keptPending[kept] = unchecked(pendingAt[b])));
      kept++;
    }
    memory.fill(changetype<usize>(hashes), 0, <usize>TABLE << 3);
    memory.fill(changetype<usize>(inflightAt), 0, <usize>TABLE << 2);
    memory.fill(changetype<usize>(pendingAt), 0, <usize>TABLE << 2);
    for (let k = 0; k < kept; k++) {
      const b = this.find(unchecked(this.keptHash[k]));
      unchecked((hashes[b] = unchecked(this.keptHash[k])));
      unchecked((inflightAt[b] = unchecked(this.keptInflight[k])));
      unchecked((pendingAt[b] = unchecked(this.keptPending[k])));
    }
    this.used = kept;
  }
}
