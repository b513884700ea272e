// The plugin's root context on one worker: parses the configuration, allocates the picker for the default
// configuration and, lazily on their first request, one per `_rules_` entry, picks the one for each request,
// and runs the platforms' timers (the stock build's metrics polling).
import { currentTimeNanos, getBufferBytes, log, Returned, setEffectiveContext, setTickPeriodMs } from "../abi/host";
import { HttpContext } from "../abi/context";
import { BufferType, LogLevel, Status } from "../abi/types";
import { PickerConfig } from "../config/picker-config";
import { PluginConfig } from "../config/plugin-config";
import { parseConfig } from "../config/parse-config";
import { logConfigWarnings } from "./config-warnings";
import { Platform } from "../core/platform";
import { PickerState } from "../core/picker-state";
import { nowMs } from "../core/clock";
import { PickerStream } from "./picker-stream";
import { StreamPool } from "./stream-pool";
import { takeWorkerToken } from "../core/worker-token";
import { BodyWatchdog } from "./body-watchdog";
import { LateBodyReads } from "./late-body-reads";
import { ConfiguredPicker } from "./configured-picker";
import { RuleSelector } from "./rule-selector";
import { WorkerPickers } from "./worker-pickers";
import { streamById } from "../abi/context";
import { LOAD_TICK_MS, SharedLoad } from "../core/shared-load";
import { PendingCall, PendingCalls } from "../replica/pending-calls";
import { RedisTelemetry } from "../replica/redis-telemetry";
import { MAX_REPLY_BYTES, ReplicaHints } from "../replica/replica-hints";
import { GatewayIdentity } from "../replica/gateway-identity";
import { ReplyKind, RespReply } from "../replica/resp";

const BODY_WAIT_MS: f64 = 1000;
/** The longest the counters may lag the requests: the tick writes out what telemetry holds back (abi/plugin-metric.ts).
 *  Well under Envoy's stats_flush_interval (5 s by default), when sinks read the counters. */
export const METRICS_FLUSH_MS: u32 = 1000;
const WATCHED_STREAMS: i32 = 4096;
/** Streams of one worker whose late body read may wait for the next tick at once; past it they fail open. */
const LATE_READ_STREAMS: i32 = 1024;
/** Ended streams a worker keeps for reuse (about 150 bytes each). */
const KEPT_STREAMS: i32 = 1024;

/** Makes the platform of one configuration: ruleIndex is -1 for the default configuration. */
export type PlatformFactory = (ruleIndex: i32) => Platform;

// One shared load per VM, not per configuration: the shared value lists one member per VM, and whichever root context
// ticks writes what the others held back, a replaced configuration's included (its root context goes when its last
// stream ends, and with it its tick).
let vmLoad: SharedLoad | null = null;

function loadOfThisVm(): SharedLoad {
  if (vmLoad === null) vmLoad = new SharedLoad();
  return vmLoad!;
}

function resumeStream(contextId: u32): void {
  const s = streamById(contextId);
  if (s !== null) (s as PickerStream).resumeWithoutBody();
}

function readLateBody(contextId: u32): void {
  const s = streamById(contextId);
  if (s !== null) (s as PickerStream).readLateBody();
}

export class PickerRoot extends WorkerPickers {
  /** The default configuration's picker; null when the document held only `_rules_`. */
  defaultPicker: ConfiguredPicker | null = null;
  /** Per rule: its picker once a request matched it. */
  rulePickers: Array<ConfiguredPicker | null> = [];
  /** Per rule: its platform refused it (logged once; its requests fail open). */
  ruleFailed: Array<bool> = [];
  selector: RuleSelector | null = null;
  private tickPeriod: u32 = 0;
  private metricsDefined: bool = false;
  /** When the tick last did its periodic work (a late body read's short tick does only that read). */
  private lastTickMs: f64 = 0;
  /** Ended streams kept for reuse (see stream-pool.ts). */
  private readonly endedStreams: StreamPool<PickerStream> = new StreamPool<PickerStream>(KEPT_STREAMS);
  /** A Redis reply while it is read (released before the callback returns). */
  private readonly redisReply: Returned = new Returned();
  readonly platformName: string;

  constructor(id: u32, readonly makePlatform: PlatformFactory) {
    super(id);
    this.platformName = makePlatform(-1).name;
  }

  get isStockEnvoy(): bool {
    return this.platformName == "envoy";
  }

  onConfigure(configSize: u32): bool {
    if (!this.metricsDefined) {
      this.telemetry.define();
      this.metricsDefined = true;
    }
    const document = new Returned();
    if (configSize > 0 && getBufferBytes(BufferType.PluginConfiguration, 0, configSize, document) != Status.Ok) {
      log(LogLevel.Error, "endpoint-picker: cannot read the plugin configuration");
      return this.refuseConfiguration();
    }
    const config = new PluginConfig();
    const error = parseConfig(document.ptr, document.len, this.isStockEnvoy, config);
    document.release();
    if (error.length > 0) {
      log(LogLevel.Error, "endpoint-picker: " + error);
      return this.refuseConfiguration();
    }
    let defaultPicker: ConfiguredPicker | null = null;
    if (config.hasDefault) {
      defaultPicker = this.makePicker(config, -1);
      if (defaultPicker === null) return this.refuseConfiguration();
    }
    const rules = config.rules;
    this.rulePickers = new Array<ConfiguredPicker | null>(rules.length);
    this.ruleFailed = new Array<bool>(rules.length);
    this.selector = rules.length > 0 ? new RuleSelector(rules) : null;
    logConfigWarnings(config);
    this.defaultPicker = defaultPicker;
    this.config = config;

    // No work at configure time: Envoy also configures a short-lived canary VM, which must not take the
    // polling lease. The first tick does the first poll.
    const poll = this.isStockEnvoy ? shortestPollInterval(config) : 0;
    if (poll > 0) this.watchdog = new BodyWatchdog(WATCHED_STREAMS);
    if (!this.isStockEnvoy && this.lateReads === null) this.lateReads = new LateBodyReads(LATE_READ_STREAMS);
    // The tick also writes out the counts telemetry and the load changes a worker hold back (shared-load.ts), and gives
    // up Redis calls past their timeout while no request comes to do it.
    const wanted = anyWantsShortTick(config) ? LOAD_TICK_MS : METRICS_FLUSH_MS;
    const period = poll > 0 ? min<u32>(poll, wanted) : wanted;
    this.tickPeriod = period;
    if (period > 0) setTickPeriodMs(period);
    const what = rules.length > 0 ? ", " + rules.length.toString() + " rule(s)" : "";
    log(LogLevel.Info, "endpoint-picker: configured (" + this.platformName + " build" + what + ")");
    return true;
  }

  /** A configuration refused: the running one, if any, goes on. A root without one still ticks, to write out what
   *  it counts (its requests fail open, counted). */
  private refuseConfiguration(): bool {
    if (this.tickPeriod == 0) {
      this.tickPeriod = METRICS_FLUSH_MS;
      setTickPeriodMs(METRICS_FLUSH_MS);
    }
    return false;
  }

  private logWarnings(warnings: Array<string>): void {
    for (let i = 0; i < warnings.length; i++) log(LogLevel.Warn, "endpoint-picker: " + warnings[i]);
  }

  // Allocates the state and platform of one configuration; null (logged) if the platform refuses it.
  private workerToken: u64 = 0;
  /** Which gateway this worker belongs to, for the Redis hints (made with the first configuration that uses Redis). */
  private gateway: GatewayIdentity | null = null;

  private makePicker(config: PickerConfig, ruleIndex: i32): ConfiguredPicker | null {
    const state = new PickerState(config, this.telemetry, config.shareLoadAcrossWorkers ? loadOfThisVm() : null);
    const platform = this.makePlatform(ruleIndex);
    const warningsBefore = config.warnings.length;
    const platformError = platform.configure(state);
    if (platformError.length > 0) {
      const where = ruleIndex < 0 ? "" : "_rules_[" + ruleIndex.toString() + "]: ";
      log(LogLevel.Error, "endpoint-picker: invalid plugin config: " + where + platformError);
      return null;
    }
    // Parse warnings were logged at configure time; these are the platform's.
    this.logWarnings(config.warnings.slice(warningsBefore));
    // Workers must not break ties in lockstep: mix in this VM's token, with or without a configured seed.
    if (this.workerToken == 0) this.workerToken = takeWorkerToken();
    const base = config.seed != 0 ? config.seed : currentTimeNanos() ^ (<u64>this.id << 32);
    state.scheduler.seed(base ^ (this.workerToken * 0x9e3779b97f4a7c15) ^ <u64>(ruleIndex + 1));
    const picker = new ConfiguredPicker(state, platform);
    if (config.redis.enabled) {
      const transport = platform.redisTransport();
      if (transport === null) {
        log(LogLevel.Error, "endpoint-picker: invalid plugin config: redis: this build has no Redis calls");
        return null;
      }
      if (this.redisTelemetry === null) {
        const telemetry = new RedisTelemetry();
        telemetry.define();
        this.redisTelemetry = telemetry;
      }
      if (this.redisPending === null) this.redisPending = new PendingCalls();
      if (this.gateway === null) this.gateway = new GatewayIdentity(this.workerToken);
      const replica = new ReplicaHints(config.redis, transport, this.redisTelemetry!, this.gateway!);
      // Connect now, as Higress's own plugins do at configure time; a refusal is retried after a back-off.
      if (!replica.ready(nowMs())) log(LogLevel.Warn, "endpoint-picker: redis.cluster " + config.redis.cluster + ": proxy_redis_init refused; retrying later");
      picker.replica = replica;
    }
    return picker;
  }

  /**
   * The picker for the current request (its headers are available): the first matching rule's, else the
   * default one. Null when no default configuration exists and no rule matches, or the rule's platform
   * refused it (see ruleFailed).
   */
  select(): ConfiguredPicker | null {
    this.selectionFailed = false;
    const selector = this.selector;
    if (selector === null) return this.defaultPicker;
    const i = selector.select();
    if (i < 0) return this.defaultPicker;
    const existing = unchecked(this.rulePickers[i]);
    if (existing !== null) return existing;
    if (!unchecked(this.ruleFailed[i])) {
      const made = this.makePicker(this.config!.rules[i].config, i);
      if (made !== null) {
        unchecked((this.rulePickers[i] = made));
        return made;
      }
      unchecked((this.ruleFailed[i] = true));
    }
    this.selectionFailed = true;
    return null;
  }

  onTick(): void {
    if (this.config === null) {
      this.flushMetrics();
      return;
    }
    const now = nowMs();
    const late = this.lateReads;
    if (late !== null && late.pending > 0) {
      late.drain(readLateBody);
      setEffectiveContext(this.id);
      setTickPeriodMs(this.tickPeriod);
      // A short tick soon after the last periodic one does not repeat its work.
      const since = now - this.lastTickMs;
      if (since >= 0 && since < <f64>this.tickPeriod) return;
    }
    this.lastTickMs = now;
    this.flushMetrics();
    const watchdog = this.watchdog;
    // Resuming a stream makes it the effective context: the tick's own host calls act on the root again after.
    if (watchdog !== null && watchdog.expire(now, BODY_WAIT_MS, resumeStream) > 0) setEffectiveContext(this.id);
    this.expireRedisCalls(now, this.id);
    if (vmLoad !== null) vmLoad!.flush(now);
    const p = this.defaultPicker;
    if (p !== null) this.tickPicker(p, now);
    for (let i = 0; i < this.rulePickers.length; i++) {
      const r = unchecked(this.rulePickers[i]);
      if (r !== null) this.tickPicker(r, now);
    }
  }

  // The root timer runs at the shortest period of all configurations; each runs its platform's at its own.
  private tickPicker(p: ConfiguredPicker, now: f64): void {
    const own = <f64>p.platform.tickPeriodMs(p.state);
    if (own <= 0) return;
    if (now - p.lastTickMs < own - <f64>this.tickPeriod / 2) return;
    p.lastTickMs = now;
    p.platform.onTick(p.state, now);
  }

  /** The configuration goes (replaced, once its last stream ended, or the VM shuts down): write what is held back. */
  onDone(): bool {
    if (vmLoad !== null) vmLoad!.flush(nowMs());
    this.flushMetrics();
    return true;
  }

  /** Writes out the counts both metric lists hold back. */
  private flushMetrics(): void {
    this.telemetry.flush();
    const redis = this.redisTelemetry;
    if (redis !== null) redis.flush();
  }

  onHttpCallResponse(callId: u32, numHeaders: u32, bodySize: u32, numTrailers: u32): void {
    const now = nowMs();
    const p = this.defaultPicker;
    if (p !== null) p.platform.onHttpCallResponse(p.state, callId, numHeaders, bodySize, now);
    // Each platform ignores call ids it did not dispatch.
    for (let i = 0; i < this.rulePickers.length; i++) {
      const r = unchecked(this.rulePickers[i]);
      if (r !== null) r.platform.onHttpCallResponse(r.state, callId, numHeaders, bodySize, now);
    }
  }

  onRedisCallResponse(token: u32, status: u32, responseSize: u32): void {
    const pending = this.redisPending;
    if (pending === null) return;
    const call = pending.find(token);
    if (call === null) return;
    const hints = call.hints!;
    const now = nowMs();
    let reply = hints.reply;
    let ok = false;
    let read = false;
    if (status != 0) {
      hints.callFailed(now, call.sentAtMs);
    } else if (responseSize == 0 || hints.transport.readReply(min(responseSize, MAX_REPLY_BYTES), this.redisReply) != Status.Ok) {
      hints.telemetry.count(hints.telemetry.garbage);
      hints.failed(now);
    } else {
      read = true;
      ok = checkReply(hints, reply.read(this.redisReply.ptr, this.redisReply.len), call.streamId != 0);
    }
    this.endRedisCall(pending, call, ok ? reply : null);
    if (read) this.redisReply.release();
  }

  /**
   * Gives up the Redis calls that outlived redis.timeoutMs (counted as timeouts, with the back-off): the requests
   * that wait for them are decided without Redis. Then the effective context is `currentContextId` again (the
   * stream or root whose callback runs).
   */
  expireRedisCalls(now: f64, currentContextId: u32): void {
    const pending = this.redisPending;
    if (pending === null) return;
    let resumed = false;
    for (let call = pending.overdue(now); call !== null; call = pending.overdue(now)) {
      call.hints!.callFailed(now, call.sentAtMs);
      resumed = resumed || call.streamId != 0;
      this.endRedisCall(pending, call, null);
    }
    if (resumed) setEffectiveContext(currentContextId);
  }

  // Lets the waiting request (if any) go on with the reply (null: none usable), then frees the entry (not before:
  // the request reads its chain from the entry, and publishing its pick takes an entry of its own).
  private endRedisCall(pending: PendingCalls, call: PendingCall, reply: RespReply | null): void {
    if (call.streamId != 0) {
      const s = streamById(call.streamId);
      if (s !== null) (s as PickerStream).resumeAfterRedis(call, reply);
    }
    pending.release(call);
  }

  createHttpContext(id: u32): HttpContext {
    const kept = this.endedStreams.take();
    if (kept === null) return new PickerStream(id, this);
    kept.reuseFor(id);
    return kept;
  }

  recycleHttpContext(stream: HttpContext): void {
    // Only this root's streams come back to it (context.ts deleteContext: stream.root), and it makes PickerStreams.
    this.endedStreams.put(changetype<PickerStream>(stream));
  }
}

/** Whether a configuration counts load in shared data or shares hints through Redis. */
function wantsShortTick(c: PickerConfig): bool {
  return c.shareLoadAcrossWorkers || c.redis.enabled;
}

/** Whether any configuration, the default one or a rule's, wants the short tick. */
function anyWantsShortTick(config: PluginConfig): bool {
  if (config.hasDefault && wantsShortTick(config)) return true;
  for (let i = 0; i < config.rules.length; i++) if (wantsShortTick(config.rules[i].config)) return true;
  return false;
}

/** The stock build polls each configuration's endpoints every metrics.pollIntervalMs. */
function shortestPollInterval(config: PluginConfig): u32 {
  let period: i32 = config.hasDefault ? config.pollIntervalMs : i32.MAX_VALUE;
  for (let i = 0; i < config.rules.length; i++) period = min(period, config.rules[i].config.pollIntervalMs);
  return period == i32.MAX_VALUE ? 0 : <u32>period;
}

/** Counts what a reply says; true when it is the reply the command returns (an array for MGET, else an integer). */
function checkReply(hints: ReplicaHints, kind: i32, isLookup: bool): bool {
  const t = hints.telemetry;
  const expected = isLookup ? ReplyKind.Array : ReplyKind.Integer;
  if (kind == expected) {
    hints.succeeded();
    return true;
  }
  t.count(kind == ReplyKind.Full ? t.full : kind == ReplyKind.Error ? t.error : t.garbage);
  hints.failed(nowMs());
  return false;
}
