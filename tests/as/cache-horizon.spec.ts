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
  it("reaches back to when the counters stood a capacity below their latest reading", () => {
    const h = new CacheHorizon(4);
    h.observe(1, page(1000, 5000, 1000), 10000);
    expect(h.horizonMs(1, 10000)).toBe(Infinity, "one reading dates no rate");
    // 16,000 tokens of capacity; 8,000 queried − 4,000 hit = 4,000 computed tokens in 1 s: 4 tokens per ms.
    h.observe(1, page(1000, 13000, 5000), 11000);
    expect(h.horizonMs(1, 11000)).toBeCloseTo(4000);
    expect(h.horizonMs(1, 11500)).toBeCloseTo(4500, 6, "nothing entered since the last change");
    expect(h.horizonMs(2, 11000)).toBe(Infinity, "another slot");
  });

  it("spreads a change over the time since the counters last read the same, and follows the readings", () => {
    const h = new CacheHorizon(2);
    h.observe(0, page(1000, 0, 0), 0);
    h.observe(0, page(1000, 0, 0), 500); // the same counters, half a second later
    h.observe(0, page(1000, 0, 0), 500); // the same reading again
    h.observe(0, page(1000, 2000, 0), 1000);
    // Beyond the first reading the history's average rate (2 tokens per ms) reaches back: 14,000 more tokens.
    expect(h.horizonMs(0, 1000)).toBeCloseTo(8000);
    // 8,000 more in a second: 16,000 tokens back from 10,000 is 6,000 before the first reading, at 5 per ms.
    h.observe(0, page(1000, 10000, 0), 2000);
    expect(h.horizonMs(0, 2000)).toBeCloseTo(3200);
    // Within the history: 16,000 back from 20,000 is 4,000, half way through the second after t = 500.
    h.observe(0, page(1000, 20000, 0), 3000);
    expect(h.horizonMs(0, 3000)).toBeCloseTo(1750);
  });

  it("counts an idle spell as idle: after it, the busy seconds alone turn the cache over", () => {
    const h = new CacheHorizon(1);
    let t: f64 = 0;
    let queries: f64 = 0;
    // Ten seconds at 4,000 computed tokens a second into 16,000 tokens of cache: a four-second horizon.
    for (let s = 0; s <= 10; s++) h.observe(0, page(1000, (queries = 4000 * <f64>s), 0), (t = 1000 * <f64>s));
    expect(h.horizonMs(0, t)).toBeCloseTo(4000);
    // A minute without requests: nothing enters, and what was cached stays.
    for (let s = 1; s <= 60; s++) h.observe(0, page(1000, queries, 0), (t = 10000 + 1000 * <f64>s));
    expect(h.horizonMs(0, t)).toBeCloseTo(64000);
    // One busy second: 4,000 tokens, so the cutoff is 12,000 tokens before the idle minute, 3 s before it began.
    h.observe(0, page(1000, (queries += 4000), 0), (t += 1000));
    expect(h.horizonMs(0, t)).toBeCloseTo(64000);
    // Four busy seconds have replaced the whole cache: nothing from before the idle minute is left.
    for (let s = 0; s < 3; s++) h.observe(0, page(1000, (queries += 4000), 0), (t += 1000));
    expect(h.horizonMs(0, t)).toBeCloseTo(4000);
  });

  it("keeps a bounded history that still reaches a capacity back", () => {
    const h = new CacheHorizon(1);
    // A thousand readings of 100 tokens each (well under a step of 2,000): the history keeps a point per step.
    for (let s = 0; s <= 1000; s++) h.observe(0, page(1000, 100 * <f64>s, 0), 10 * <f64>s);
    // 16,000 tokens at 10 per ms: 1.6 s, within a step's 200 ms.
    const horizon = h.horizonMs(0, 10000);
    expect(horizon >= 1400 && horizon <= 1800).toBe(true);
  });

  it("starts over after a restart, without counters or cache size, and for a slot's next endpoint", () => {
    const h = new CacheHorizon(2);
    h.observe(0, page(1000, 0, 0), 0);
    h.observe(0, page(1000, 4000, 0), 1000);
    expect(h.horizonMs(0, 1000) < Infinity).toBe(true);
    h.observe(0, page(1000, 10, 0), 2000);
    expect(h.horizonMs(0, 2000)).toBeCloseTo(5000, 6, "one low reading (a page missing a series) is not believed");
    h.observe(0, page(1000, 10, 0), 2000); // a stock Envoy worker reads the same shared record again
    expect(h.horizonMs(0, 2000)).toBeCloseTo(5000, 6, "the same low reading read twice is still one reading");
    h.observe(0, page(1000, 8000, 0), 2500);
    expect(h.horizonMs(0, 2500)).toBeCloseTo(5000, 6, "the history went on: 8,000 tokens in 2.5 s, 16,000 back");
    h.observe(0, page(1000, 10, 0), 3000);
    h.observe(0, page(1000, 20, 0), 3500);
    expect(h.horizonMs(0, 3500)).toBe(Infinity, "counters went backwards twice: a restarted engine");
    h.observe(0, page(1000, 4020, 0), 4500);
    expect(h.horizonMs(0, 4500)).toBeCloseTo(4000);
    h.observe(0, page(1000, 9000, 0), 4500);
    expect(h.horizonMs(0, 3000)).toBe(Infinity, "other counters read at the same time: another engine");
    const noConfig = page(1000, 9000, 0);
    noConfig.hasCacheConfig = false;
    h.observe(0, noConfig, 5000);
    expect(h.horizonMs(0, 5000)).toBe(Infinity, "cache size unknown");
    h.observe(1, page(1000, 0, 0), 0);
    h.observe(1, page(1000, 4000, 0), 1000);
    h.forget(1);
    expect(h.horizonMs(1, 1000)).toBe(Infinity, "forgotten");
    h.observe(9, page(1000, 0, 0), 0);
    expect(h.horizonMs(9, 0)).toBe(Infinity, "out of range");
  });

  it("knows how long the slot's requests usually run, which publishers add to when a request holds its blocks", () => {
    const h = new CacheHorizon(2);
    expect(h.expectedDurationMs(0)).toBe(0, "no request ended yet");
    h.requestEnded(0, 3000);
    expect(h.expectedDurationMs(0)).toBeCloseTo(3000);
    h.requestEnded(0, 1000); // a moving average: one shorter request moves it a tenth of the way
    expect(h.expectedDurationMs(0)).toBeCloseTo(2800);
    h.requestEnded(0, NaN);
    h.requestEnded(0, -5);
    expect(h.expectedDurationMs(0)).toBeCloseTo(2800, 6, "nonsense durations are ignored");
    expect(h.expectedDurationMs(1)).toBe(0, "another slot");
    expect(h.expectedDurationMs(7)).toBe(0, "out of range");
    h.forget(0);
    expect(h.expectedDurationMs(0)).toBe(0, "the slot's next endpoint starts without durations");
  });

  it("says since when a routed request's blocks are still kept: the cutoff less the usual duration", () => {
    const h = new CacheHorizon(2);
    expect(isNaN(h.routedSinceMs[0])).toBe(true, "nothing read yet");
    h.observe(0, page(1000, 5000, 1000), 10000);
    h.observe(0, page(1000, 13000, 5000), 11000); // cutoff 7,000 (4,000 ms back)
    expect(h.routedSinceMs[0]).toBeCloseTo(7000);
    h.requestEnded(0, 3000); // requests hold their blocks 3 s after they were routed
    expect(h.routedSinceMs[0]).toBeCloseTo(4000);
    h.observe(0, page(1000, 17000, 5000), 12000); // 4,000 more computed tokens: cutoff 8,000
    expect(h.routedSinceMs[0]).toBeCloseTo(5000);
    expect(isNaN(h.routedSinceMs[1])).toBe(true, "another slot");
    h.observe(0, new EndpointMetrics(), 13000); // a page without counters: not known
    expect(isNaN(h.routedSinceMs[0])).toBe(true);
    h.observe(0, page(1000, 5000, 1000), 20000);
    h.observe(0, page(1000, 13000, 5000), 21000);
    expect(h.routedSinceMs[0]).toBeCloseTo(17000 - 3000); // forgetting the slot's durations is forget's, not a page's
    h.forget(0);
    expect(isNaN(h.routedSinceMs[0])).toBe(true, "the slot's next endpoint starts unknown");
  });

  it("judges nothing when the cache would keep blocks longer than half a year back", () => {
    const h = new CacheHorizon(1);
    const day: f64 = 86400000;
    // 16,000 tokens of cache filling at 100 tokens a day: a released block stays 160 days, then 240.
    h.observe(0, page(1000, 0, 0), 10 * day);
    h.observe(0, page(1000, 100, 0), 11 * day);
    expect(h.routedSinceMs[0]).toBeCloseTo(11 * day - 160 * day);
    h.observe(0, page(1000, 150, 0), 12 * day); // the rate halved: 16,000 tokens reach back 240 days
    expect(h.routedSinceMs[0]).toBe(-Infinity);
  });

  it("counts only the part of the cache that running requests do not hold", () => {
    const h = new CacheHorizon(1);
    const used = (queries: f64, usage: f64): EndpointMetrics => {
      const p = page(1000, queries, 0);
      p.kvUsage = usage;
      p.hasKv = true;
      return p;
    };
    h.observe(0, used(0, 0.75), 0);
    h.observe(0, used(4000, 0.75), 1000); // 4 tokens per ms into the quarter of 16,000 tokens left: 1 s
    expect(h.horizonMs(0, 1000)).toBeCloseTo(1000);
    h.observe(0, used(8000, 0), 2000); // nothing running: the whole cache, 4 s
    expect(h.horizonMs(0, 2000)).toBeCloseTo(4000);
    h.observe(0, used(12000, 1), 3000); // all in use: only what was released since this reading is left
    expect(h.horizonMs(0, 3500)).toBeCloseTo(500);
    h.observe(0, used(16000, 2), 4000); // a usage past 1 is not one: the whole cache
    expect(h.horizonMs(0, 4000)).toBeCloseTo(4000);
  });

  it("keeps an idle spell inside the newest stretch when the cache is nearly full", () => {
    const h = new CacheHorizon(1);
    const used = (queries: f64, usage: f64): EndpointMetrics => {
      const p = page(1000, queries, 0);
      p.kvUsage = usage;
      p.hasKv = true;
      return p;
    };
    // 2% of 16,000 tokens evictable: 320. A 500-token request, an idle minute, another 500 tokens in one second.
    let t: f64 = 0;
    for (let s = 0; s <= 10; s++) h.observe(0, used(4000 * <f64>s, 0.98), (t = 1000 * <f64>s));
    h.observe(0, used(40500, 0.98), (t += 1000));
    for (let s = 0; s < 60; s++) h.observe(0, used(40500, 0.98), (t += 1000));
    h.observe(0, used(41000, 0.98), (t += 1000));
    // The last 320 tokens came within the last second, after the idle minute: 64% of it back.
    expect(h.horizonMs(0, t)).toBeCloseTo(640);
  });

  it("follows the KV usage while the counters stand still", () => {
    const h = new CacheHorizon(1);
    const used = (queries: f64, usage: f64): EndpointMetrics => {
      const p = page(1000, queries, 0);
      p.kvUsage = usage;
      p.hasKv = true;
      return p;
    };
    h.observe(0, used(0, 0), 0);
    h.observe(0, used(16000, 0), 4000); // 4 tokens per ms: the whole cache, 4 s
    expect(h.horizonMs(0, 4000)).toBeCloseTo(4000);
    h.observe(0, used(16000, 0.75), 5000); // nothing entered, but requests now hold three quarters
    expect(h.horizonMs(0, 5000)).toBeCloseTo(2000);
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
