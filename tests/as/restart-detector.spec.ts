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
  it("reports a restart when a prefix cache counter goes backwards, once", () => {
    const d = new RestartDetector(4);
    expect(d.restarted(1, counters(100, 40), 1000)).toBe(false, "first sight");
    expect(d.restarted(1, counters(100, 40), 1000)).toBe(false, "unchanged");
    expect(d.restarted(1, counters(900, 700), 1000)).toBe(false, "growing");
    expect(d.restarted(1, counters(30, 0), 1000)).toBe(true, "a new process counts from zero");
    expect(d.restarted(1, counters(60, 10), 1000)).toBe(false);
    expect(d.restarted(1, counters(70, 9), 1000)).toBe(true, "hits alone going back");
  });

  it("keeps slots apart, ignores pages without counters, and starts over for a slot's next endpoint", () => {
    const d = new RestartDetector(4);
    d.restarted(0, counters(500, 100), 1000);
    expect(d.restarted(2, counters(5, 1), 1000)).toBe(false);
    m.hasPrefixCounters = false;
    expect(d.restarted(0, m, 1000)).toBe(false);
    d.forget(0);
    expect(d.restarted(0, counters(5, 1), 1000)).toBe(false, "another endpoint in the slot");
    expect(d.restarted(9, counters(1, 1), 1000)).toBe(false, "out of range");
  });

  it("remembers when a slot's engine restarted, so older knowledge of its cache can be ignored", () => {
    const d = new RestartDetector(4);
    d.restarted(3, counters(800, 300), 1000);
    expect(d.restartedAfter(3, 500)).toBe(false, "no restart yet");
    d.restarted(3, counters(10, 2), 2000);
    expect(d.restartedAfter(3, 1500)).toBe(true, "published before the restart");
    expect(d.restartedAfter(3, 2500)).toBe(false, "published after it");
    expect(d.restartedAfter(1, 1500)).toBe(false, "another slot");
    d.forget(3);
    expect(d.restartedAfter(3, 1500)).toBe(false, "a slot's next endpoint starts clean");
    expect(d.restartedAfter(9, 0)).toBe(false, "out of range");
  });
});
