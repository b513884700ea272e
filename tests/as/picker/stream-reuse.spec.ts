import { PickerStream } from "../../../assembly/picker/picker-stream";
import { WorkerPickers } from "../../../assembly/picker/worker-pickers";
import { ConfiguredPicker } from "../../../assembly/picker/configured-picker";
import { StreamPool } from "../../../assembly/picker/stream-pool";

class Pickers extends WorkerPickers {
  constructor() {
    super(1);
  }
  select(): ConfiguredPicker | null {
    return null;
  }
  expireRedisCalls(now: f64, currentContextId: u32): void {}
}

/** PickerStream's fields in layout order (its bases' first) with their sizes; the references root and picker are a
 *  stream's for life, every other field is per request. */
const FIELDS: Array<string> = [];
const OFFSETS: Array<usize> = [];
const SIZES: Array<usize> = [];
function field(name: string, offset: usize, size: usize): void {
  FIELDS.push(name);
  OFFSETS.push(offset);
  SIZES.push(size);
}
field("reachedFilter", offsetof<PickerStream>("reachedFilter"), 1);
field("id", offsetof<PickerStream>("id"), 4);
field("root", offsetof<PickerStream>("root"), sizeof<usize>());
field("leaseSlot", offsetof<PickerStream>("leaseSlot"), 4);
field("leaseGeneration", offsetof<PickerStream>("leaseGeneration"), 4);
field("leaseHeld", offsetof<PickerStream>("leaseHeld"), 1);
field("loadCounted", offsetof<PickerStream>("loadCounted"), 1);
field("awaitingFirstByte", offsetof<PickerStream>("awaitingFirstByte"), 1);
field("loadAddressHash", offsetof<PickerStream>("loadAddressHash"), 8);
field("leaseTakenMs", offsetof<PickerStream>("leaseTakenMs"), 8);
field("responseStatus", offsetof<PickerStream>("responseStatus"), 4);
field("responseEnded", offsetof<PickerStream>("responseEnded"), 1);
field("servedElsewhere", offsetof<PickerStream>("servedElsewhere"), 1);
field("hintKey", offsetof<PickerStream>("hintKey"), 8);
field("hintChunks", offsetof<PickerStream>("hintChunks"), 4);
field("hintTail", offsetof<PickerStream>("hintTail"), 8);
field("hintHeldUntilMs", offsetof<PickerStream>("hintHeldUntilMs"), 8);
field("fallback", offsetof<PickerStream>("fallback"), 4);
field("reading", offsetof<PickerStream>("reading"), 1);
field("debugText", offsetof<PickerStream>("debugText"), sizeof<usize>());
field("watchHandle", offsetof<PickerStream>("watchHandle"), 4);
field("announcedLength", offsetof<PickerStream>("announcedLength"), 8);
field("active", offsetof<PickerStream>("active"), sizeof<usize>());
field("redisWaiting", offsetof<PickerStream>("redisWaiting"), 1);
field("lengthAnnounced", offsetof<PickerStream>("lengthAnnounced"), 1);
field("lateHandle", offsetof<PickerStream>("lateHandle"), 4);
field("picker", offsetof<PickerStream>("picker"), sizeof<usize>());

describe("a reused stream", () => {
  it("FIELDS lists every field of PickerStream (a new field must be reset in reuseFor and listed here)", () => {
    // AssemblyScript lays fields out in declaration order, bases first, each aligned to its size: with every field
    // listed, each starts where the one before ends (aligned), and the last ends where the object does.
    let end: usize = 0;
    for (let i = 0; i < FIELDS.length; i++) {
      const size = SIZES[i];
      const aligned = (end + size - 1) & ~(size - 1);
      expect(OFFSETS[i]).toBe(aligned, FIELDS[i] + " is not where the field before it ends: a field between them is unlisted");
      end = aligned + size;
    }
    expect(end).toBe(offsetof<PickerStream>(), "a field after " + FIELDS[FIELDS.length - 1] + " is unlisted");
  });

  it("has every per-request field as a new stream of its id has it, whatever its last life left there", () => {
    const pickers = new Pickers();
    const size = offsetof<PickerStream>();
    for (let fill = 0; fill < 2; fill++) {
      const fresh = new PickerStream(42, pickers);
      const used = new PickerStream(7, pickers);
      const p = changetype<usize>(used);
      const f = changetype<usize>(fresh);
      // Every field but the two fixed references (its root, its picker) left as some other value.
      memory.fill(p, fill == 0 ? 0xa5 : 0xff, size);
      store<usize>(p + offsetof<PickerStream>("root"), changetype<usize>(pickers));
      store<usize>(p + offsetof<PickerStream>("picker"), changetype<usize>(pickers));
      used.reuseFor(42);
      let stale = "";
      for (let i = 0; i < FIELDS.length; i++) {
        if (memory.compare(p + OFFSETS[i], f + OFFSETS[i], SIZES[i]) != 0) stale += " " + FIELDS[i];
      }
      // Valid references again whatever the result, before anything allocates.
      memory.copy(p, f, size);
      expect(stale).toBe("", "fields reuseFor leaves as they were");
    }
  });
});

describe("StreamPool", () => {
  it("gives back what it kept, last first, and keeps no more than its capacity", () => {
    const pickers = new Pickers();
    const pool = new StreamPool<PickerStream>(2);
    expect(pool.take()).toBeNull();
    const a = new PickerStream(1, pickers);
    const b = new PickerStream(2, pickers);
    const c = new PickerStream(3, pickers);
    pool.put(a);
    pool.put(b);
    pool.put(c);
    expect(pool.size).toBe(2);
    expect(pool.take()).toBe(b);
    expect(pool.take()).toBe(a);
    expect(pool.take()).toBeNull();
  });
});
