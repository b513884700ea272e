import { LateBodyReads } from "../../../assembly/picker/late-body-reads";

const read: u32[] = [];

function record(contextId: u32): void {
  read.push(contextId);
}

describe("LateBodyReads", () => {
  beforeEach(() => {
    read.length = 0;
  });

  it("drains every queued stream once and is empty after", () => {
    const r = new LateBodyReads(4);
    r.add(3);
    r.add(9);
    expect(r.pending).toBe(2);
    expect(r.drain(record)).toBe(2);
    expect(read.length).toBe(2);
    expect(read.includes(3) && read.includes(9)).toBe(true);
    expect(r.pending).toBe(0);
    expect(r.drain(record)).toBe(0);
  });

  it("is bounded: a full table refuses, and a released slot is reused", () => {
    const r = new LateBodyReads(2);
    const a = r.add(1);
    expect(r.add(2)).toBeGreaterThanOrEqual(0);
    expect(r.add(3)).toBe(-1, "full");
    r.release(a, 1);
    expect(r.add(4)).toBe(a);
  });

  it("a release with another stream's id, or a stale handle, changes nothing", () => {
    const r = new LateBodyReads(2);
    const a = r.add(5);
    r.release(a, 6);
    r.release(-1, 5);
    r.release(7, 5);
    expect(r.pending).toBe(1);
    expect(r.drain(record)).toBe(1);
    expect(read[0]).toBe(5);
  });
});
