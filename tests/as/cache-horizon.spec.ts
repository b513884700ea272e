import { EndpointMetrics } from "../../assembly/endpoints/endpoint-metrics";
import { CacheHorizon } from "../../assembly/core/cache-horizon";

const m = new EndpointMetrics();

// An engine with `blocks` blocks of 16 tokens whose counters read (queries, hits).
function page(blocks: i64, queries: f64, hits: f64): EndpointMetrics {
  m.reset();
  m.numGpuBlocks = blocks;
  m.blockSize = 16;
  m.hasCacheConfig = true;
  m.prefixQueries = queries;
  m.prefixHits = hits;
  m.hasPrefixCounters = true;
  return m;
}

describe("CacheHorizon", () => {
  it("is capacity over the rate computed tokens enter the cache, plus the time since the counters moved", () => {
    const h = new CacheHorizon(4);
    h.observe(1, page(1000, 5000, 1000), 10000);
    expect(h.horizonMs(1, 10000)).toBe(Infinity, "one reading dates no rate");
    // 16,000 tokens of capacity; 8,000 queried − 4,000 hit = 4,000 computed tokens in 1 s: 4 tokens per ms.
    h.observe(1, page(1000, 13000, 5000), 11000);
    expect(h.horizonMs(1, 11000)).toBeCloseTo(4000);
    expect(h.horizonMs(1, 11500)).toBeCloseTo(4500, 6, "nothing entered since the last change");
    expect(h.horizonMs(2, 11000)).toBe(Infinity, "another slot");
  });

  it("dates a rate only by readings that changed, and averages them", () => {
    const h = new CacheHorizon(2);
    h.observe(0, page(1000, 0, 0), 0);
    h.observe(0, page(1000, 0, 0), 500); // the same page read again
    h.observe(0, page(1000, 2000, 0), 1000); // 2 tokens per ms since t = 0, not since t = 500
    expect(h.horizonMs(0, 1000)).toBeCloseTo(8000);
    // A faster second interval moves the average toward it, not all the way.
    h.observe(0, page(1000, 10000, 0), 2000);
    const after = h.horizonMs(0, 2000);
    expect(after < 8000).toBe(true);
    expect(after > 2000).toBe(true);
  });

  it("starts over after a restart, without counters or cache size, and for a slot's next endpoint", () => {
    const h = new CacheHorizon(2);
    h.observe(0, page(1000, 0, 0), 0);
    h.observe(0, page(1000, 4000, 0), 1000);
    expect(h.horizonMs(0, 1000) < Infinity).toBe(true);
    h.observe(0, page(1000, 10, 0), 2000);
    expect(h.horizonMs(0, 2000)).toBe(Infinity, "counters went backwards");
    h.observe(0, page(1000, 4010, 0), 3000);
    expect(h.horizonMs(0, 3000)).toBeCloseTo(4000);
    const noConfig = page(1000, 9000, 0);
    noConfig.hasCacheConfig = false;
    h.observe(0, noConfig, 4000);
    expect(h.horizonMs(0, 4000)).toBe(Infinity, "cache size unknown");
    h.observe(1, page(1000, 0, 0), 0);
    h.observe(1, page(1000, 4000, 0), 1000);
    h.forget(1);
    expect(h.horizonMs(1, 1000)).toBe(Infinity, "forgotten");
    h.observe(9, page(1000, 0, 0), 0);
    expect(h.horizonMs(9, 0)).toBe(Infinity, "out of range");
  });

  it("counts a request's blocks toward eviction only once the request ends: retention adds the usual duration", () => {
    const h = new CacheHorizon(2);
    h.observe(0, page(1000, 0, 0), 0);
    h.observe(0, page(1000, 4000, 0), 1000); // 4 tokens per ms into 16,000: horizon 4 s
    expect(h.retentionMs(0, 1000)).toBeCloseTo(4000, 6, "no request ended yet");
    h.requestEnded(0, 3000);
    expect(h.retentionMs(0, 1000)).toBeCloseTo(7000);
    h.requestEnded(0, 1000); // a moving average: one shorter request moves it a tenth of the way
    expect(h.retentionMs(0, 1000)).toBeCloseTo(6800);
    h.requestEnded(0, NaN);
    h.requestEnded(0, -5);
    expect(h.retentionMs(0, 1000)).toBeCloseTo(6800, 6, "nonsense durations are ignored");
    h.requestEnded(1, 5000);
    expect(h.retentionMs(1, 1000)).toBe(Infinity, "no rate known: no bound");
    h.forget(0);
    h.observe(0, page(1000, 0, 0), 2000);
    h.observe(0, page(1000, 4000, 0), 3000);
    expect(h.retentionMs(0, 3000)).toBeCloseTo(4000, 6, "the slot's next endpoint starts without durations");
  });

  it("counts every engine's cache on a data-parallel server: the counters add up all of their inflow", () => {
    const h = new CacheHorizon(1);
    const two = (queries: f64): EndpointMetrics => {
      const p = page(1000, queries, 0);
      p.cacheEngines = 2;
      return p;
    };
    h.observe(0, two(0), 0);
    h.observe(0, two(4000), 1000); // 4 tokens per ms into two caches of 16,000
    expect(h.horizonMs(0, 1000)).toBeCloseTo(8000);
  });
});
