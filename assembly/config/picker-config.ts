// The validated plugin configuration (docs/config.md). Field defaults are the documented defaults.
import { ScoringSettings } from "../scheduling/scoring-settings";
import { DEFAULT_GUARD_FACTOR, DEFAULT_GUARD_SLACK } from "../scheduling/load-guard";
import { RedisConfig } from "./redis-config";
import { DiscoveryConfig } from "./discovery-config";

/** One endpoint of the stock Envoy build: where requests go and where its metrics are fetched. */
export class EndpointConfig {
  /** `ip:port`, `[ipv6]:port` or `host:port`, as configured. */
  address: string = "";
  /** Envoy cluster the metrics call is dispatched to. */
  metricsCluster: string = "";
  /** Defaults to `metrics.path` when the endpoint does not set `metricsPath`. */
  metricsPath: string = "/metrics";
  /** `:authority` of the metrics call; "" means the address. */
  authority: string = "";

  copyFrom(o: EndpointConfig): void {
    this.address = o.address;
    this.metricsCluster = o.metricsCluster;
    this.metricsPath = o.metricsPath;
    this.authority = o.authority;
  }
}

/** Higress `metric_policy`. */
export enum MetricPolicy {
  Default = 0,
  Least = 1,
  Most = 2,
}

/** metrics.staleAfterMs: its default (also its least value when it follows the poll interval) and its maximum. */
export const DEFAULT_STALE_AFTER_MS: i32 = 10000;
/** feedback.failureHalfLifeMs by default: as Envoy's outlier detection's base ejection time. */
export const DEFAULT_FAILURE_HALF_LIFE_MS: i32 = 30000;
export const MAX_STALE_AFTER_MS: i32 = 3600000;

export class PickerConfig {
  /** weights.* and the scorers' own keys (scoring.queueSpan, prefix.lambda...): scheduling/scorers/. */
  readonly scoring: ScoringSettings = new ScoringSettings();

  // prefix.*
  chunkChars: i32 = 512;
  maxChunks: i32 = 1024;
  capacityPerEndpoint: i32 = 4096;
  charsPerToken: f64 = 4;
  /** Lower-cased header name; "" disables. */
  saltHeader: string = "";
  shareAcrossWorkers: bool = true;
  /** The endpoint that served a conversation's previous turn is credited with the answer it generated. */
  creditAnswers: bool = true;
  /** A preamble most recent requests carry is placed by load until enough endpoints hold it (decide.ts). */
  spreadHotPreambles: bool = true;
  sharedHintBuckets: i32 = 65536;
  sharedHintMaxAgeMs: i32 = 600000;

  // loadGuard.*
  shareLoadAcrossWorkers: bool = true;
  guardFactor: f64 = DEFAULT_GUARD_FACTOR;
  guardSlack: f64 = DEFAULT_GUARD_SLACK;

  /** session.header, lower-cased; "" disables. */
  sessionHeader: string = "";
  /** feedback.ewmaAlpha */
  ewmaAlpha: f64 = 0.2;
  /** feedback.failureHalfLifeMs: the failure EWMA halves every this many ms without an outcome; 0 keeps it. */
  failureHalfLifeMs: i32 = DEFAULT_FAILURE_HALF_LIFE_MS;

  // metrics.*
  snapshotTtlMs: i32 = 250;
  staleAfterMs: i32 = DEFAULT_STALE_AFTER_MS;
  pollIntervalMs: i32 = 1000;
  pollTimeoutMs: i32 = 800;
  metricsPath: string = "/metrics";
  /** metrics.kvCacheTokens: one engine's KV cache in tokens, for endpoints whose metrics do not say; 0 = unknown. */
  kvCacheTokens: i64 = 0;

  endpoints: Array<EndpointConfig> = [];
  /** discovery.* (stock build): endpoints learned from Envoy's admin /clusters instead of `endpoints`. */
  readonly discovery: DiscoveryConfig = new DiscoveryConfig();

  /** redis.* (Higress build): replica-shared hints. */
  readonly redis: RedisConfig = new RedisConfig();

  // limits.*
  maxRequestBodyBytes: i32 = 4194304;
  maxScanSteps: i32 = 1000000;
  maxJsonDepth: i32 = 64;
  maxEndpoints: i32 = 64;
  maxIndexBytes: i64 = 67108864;

  /** debug.header */
  debugHeader: bool = false;
  seed: u64 = 0;

  // Higress compatibility.
  metricPolicy: i32 = MetricPolicy.Default;
  targetMetric: string = "";
  rateLimit: f64 = 1.0;
  windowSize: i32 = 100;

  /** The Higress `lb_policy`; "" when the plain layout was used. */
  lbPolicy: string = "";
  /** Non-fatal notes (e.g. endpoints given to the Higress build). */
  warnings: Array<string> = [];

  /** Makes this a deep copy of o (endpoints and warnings are copied, not shared). */
  copyFrom(o: PickerConfig): void {
    this.scoring.copyFrom(o.scoring);
    this.chunkChars = o.chunkChars;
    this.maxChunks = o.maxChunks;
    this.capacityPerEndpoint = o.capacityPerEndpoint;
    this.charsPerToken = o.charsPerToken;
    this.saltHeader = o.saltHeader;
    this.shareAcrossWorkers = o.shareAcrossWorkers;
    this.creditAnswers = o.creditAnswers;
    this.spreadHotPreambles = o.spreadHotPreambles;
    this.sharedHintBuckets = o.sharedHintBuckets;
    this.sharedHintMaxAgeMs = o.sharedHintMaxAgeMs;
    this.shareLoadAcrossWorkers = o.shareLoadAcrossWorkers;
    this.guardFactor = o.guardFactor;
    this.guardSlack = o.guardSlack;
    this.sessionHeader = o.sessionHeader;
    this.ewmaAlpha = o.ewmaAlpha;
    this.failureHalfLifeMs = o.failureHalfLifeMs;
    this.snapshotTtlMs = o.snapshotTtlMs;
    this.staleAfterMs = o.staleAfterMs;
    this.kvCacheTokens = o.kvCacheTokens;
    this.pollIntervalMs = o.pollIntervalMs;
    this.pollTimeoutMs = o.pollTimeoutMs;
    this.metricsPath = o.metricsPath;
    const endpoints = new Array<EndpointConfig>(o.endpoints.length);
    for (let i = 0; i < o.endpoints.length; i++) {
      const e = new EndpointConfig();
      e.copyFrom(o.endpoints[i]);
      endpoints[i] = e;
    }
    this.endpoints = endpoints;
    this.discovery.copyFrom(o.discovery);
    this.redis.copyFrom(o.redis);
    this.maxRequestBodyBytes = o.maxRequestBodyBytes;
    this.maxScanSteps = o.maxScanSteps;
    this.maxJsonDepth = o.maxJsonDepth;
    this.maxEndpoints = o.maxEndpoints;
    this.maxIndexBytes = o.maxIndexBytes;
    this.debugHeader = o.debugHeader;
    this.seed = o.seed;
    this.metricPolicy = o.metricPolicy;
    this.targetMetric = o.targetMetric;
    this.rateLimit = o.rateLimit;
    this.windowSize = o.windowSize;
    this.lbPolicy = o.lbPolicy;
    this.warnings = o.warnings.slice(0);
  }
}
