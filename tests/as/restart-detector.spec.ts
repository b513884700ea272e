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
    expect(d.restarted(1, counters(100, 40))).toBe(false, "first sight");
    expect(d.restarted(1, counters(100, 40))).toBe(false, "unchanged");
    expect(d.restarted(1, counters(900, 700))).toBe(false, "growing");
    expect(d.restarted(1, counters(30, 0))).toBe(true, "a new process counts from zero");
    expect(d.restarted(1, counters(60, 10))).toBe(false);
    expect(d.restarted(1, counters(70, 9))).toBe(true, "hits alone going back");
  });

  it("keeps slots apart, ignores pages without counters, and starts over for a slot's next endpoint", () => {
    const d = new RestartDetector(4);
    d.restarted(0, counters(500, 100));
    expect(d.restarted(2, counters(5, 1))).toBe(false);
    m.hasPrefixCounters = false;
    expect(d.restarted(0, m)).toBe(false);
    d.forget(0);
    expect(d.restarted(0, counters(5, 1))).toBe(false, "another endpoint in the slot");
    expect(d.restarted(9, counters(1, 1))).toBe(false, "out of range");
  });
});
