// Everything one worker's picker keeps between requests, allocated once at configure time so that the
// request path allocates nothing: the config, the extractor and chain buffers, the prefix index, the
// endpoint registry with its metrics, the scheduler and the feedback state.
import { PickerConfig } from "../config/picker-config";
import { EndpointRegistry } from "../endpoints/endpoint-registry";
import { EndpointSignals } from "../endpoints/endpoint-signals";
import { EndpointMetrics } from "../endpoints/endpoint-metrics";
import { KeptNameHash } from "../endpoints/kept-name-hash";
import { PrometheusParser } from "../endpoints/prometheus";
import { PrefixIndex } from "../prefix/prefix-index";
import { ChainHasher } from "../prefix/chain";
import { SharedPrefixHints } from "../prefix/shared-hints";
import { PreambleHeat } from "../prefix/hot-preamble";
import { RequestExtractor } from "../request/extract";
import { Candidates } from "../scheduling/candidates";
import { Scheduler } from "../scheduling/scheduler";
import { effectiveWeight } from "../scheduling/scoring-settings";
import { FailureTracker } from "./failure-tracker";
import { InflightLeases } from "./leases";
import { RateLimitWindow } from "./rate-limit-window";
import { SharedLoad } from "./shared-load";
import { LoadView } from "./load-view";
import { RestartDetector } from "./restart-detector";
import { CacheHorizon } from "./cache-horizon";
import { KnownCacheSizes } from "./known-cache-sizes";
import { HintEndpointCheck } from "./hint-endpoint-check";
import { SessionAffinity } from "./session-affinity";
import { Telemetry } from "./telemetry";

export class PickerState {
  readonly extractor: RequestExtractor;
  readonly chain: ChainHasher;
  readonly index: PrefixIndex;
  readonly registry: EndpointRegistry;
  /** The registry's snapshot per active endpoint, as the candidate fill copies it. */
  readonly endpointSignals: EndpointSignals;
  /** endpointSignals.builds when candidates last took the list's snapshot fields (candidate-fill.ts). */
  candidatesBuild: u32 = 0;
  readonly scheduler: Scheduler;
  readonly candidates: Candidates;
  readonly leases: InflightLeases;
  readonly failures: FailureTracker;
  readonly sessions: SessionAffinity = new SessionAffinity();
  /** Prefix hints shared with the other workers of the process (null when disabled). */
  readonly hints: SharedPrefixHints | null;
  /** How much of the recent traffic shares each preamble (decide.ts spreads a hot one). */
  readonly preambleHeat: PreambleHeat = new PreambleHeat();
  readonly rateWindow: RateLimitWindow;
  /** Endpoints whose engine restarted (their prefix-cache counters went backwards) lose their index entries. */
  readonly restarts: RestartDetector;
  /** How long each endpoint's cache keeps an untouched block, from its counters (bounds the hints' credit). */
  readonly horizon: CacheHorizon;
  /** Each endpoint's KV cache size as last reported, for pages cut before it. */
  readonly cacheSizes: KnownCacheSizes;
  /** When a Redis reply last carried another gateway replica's hint (-Infinity: never). */
  otherReplicaSeenAtMs: f64 = -Infinity;
  readonly hintCheck: HintEndpointCheck;
  /** Per slot, from `load` at the current decision. */
  readonly loadView: LoadView;
  readonly matched: StaticArray<i32>;
  /** Per slot, the match from before a hot preamble was credited everywhere (read only when Decision.spreadPreamble). */
  readonly matchedBeforeSpread: StaticArray<i32>;
  readonly evicted: StaticArray<i32>;
  /** Candidate index → registry slot, for the current decision. */
  readonly candidateSlot: StaticArray<i32>;
  /** Per-slot capacity last applied to the index (derived from cache_config_info). */
  readonly appliedCapacity: StaticArray<i32>;
  /** Whether a response's status is worth reading: only the failure scorer uses the failure EWMA it feeds. */
  readonly tracksFailures: bool;
  /** The model hash of the current request (for LoRA affinity). */
  modelHash: u64 = 0;
  /** modelHash's function, kept for the last model named. */
  readonly modelNameHash: KeptNameHash = new KeptNameHash();
  /** Reads /metrics pages; parsedMetrics receives a page before it is applied to its endpoint. */
  readonly metricsParser: PrometheusParser = new PrometheusParser();
  readonly parsedMetrics: EndpointMetrics = new EndpointMetrics();
  /** UTF-8 name of the Higress-compatible target metric ("" when unused). */
  readonly targetMetric: ArrayBuffer;

  /** `load`: process-wide in-flight and awaiting-first-byte counts per endpoint (null when disabled), the VM's, which
   *  every configuration of the worker shares. */
  constructor(readonly config: PickerConfig, readonly telemetry: Telemetry, readonly load: SharedLoad | null) {
    const n = config.maxEndpoints;
    // The canonical stream never needs more than maxChunks full chunks of up to 4 UTF-8 bytes per character.
    const streamCap = <i64>config.chunkChars * <i64>config.maxChunks * 4;
    this.extractor = new RequestExtractor(<i32>min<i64>(streamCap, <i64>config.maxRequestBodyBytes + 1024), config.maxJsonDepth);
    this.chain = new ChainHasher(config.maxChunks);
    this.index = new PrefixIndex(n, config.capacityPerEndpoint);
    const registry = new EndpointRegistry(n);
    this.registry = registry;
    this.endpointSignals = new EndpointSignals(n);
    this.scheduler = new Scheduler(n);
    this.candidates = new Candidates(n);
    this.leases = new InflightLeases(n);
    this.failures = new FailureTracker(n);
    this.rateWindow = new RateLimitWindow(config.windowSize, n);
    this.matched = new StaticArray<i32>(n);
    this.matchedBeforeSpread = new StaticArray<i32>(n);
    this.evicted = new StaticArray<i32>(n);
    this.candidateSlot = new StaticArray<i32>(n);
    this.appliedCapacity = new StaticArray<i32>(n);
    this.targetMetric = String.UTF8.encode(config.targetMetric);
    const restarts = new RestartDetector(n);
    const horizon = new CacheHorizon(n);
    this.restarts = restarts;
    this.horizon = horizon;
    this.cacheSizes = new KnownCacheSizes(n);
    this.hintCheck = new HintEndpointCheck(registry, restarts, horizon, telemetry);
    this.loadView = new LoadView(n);
    this.hints = config.shareAcrossWorkers ? new SharedPrefixHints(config.sharedHintBuckets, <f64>config.sharedHintMaxAgeMs) : null;

    const s = this.scheduler;
    s.configure(config.scoring);
    s.request.chunkChars = config.chunkChars;
    s.guardFactor = config.guardFactor;
    s.guardSlack = config.guardSlack;
    // Only the debug header reads the per-scorer scores after a pick.
    s.deferScores = !config.debugHeader;
    const failure = s.scorer("failure");
    this.tracksFailures = failure !== null && effectiveWeight(failure.weight) > 0;
  }

  /**
   * Per slot, the earliest time an own index entry may have been recorded to count (the cache horizon's), or null
   * while other gateway replicas share hints through Redis (one seen within redis.ttlMs): the LRU list alone decides
   * then. Those replicas keep refreshing the pods' copies of the prefixes their users share, out of this gateway's
   * sight, and a Redis lookup restores one endpoint's match per decision, not each one's (docs/tuning.md, "More
   * worker VMs").
   */
  ownEntriesSince(nowMs: f64): StaticArray<f64> | null {
    return nowMs - this.otherReplicaSeenAtMs <= <f64>this.config.redis.ttlMs ? null : this.horizon.routedSinceMs;
  }

  /** Index capacity (in chunks) for an endpoint whose engine reports its KV cache size. */
  derivedCapacity(numGpuBlocks: i64, blockSize: i32): i32 {
    const c = this.config;
    const chars = <f64>numGpuBlocks * <f64>blockSize * c.charsPerToken;
    const chunks = chars / <f64>c.chunkChars;
    if (!(chunks >= 1)) return 1;
    return <i32>min<f64>(chunks, <f64>c.capacityPerEndpoint);
  }

  /** Ends a registry refresh (EndpointRegistry.endRefresh): the endpoints not seen since beginRefresh() are evicted,
   *  forgotten everywhere and counted. */
  evictUnseen(): void {
    const evicted = this.registry.endRefresh(this.evicted);
    for (let e = 0; e < evicted; e++) this.forget(unchecked(this.evicted[e]));
    if (evicted > 0) this.telemetry.add(this.telemetry.evictedEndpoints, evicted);
  }

  /** Forgets a departed endpoint everywhere it is remembered. */
  forget(slot: i32): void {
    this.index.purge(slot);
    this.rateWindow.forget(slot);
    this.restarts.forget(slot);
    this.horizon.forget(slot);
    this.cacheSizes.forget(slot);
    unchecked((this.appliedCapacity[slot] = 0));
  }
}
