import { StreamTable } from "../../../assembly/abi/stream-table";

class Stream {
  constructor(readonly id: u32) {}
}

// xorshift32: the same sequence on every run.
let seed: u32 = 0x2545f491;
function random(): u32 {
  seed ^= seed << 13;
  seed ^= seed >> 17;
  seed ^= seed << 5;
  return seed;
}

/** Every id the reference holds is found with its stream, and `absent` ids are not. */
function agrees(table: StreamTable<Stream>, reference: Map<u32, Stream>, absent: Array<u32>): bool {
  const keys = reference.keys();
  for (let i = 0; i < keys.length; i++) {
    const found = table.get(keys[i]);
    if (found === null || found !== reference.get(keys[i])) return false;
  }
  for (let i = 0; i < absent.length; i++) if (!reference.has(absent[i]) && table.get(absent[i]) !== null) return false;
  return table.size == reference.size;
}

describe("StreamTable", () => {
  it("finds what was set, forgets what was taken, and takes an id once", () => {
    const t = new StreamTable<Stream>();
    const a = new Stream(5);
    const b = new Stream(0);
    t.set(5, a);
    t.set(0, b);
    expect(t.get(5)).toBe(a);
    expect(t.get(0)).toBe(b, "id 0 is an id like any other");
    expect(t.get(6)).toBeNull();
    expect(t.take(5)).toBe(a);
    expect(t.take(5)).toBeNull("already taken");
    expect(t.get(5)).toBeNull();
    expect(t.get(0)).toBe(b);
    expect(t.size).toBe(1);
  });

  it("setting an id again replaces its stream", () => {
    const t = new StreamTable<Stream>();
    t.set(9, new Stream(9));
    const again = new Stream(9);
    t.set(9, again);
    expect(t.get(9)).toBe(again);
    expect(t.size).toBe(1);
  });

  it("the stream set or found last is not found once taken, and a replaced one is not returned", () => {
    const t = new StreamTable<Stream>();
    const a = new Stream(7);
    const b = new Stream(8);
    t.set(7, a);
    t.set(8, b);
    expect(t.get(7)).toBe(a);
    expect(t.take(7)).toBe(a);
    expect(t.get(7)).toBeNull("taken right after it was found");
    expect(t.get(8)).toBe(b);
    const c = new Stream(8);
    t.set(8, c);
    expect(t.get(8)).toBe(c);
    expect(t.take(8)).toBe(c);
    expect(t.get(8)).toBeNull("taken right after it was set");
    expect(t.size).toBe(0);
  });

  it("ids sharing a home slot: taking any one leaves the others findable (the run is closed up)", () => {
    // With 2^8 slots the home is the top 8 bits of id * 0x9e3779b9: collect ids with the same home.
    const t = new StreamTable<Stream>(8);
    const home = (id: u32): u32 => (id * 0x9e3779b9) >> 24;
    const same = new Array<u32>();
    for (let id: u32 = 1; same.length < 6; id++) if (home(id) == home(1)) same.push(id);
    for (let drop = 0; drop < same.length; drop++) {
      const reference = new Map<u32, Stream>();
      for (let i = 0; i < same.length; i++) {
        const s = new Stream(same[i]);
        t.set(same[i], s);
        reference.set(same[i], s);
      }
      expect(t.take(same[drop])).toBe(reference.get(same[drop]));
      reference.delete(same[drop]);
      expect(agrees(t, reference, same)).toBe(true, "after taking the " + drop.toString() + "th of the run");
      for (let i = 0; i < same.length; i++) t.take(same[i]);
      expect(t.size).toBe(0);
    }
  });

  it("random sets and takes of consecutive and scattered ids, growing past its first size, agree with a Map", () => {
    const t = new StreamTable<Stream>(8);
    const reference = new Map<u32, Stream>();
    const seen = new Array<u32>();
    let next: u32 = 1;
    for (let step = 0; step < 20000; step++) {
      const r = random();
      // Live streams rise to about 900 (the table grows to 2^11) and fall back.
      const wantMore = step < 10000 ? (r & 3) != 0 : (r & 3) == 0;
      if (wantMore || reference.size == 0) {
        const id = (r & 16) != 0 ? next++ : random();
        const s = new Stream(id);
        t.set(id, s);
        reference.set(id, s);
        seen.push(id);
      } else {
        const id = seen[<i32>(random() % <u32>seen.length)];
        const expected: Stream | null = reference.has(id) ? reference.get(id) : null;
        expect(t.take(id)).toBe(expected);
        expect(t.get(id)).toBeNull("found after it was taken");
        if (reference.has(id)) reference.delete(id);
      }
      if (step % 997 == 0) expect(agrees(t, reference, seen)).toBe(true, "at step " + step.toString());
    }
    expect(agrees(t, reference, seen)).toBe(true);
    expect(t.capacity).toBeGreaterThanOrEqual(t.size * 2);
  });
});
