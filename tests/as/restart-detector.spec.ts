import { EndpointMetrics } from "../../assembly/endpoints/endpoint-metrics";
import { RestartDetector } from "../../assembly/core/restart-detector";

const m = new EndpointMetrics();

function counters(queries: f64, hits: f64): EndpointMetrics {
  m.prefixQueries = queries;
  m.prefixHits = hits;
  m.hasPrefixCounters = true;
  return m;
}

describe("RestartDetector", () => {
  it("reports a restart once a later reading confirms that a prefix cache counter went backwards", () => {
    const d = new RestartDetector(4);
    expect(d.restarted(1, counters(100, 40), 1000)).toBe(false, "first sight");
    expect(d.restarted(1, counters(100, 40), 2000)).toBe(false, "unchanged");
    expect(d.restarted(1, counters(900, 700), 3000)).toBe(false, "growing");
    expect(d.restarted(1, counters(30, 0), 4000)).toBe(false, "one low reading is not believed alone");
    expect(d.restarted(1, counters(30, 0), 4000)).toBe(false, "the same page read again is still one reading");
    expect(d.restarted(1, counters(60, 10), 5000)).toBe(true, "a later low reading: a new process counts from zero");
    expect(d.restarted(1, counters(90, 20), 6000)).toBe(false, "counting up from there");
    expect(d.restarted(1, counters(95, 19), 7000)).toBe(false);
    expect(d.restarted(1, counters(99, 18), 8000)).toBe(true, "hits alone going back");
  });

  it("does not believe a page that read low once (a series missing, or cut short)", () => {
    const d = new RestartDetector(4);
    d.restarted(2, counters(900, 700), 1000);
    expect(d.restarted(2, counters(400, 300), 2000)).toBe(false, "one engine's series missing");
    expect(d.restarted(2, counters(950, 720), 3000)).toBe(false, "back above: it was the page");
    expect(d.restartedAfter(2, 0)).toBe(false, "no restart dated");
    expect(d.restarted(2, counters(500, 100), 4000)).toBe(false, "low again, once");
    expect(d.restarted(2, counters(960, 730), 5000)).toBe(false);
    expect(d.restarted(2, counters(970, 740), 6000)).toBe(false, "the low reading was forgotten, not confirmed later");
  });

  it("keeps slots apart, ignores pages without counters, and starts over for a slot's next endpoint", () => {
    const d = new RestartDetector(4);
    d.restarted(0, counters(500, 100), 1000);
    expect(d.restarted(2, counters(5, 1), 1000)).toBe(false);
    m.hasPrefixCounters = false;
    expect(d.restarted(0, m, 1000)).toBe(false);
    expect(d.restarted(0, counters(5, 1), 2000)).toBe(false, "low once");
    d.forget(0);
    expect(d.restarted(0, counters(5, 1), 3000)).toBe(false, "another endpoint in the slot");
    expect(d.restarted(0, counters(4, 1), 4000)).toBe(false, "its first low reading: the one before forget does not confirm it");
    expect(d.restarted(9, counters(1, 1), 1000)).toBe(false, "out of range");
  });

  it("remembers when a slot's engine restarted, so older knowledge of its cache can be ignored", () => {
    const d = new RestartDetector(4);
    d.restarted(3, counters(800, 300), 1000);
    expect(d.restartedAfter(3, 500)).toBe(false, "no restart yet");
    d.restarted(3, counters(10, 2), 2000);
    expect(d.restartedAfter(3, 1500)).toBe(false, "not confirmed yet");
    d.restarted(3, counters(20, 4), 3000);
    expect(d.restartedAfter(3, 1500)).toBe(true, "published before the restart");
    expect(d.restartedAfter(3, 2500)).toBe(false, "published after it: dated from the first low reading");
    expect(d.restartedAfter(1, 1500)).toBe(false, "another slot");
    d.forget(3);
    expect(d.restartedAfter(3, 1500)).toBe(false, "a slot's next endpoint starts clean");
    expect(d.restartedAfter(9, 0)).toBe(false, "out of range");
  });
});
