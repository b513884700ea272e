// The signals read from one endpoint's /metrics page. Plain fields, reused across refreshes via reset().
import { AdapterSet } from "./adapter-set";

export enum Engine {
  Unknown = 0,
  Vllm = 1,
  Sglang = 2,
}

export enum AdapterState {
  NotLoaded = 0,
  Waiting = 1,
  Running = 2,
  Resident = 3,
}

export class EndpointMetrics {
  waiting: f64 = 0;
  running: f64 = 0;
  // Fraction of the KV cache in use, 0..1.
  kvUsage: f64 = 0;
  hasWaiting: bool = false;
  hasRunning: bool = false;
  hasKv: bool = false;

  loraMax: i32 = 0;
  readonly runningAdapters: AdapterSet = new AdapterSet();
  readonly waitingAdapters: AdapterSet = new AdapterSet();
  /** Adapters neither running nor waiting that ran last and so are likely still loaded (see lora-residency.ts). */
  readonly residentAdapters: AdapterSet = new AdapterSet();
  hasLora: bool = false;
  /** hashNameBytes of the model the engine serves (vLLM's model_name label), 0 when the page gave none. */
  servedModel: u64 = 0;

  numGpuBlocks: i64 = 0;
  blockSize: i32 = 0;
  hasCacheConfig: bool = false;
  /** Engines that reported a cache size (data parallel: one series each; numGpuBlocks is the largest's). */
  cacheEngines: i32 = 0;

  // vLLM's cumulative queried and hit prompt tokens of the prefix cache (summed over engines).
  prefixQueries: f64 = 0;
  prefixHits: f64 = 0;
  hasPrefixCounters: bool = false;

  engine: i32 = Engine.Unknown;

  // Sum over series of the caller's target metric (Higress `target_metric`), see parsePrometheusWithTarget.
  targetValue: f64 = 0;
  hasTarget: bool = false;

  reset(): void {
    this.waiting = 0;
    this.running = 0;
    this.kvUsage = 0;
    this.hasWaiting = false;
    this.hasRunning = false;
    this.hasKv = false;
    this.loraMax = 0;
    this.runningAdapters.clear();
    this.waitingAdapters.clear();
    this.residentAdapters.clear();
    this.hasLora = false;
    this.servedModel = 0;
    this.numGpuBlocks = 0;
    this.blockSize = 0;
    this.hasCacheConfig = false;
    this.cacheEngines = 0;
    this.prefixQueries = 0;
    this.prefixHits = 0;
    this.hasPrefixCounters = false;
    this.engine = Engine.Unknown;
    this.targetValue = 0;
    this.hasTarget = false;
  }

  copyFrom(src: EndpointMetrics): void {
    this.waiting = src.waiting;
    this.running = src.running;
    this.kvUsage = src.kvUsage;
    this.hasWaiting = src.hasWaiting;
    this.hasRunning = src.hasRunning;
    this.hasKv = src.hasKv;
    this.loraMax = src.loraMax;
    this.runningAdapters.copyFrom(src.runningAdapters);
    this.waitingAdapters.copyFrom(src.waitingAdapters);
    this.residentAdapters.copyFrom(src.residentAdapters);
    this.hasLora = src.hasLora;
    this.servedModel = src.servedModel;
    this.numGpuBlocks = src.numGpuBlocks;
    this.blockSize = src.blockSize;
    this.hasCacheConfig = src.hasCacheConfig;
    this.cacheEngines = src.cacheEngines;
    this.prefixQueries = src.prefixQueries;
    this.prefixHits = src.prefixHits;
    this.hasPrefixCounters = src.hasPrefixCounters;
    this.engine = src.engine;
    this.targetValue = src.targetValue;
    this.hasTarget = src.hasTarget;
  }

  /** Distinct adapters running or waiting: vLLM lists an adapter with requests in both in both labels, and it takes
   *  one adapter slot. */
  adaptersInUse(): i32 {
    const running = this.runningAdapters;
    const waiting = this.waitingAdapters;
    let n = running.count;
    for (let i = 0; i < waiting.count; i++) {
      if (!running.has(unchecked(waiting.hashes[i]))) n++;
    }
    return n;
  }

  // AdapterState: 2 running, 1 waiting, 3 likely still loaded, 0 not loaded (also when no LoRA info was reported).
  isAdapterLoaded(nameHash: u64): i32 {
    if (this.runningAdapters.has(nameHash)) return AdapterState.Running;
    if (this.waitingAdapters.has(nameHash)) return AdapterState.Waiting;
    if (this.residentAdapters.has(nameHash)) return AdapterState.Resident;
    return AdapterState.NotLoaded;
  }
}
