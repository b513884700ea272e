// The KV cache size each endpoint last reported (vLLM's cache_config_info, SGLang's pool size). vLLM writes
// cache_config_info last on its page, after every histogram, and Higress keeps only the first 64 KiB of each
// probe's body: a page of a few engines is cut before it. An engine's cache size does not change while it runs, so
// the size last reported stands in for a page cut short; without it the index share fell back to the default and
// the cache horizon started over at every such page.
import { EndpointMetrics } from "../endpoints/endpoint-metrics";

export class KnownCacheSizes {
  private readonly blocks: StaticArray<i64>;
  private readonly blockSize: StaticArray<i32>;
  private readonly engines: StaticArray<i32>;

  constructor(readonly maxEndpoints: i32) {
    this.blocks = new StaticArray<i64>(maxEndpoints);
    this.blockSize = new StaticArray<i32>(maxEndpoints);
    this.engines = new StaticArray<i32>(maxEndpoints);
  }

  /** Remembers the cache size m reports, or gives m the one remembered when its page was cut before it. */
  fillIn(slot: i32, m: EndpointMetrics, truncated: bool): void {
    if (<u32>slot >= <u32>this.maxEndpoints) return;
    if (m.hasCacheConfig) {
      unchecked((this.blocks[slot] = m.numGpuBlocks));
      unchecked((this.blockSize[slot] = m.blockSize));
      unchecked((this.engines[slot] = m.cacheEngines));
      return;
    }
    if (!truncated || unchecked(this.blocks[slot]) <= 0) return;
    m.numGpuBlocks = unchecked(this.blocks[slot]);
    m.blockSize = unchecked(this.blockSize[slot]);
    m.cacheEngines = unchecked(this.engines[slot]);
    m.hasCacheConfig = true;
  }

  /** The slot's endpoint left; its successor reports its own. */
  forget(slot: i32): void {
    if (<u32>slot >= <u32>this.maxEndpoints) return;
    unchecked((this.blocks[slot] = 0));
    unchecked((this.blockSize[slot] = 0));
    unchecked((this.engines[slot] = 0));
  }
}

/**
 * Gives metrics that carry no cache size the configured one (`metrics.kvCacheTokens`, one engine's tokens; 0 leaves
 * them unknown): for a worker that never saw a whole page, and engines that export none. The engine count is not
 * known then, so the cache horizon counts one engine.
 */
export function fillInConfiguredCacheSize(m: EndpointMetrics, tokens: i64): void {
  if (m.hasCacheConfig || tokens <= 0) return;
  m.numGpuBlocks = tokens;
  m.blockSize = 1;
  m.cacheEngines = 1;
  m.hasCacheConfig = true;
}
