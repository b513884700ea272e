import { DEPART_AFTER_FAILED_POLLS, departAfterMs, departed } from "../../assembly/platform/departed-endpoints";
import { RestartDetector } from "../../assembly/core/restart-detector";

describe("departed endpoints (stock build)", () => {
  it("waits for DEPART_AFTER_FAILED_POLLS polls past the last success, each after the previous ended, the last up to its timeout", () => {
    expect(DEPART_AFTER_FAILED_POLLS).toBe(2);
    expect(departAfterMs(1000, 800)).toBe(2800);
    expect(departAfterMs(200, 100)).toBe(500);
    // A timeout past the interval: the second poll starts at the first tick after the first timed out.
    expect(departAfterMs(200, 500)).toBe(200 + 600 + 500);
    expect(departAfterMs(200, 400)).toBe(200 + 600 + 400, "a timeout on a tick: the poll after it waits for the next");
  });

  it("takes an endpoint for gone only while its record says unhealthy, once its last success is old enough", () => {
    const after = departAfterMs(1000, 800);
    expect(departed(false, 10000, 10000 + after + 1, after)).toBe(true);
    expect(departed(false, 10000, 10000 + after, after)).toBe(false, "not before");
    expect(departed(false, 10000, 11500, after)).toBe(false, "one failed poll: unhealthy, not gone");
    expect(departed(true, 10000, 10000 + after * 10, after)).toBe(false, "a healthy record (stale or not) is not gone");
    expect(departed(false, 0, 1e9, after)).toBe(false, "never polled successfully: nothing to forget");
  });
});

describe("RestartDetector.emptiedBefore", () => {
  it("dates the slot's cache from then, as a restart does, until the slot is forgotten", () => {
    const d = new RestartDetector(4);
    expect(d.restartedAfter(2, 5000)).toBe(false);
    d.emptiedBefore(2, 6000);
    expect(d.restartedAfter(2, 5000)).toBe(true, "what was known at 5000 is gone");
    expect(d.restartedAfter(2, 6000)).toBe(false);
    expect(d.restartedAfter(1, 5000)).toBe(false, "other slots keep theirs");
    d.emptiedBefore(9, 6000); // out of range: ignored
    d.forget(2);
    expect(d.restartedAfter(2, 5000)).toBe(false);
  });
});
