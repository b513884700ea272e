import { BodyWatchdog } from "../../../assembly/picker/body-watchdog";

const resumed: u32[] = [];

function record(contextId: u32): void {
  resumed.push(contextId);
}

describe("BodyWatchdog", () => {
  beforeEach(() => {
    resumed.length = 0;
  });

  it("resumes a stream only once its wait has passed, and then stops watching it", () => {
    const w = new BodyWatchdog(4);
    expect(w.watch(7, 1000)).toBeGreaterThanOrEqual(0);
    expect(w.expire(1999, 1000, record)).toBe(0, "999 ms is not yet the wait");
    expect(resumed.length).toBe(0);
    expect(w.expire(2000, 1000, record)).toBe(1);
    expect(resumed.length).toBe(1);
    expect(resumed[0]).toBe(7);
    expect(w.expire(5000, 1000, record)).toBe(0, "already resumed");
  });

  it("a released stream is never resumed", () => {
    const w = new BodyWatchdog(4);
    const a = w.watch(11, 0);
    const b = w.watch(12, 0);
    w.release(a, 11);
    expect(w.expire(10_000, 1000, record)).toBe(1);
    expect(resumed[0]).toBe(12);
    w.release(b, 12); // after the resume: a no-op
  });

  it("expires only the streams that waited long enough, each once", () => {
    const w = new BodyWatchdog(8);
    w.watch(1, 0);
    w.watch(2, 500);
    w.watch(3, 900);
    expect(w.expire(1500, 1000, record)).toBe(2);
    expect(resumed.includes(1)).toBe(true);
    expect(resumed.includes(2)).toBe(true);
    expect(resumed.includes(3)).toBe(false);
    expect(w.expire(1900, 1000, record)).toBe(1);
    expect(resumed[2]).toBe(3);
  });

  it("when full, a stream is not watched, and a released handle is reused", () => {
    const w = new BodyWatchdog(2);
    const a = w.watch(1, 0);
    const b = w.watch(2, 0);
    expect(a).not.toBe(b);
    expect(w.watch(3, 0)).toBe(-1, "full");
    w.release(a, 1);
    expect(w.watch(4, 0)).toBe(a);
    expect(w.expire(5000, 1000, record)).toBe(2);
    expect(resumed.includes(3)).toBe(false, "the stream that found it full was never watched");
  });

  it("a release with a stale or foreign handle changes nothing", () => {
    const w = new BodyWatchdog(2);
    const a = w.watch(5, 0);
    w.release(a, 6); // another stream's id
    w.release(-1, 5);
    w.release(2, 5); // out of range
    expect(w.expire(5000, 1000, record)).toBe(1);
    expect(resumed[0]).toBe(5);
    // Not freed twice: two fresh watches get two distinct handles.
    const x = w.watch(8, 0);
    const y = w.watch(9, 0);
    expect(x).not.toBe(y);
    expect(w.watch(10, 0)).toBe(-1);
  });

  it("a stream watched since after now (the wall clock stepped back) is resumed at once", () => {
    const w = new BodyWatchdog(2);
    w.watch(21, 10_000);
    expect(w.expire(9_000, 1000, record)).toBe(1);
    expect(resumed[0]).toBe(21);
  });
});
