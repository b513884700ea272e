// A Wasm HTTP filter as Envoy runs it: one VM per worker plus a canary at start-up, the root context
// lifecycle (create, vm_start, configure), and the failure policy when a VM traps.
import { LOG_LEVEL_NAMES, LogLevel, type FailurePolicy } from "./abi.ts";
import { RealClock, type Clock } from "./clock.ts";
import { ClusterRegistry } from "./cluster.ts";
import { ContextTable } from "./context-table.ts";
import { envoyImports, type VmHooks } from "./envoy-imports.ts";
import { FilterStream } from "./filter-stream.ts";
import { higressImports } from "./higress-imports.ts";
import type { RedisTarget } from "./redis-client.ts";
import { redisImports } from "./redis-imports.ts";
import { ProxyProcess } from "./shared-state.ts";
import type { StreamInfo } from "./stream.ts";
import type { StreamWorker } from "./stream-worker.ts";
import { WasmTrap, WasmVm, type Flavor, type ImportBuilder, type LogSink, type VmOptions } from "./vm.ts";
import { SeededRandom } from "../util/seeded-random.ts";

const enc = new TextEncoder();

export interface PluginHostOptions {
  wasm: Uint8Array | WebAssembly.Module;
  flavor: Flavor;
  pluginConfig?: string | Uint8Array;
  vmConfig?: string | Uint8Array;
  rootId?: string;
  vmId?: string;
  pluginName?: string;
  /** Worker threads; each gets its own VM. Default 1. */
  workers?: number;
  /** Envoy's default (UNSPECIFIED) is FAIL_CLOSED (envoy source/extensions/common/wasm/wasm.cc PluginConfig). */
  failurePolicy?: FailurePolicy;
  /** Envoy's deprecated PluginConfig.fail_open: true (Istio before 1.25 sets it for failStrategy FAIL_OPEN). It
   *  means FAIL_OPEN and also sets the plugin's fail_open_, which lets the streams already on a failed VM
   *  continue (cpp-host context.cc CHECK_FAIL); failure_policy FAIL_OPEN alone fails them with a 503. */
  legacyFailOpen?: boolean;
  /** FAIL_RELOAD: reload_config.backoff.base_interval; a failed VM is reloaded no sooner than a random
   *  [base, 1.5 × base) after its last load (JitteredLowerBoundBackOffStrategy). Default 1000. */
  reloadBackoffBaseMs?: number;
  /** Stock Envoy 1.35+: honour StopIteration from the headers callback instead of mapping it to StopAll. */
  allowOnHeadersStopIteration?: boolean;
  /** Request body bytes the filter may buffer before Envoy answers 413. Default 1 MiB (Envoy's default). */
  bufferLimitBytes?: number;
  /** Higress before 2.2 (higress-group/envoy branch envoy-1.27): while the filter buffers, a body callback runs
   *  before its chunk joins the buffer, so the module reads the body without it (DirectionState chunkJoinsAfterCall).
   *  Default false: upstream Envoy's order. */
  envoy127BodyOrder?: boolean;
  clock?: Clock;
  process?: ProxyProcess;
  clusters?: ClusterRegistry;
  log?: LogSink;
  logLevel?: number;
  fault?: VmOptions["fault"];
  /** Higress: where each Redis cluster name leads (e.g. "outbound|6379||redis.local" → tcpRedis(port)). */
  redis?: Map<string, RedisTarget>;
  /** Test hook: import builders applied after the gateway's own, replacing any import they also define. */
  extraImports?: ImportBuilder[];
}

export class ConfigRejectedError extends Error {}

/** Higress's envoy fork, source/extensions/common/wasm/wasm.cc MIN_RECOVER_INTERVAL_SECONDS. */
const HIGRESS_RECOVER_INTERVAL_MS = 5000;

function bytesOf(v: string | Uint8Array | undefined): Uint8Array {
  return v === undefined ? new Uint8Array(0) : typeof v === "string" ? enc.encode(v) : v;
}

const defaultLog: LogSink = (level, message, vm) => {
  process.stderr.write(`[wasm ${LOG_LEVEL_NAMES[level]}] ${vm.options.rootId}: ${message}\n`);
};

/** One worker thread's VM and its root context (not a Node worker thread: the host runs every VM in this one). */
export class WorkerVm implements StreamWorker {
  vm!: WasmVm;
  rootContextId = 0;
  readonly streams = new ContextTable<FilterStream>();
  reloads = 0;
  /** When this worker last (re)loaded its VM (envoy wasm.cc SinglePluginHandle last_load). */
  lastLoadMs = 0;
  /** Root contexts of replaced configurations whose streams have not all ended. */
  private readonly retiring = new Set<number>();
  /** Higress: recoveries of a failed VM tried, and when the last was (wasm.h last_recover_time_, never at first). */
  recoveries = 0;
  private lastRecoverMs = -Infinity;

  constructor(
    readonly host: PluginHost,
    readonly index: number,
  ) {}

  get failed(): boolean {
    return this.vm.failed;
  }

  /** Creates the VM, the root context, then vm_start and configure. Returns false if either refuses or traps. */
  start(): boolean {
    this.lastLoadMs = this.host.clock.nowMs();
    this.retiring.clear(); // root ids of the VM being replaced
    this.vm = this.host.createVm(this.hooks());
    try {
      this.vm.initialize();
      this.rootContextId = this.vm.createRootContext();
      if (!this.vm.vmStart(this.rootContextId)) return false;
      return this.vm.configure(this.rootContextId);
    } catch (e) {
      if (e instanceof WasmTrap) {
        this.host.log(LogLevel.Critical, e.message, this.vm);
        return false;
      }
      throw e;
    }
  }

  /**
   * A new plugin configuration on this worker: cpp-host wasm.cc getOrCreateThreadLocalPlugin finds the worker's VM (same
   * vm_id and code) and WasmBase::start makes a root context for the new plugin key (root_id + configuration), with
   * on_context_create, on_vm_start and on_configure. New streams go to it. The old root context stays until the last
   * stream holding its plugin handle ends (envoy context.cc Context keeps plugin_handle_; ~PluginHandleBase calls
   * WasmBase::startShutdown(plugin_key)). Returns false if the new root refuses or traps (it is then dropped).
   */
  replaceConfiguration(pluginConfig: Uint8Array): boolean {
    if (this.vm.failed) return this.start(); // a failed VM is replaced whole, with the new configuration
    const vm = this.vm;
    const old = this.rootContextId;
    let root = 0;
    try {
      root = vm.createRootContext(pluginConfig);
      if (vm.vmStart(root) && vm.configure(root)) {
        this.rootContextId = root;
        this.retiring.add(old);
        this.streamDeleted(vm, old);
        return true;
      }
    } catch (e) {
      if (!(e instanceof WasmTrap)) throw e;
      this.host.log(LogLevel.Critical, e.message, vm);
    }
    if (root !== 0) vm.retireRoot(root);
    return false;
  }

  streamDeleted(vm: WasmVm, rootId: number): void {
    if (vm !== this.vm || !this.retiring.has(rootId)) return;
    for (const s of vm.streams.values()) if (s.rootId === rootId) return;
    this.retiring.delete(rootId);
    vm.retireRoot(rootId);
  }

  /** FAIL_RELOAD as envoy wasm.cc PluginConfig::maybeReloadHandleIfNeeded does it when a stream starts: a VM
   *  failed at run time is replaced once the jittered backoff since its last load has passed; the new VM is
   *  kept only if it starts. Until then streams get the failed VM (a 503). */
  maybeReload(): void {
    if (!this.vm.failed) return;
    const base = this.host.reloadBackoffBaseMs;
    const interval = base + (this.host.random() % Math.max(1, Math.floor(base / 2)));
    const now = this.host.clock.nowMs();
    if (now - this.lastLoadMs < interval) return;
    this.reloads++;
    this.replaceFailedVm();
  }

  /**
   * Higress (its envoy fork, wasm_filter.h FilterConfig::createFilter under HIGRESS, and wasm.cc
   * PluginHandleSharedPtrThreadLocal::recover): a stream that finds the worker's VM failed first recovers it, a new VM
   * and plugin handle from the same code and configuration, at most once per MIN_RECOVER_INTERVAL_SECONDS (5 s); the
   * first try is at once, and a failed try counts toward the interval too. Whatever the failure policy.
   */
  maybeRecover(): void {
    if (!this.vm.failed) return;
    const now = this.host.clock.nowMs();
    if (now - this.lastRecoverMs < HIGRESS_RECOVER_INTERVAL_MS) return;
    this.lastRecoverMs = now;
    this.recoveries++;
    this.replaceFailedVm();
  }

  /** A new VM in place of the failed one, kept only if it starts (start() dates the try: lastLoadMs). */
  private replaceFailedVm(): void {
    const failed = this.vm;
    if (this.start()) {
      failed.shutdown();
    } else {
      this.vm.shutdown();
      this.vm = failed;
    }
  }

  /** Calls the module; a trap is logged and reported as false. */
  safeCall(name: string, args: Array<number | bigint>, contextId: number): { ok: boolean; value: number } {
    return this.safeCallOn(this.vm, name, args, contextId);
  }

  safeCallOn(vm: WasmVm, name: string, args: Array<number | bigint>, contextId: number): { ok: boolean; value: number } {
    try {
      return { ok: true, value: vm.call(name, args, contextId) };
    } catch (e) {
      this.trapped(vm, e);
      return { ok: false, value: 0 };
    }
  }

  /** safeCallOn for a stream callback (WasmVm.callback): its result, or null after a trap. */
  safeCallbackOn(vm: WasmVm, name: string, contextId: number, a: number, b: number): number | null {
    try {
      return vm.callback(name, contextId, a, b);
    } catch (e) {
      this.trapped(vm, e);
      return null;
    }
  }

  private trapped(vm: WasmVm, e: unknown): void {
    if (!(e instanceof WasmTrap)) throw e;
    this.host.log(LogLevel.Critical, e.message, vm);
    this.host.traps++;
  }

  private hooks(): () => VmHooks {
    const hooks: VmHooks = {
      tick: (rootId) => {
        if (!this.vm.failed) this.safeCall("proxy_on_tick", [rootId], rootId);
      },
      queueReady: (rootId, queueId) => {
        if (!this.vm.failed) this.safeCall("proxy_on_queue_ready", [rootId, queueId], rootId);
      },
      // cpp-host context.cc ContextBase::onHttpCallResponse: nothing on a failed VM.
      httpCallResponse: (rootId, callId, numHeaders, bodySize, numTrailers) => {
        if (this.vm.failed) return;
        this.safeCall("proxy_on_http_call_response", [rootId, callId, numHeaders, bodySize, numTrailers], rootId);
      },
      redisCallResponse: (rootId, token, status, size) => {
        if (!this.vm.failed) this.safeCall("proxy_on_redis_call_response", [rootId, token, status, size], rootId);
      },
      localReply: (contextId, status, details, body, headers, grpc) => {
        const s = this.streams.get(contextId);
        return s ? s.setLocalReply({ status, details, body, headers, grpcStatus: grpc }) : 2;
      },
      continueStream: (contextId, type) => this.streams.get(contextId)?.continueFromPlugin(type) ?? 0,
      closeStream: (contextId, type) => this.streams.get(contextId)?.closeFromPlugin(type) ?? 0,
      done: (contextId) => this.streams.get(contextId)?.doneFromPlugin() ?? 1,
    };
    return () => hooks;
  }
}

export class PluginHost {
  readonly module: WebAssembly.Module;
  readonly workers: WorkerVm[] = [];
  readonly process: ProxyProcess;
  readonly clusters: ClusterRegistry;
  readonly clock: Clock;
  readonly failurePolicy: FailurePolicy;
  readonly allowOnHeadersStopIteration: boolean;
  readonly bufferLimitBytes: number;
  readonly envoy127BodyOrder: boolean;
  readonly legacyFailOpen: boolean;
  readonly reloadBackoffBaseMs: number;
  traps = 0;
  private readonly jitter = new SeededRandom(0x2545f491);
  private nextWorker = 0;
  /** The plugin configuration in force (replaceConfiguration changes it). */
  private pluginConfig: Uint8Array;

  private constructor(readonly options: PluginHostOptions) {
    this.module = options.wasm instanceof WebAssembly.Module ? options.wasm : new WebAssembly.Module(options.wasm as Uint8Array<ArrayBuffer>);
    this.process = options.process ?? new ProxyProcess();
    this.clusters = options.clusters ?? new ClusterRegistry();
    this.clock = options.clock ?? new RealClock();
    this.failurePolicy = options.failurePolicy ?? "FAIL_CLOSED";
    this.allowOnHeadersStopIteration = options.allowOnHeadersStopIteration ?? false;
    this.bufferLimitBytes = options.bufferLimitBytes ?? 1024 * 1024;
    this.envoy127BodyOrder = options.envoy127BodyOrder ?? false;
    this.legacyFailOpen = options.legacyFailOpen ?? false;
    // PluginConfig: fail_open true is FAIL_OPEN.
    if (this.legacyFailOpen) this.failurePolicy = "FAIL_OPEN";
    this.reloadBackoffBaseMs = options.reloadBackoffBaseMs ?? 1000;
    this.pluginConfig = bytesOf(options.pluginConfig);
  }

  /** A deterministic 32-bit random number, Envoy's Random::RandomGenerator for the backoff. */
  random(): number {
    return this.jitter.u32();
  }

  /** Starts a canary VM (whose configure decides whether the config is accepted), then one VM per worker. */
  static create(options: PluginHostOptions): PluginHost {
    const host = new PluginHost(options);
    const canary = new WorkerVm(host, -1);
    if (!canary.start()) {
      canary.vm?.shutdown();
      throw new ConfigRejectedError(`plugin ${host.rootId} rejected its configuration`);
    }
    canary.vm.shutdown();
    for (let i = 0; i < (options.workers ?? 1); i++) {
      const w = new WorkerVm(host, i);
      if (!w.start()) throw new ConfigRejectedError(`plugin ${host.rootId} failed to start on worker ${i}`);
      host.workers.push(w);
    }
    return host;
  }

  get flavor(): Flavor {
    return this.options.flavor;
  }
  get rootId(): string {
    return this.options.rootId ?? "endpoint_picker";
  }

  log(level: number, message: string, vm: WasmVm): void {
    if (level >= (this.options.logLevel ?? LogLevel.Info)) (this.options.log ?? defaultLog)(level, message, vm);
  }

  createVm(hooks: () => VmHooks): WasmVm {
    const o = this.options;
    const builders: ImportBuilder[] = [(vm) => envoyImports(vm, hooks)];
    if (o.flavor === "higress") builders.push(higressImports, (vm) => redisImports(vm, hooks));
    builders.push(...(o.extraImports ?? []));
    return new WasmVm(
      this.module,
      {
        flavor: o.flavor,
        vmId: o.vmId ?? "endpoint_picker",
        rootId: this.rootId,
        pluginName: o.pluginName ?? this.rootId,
        vmConfig: bytesOf(o.vmConfig),
        pluginConfig: this.pluginConfig,
        process: this.process,
        clock: this.clock,
        clusters: this.clusters,
        log: (level, msg, vm) => this.log(level, msg, vm),
        logLevel: o.logLevel ?? LogLevel.Info,
        fault: o.fault,
        redis: o.redis,
      },
      builders,
    );
  }

  /**
   * An update of the plugin's configuration (Envoy: a listener update whose Wasm filter has new `configuration`). A
   * canary VM checks it first (cpp-host createWasm: a new plugin key has no canary result yet); if it refuses, the
   * update is rejected (ConfigRejectedError) and the old configuration stays. Then every worker takes it
   * (WorkerVm.replaceConfiguration); streams already running finish under the old one.
   */
  replaceConfiguration(pluginConfig: string | Uint8Array): void {
    const previous = this.pluginConfig;
    this.pluginConfig = bytesOf(pluginConfig);
    const canary = new WorkerVm(this, -1);
    const accepted = canary.start();
    canary.vm?.shutdown();
    if (!accepted) {
      this.pluginConfig = previous;
      throw new ConfigRejectedError(`plugin ${this.rootId} rejected its new configuration`);
    }
    this.workers.forEach((w, i) => {
      if (!w.replaceConfiguration(this.pluginConfig)) throw new ConfigRejectedError(`plugin ${this.rootId} failed to take its new configuration on worker ${i}`);
    });
  }

  /** Starts a stream on the given worker, or on the next one in turn (connections spread over workers). */
  newStream(info: StreamInfo = {}, workerIndex?: number): FilterStream {
    const index = workerIndex ?? this.nextWorker++ % this.workers.length;
    const worker = this.workers[index % this.workers.length];
    if (worker.failed && this.flavor === "higress") worker.maybeRecover();
    if (worker.failed && this.failurePolicy === "FAIL_RELOAD") worker.maybeReload();
    return new FilterStream(worker, info);
  }

  /** Counters and gauges the plugins defined, by name, as they stand now. */
  stats(): Record<string, number | number[]> {
    return this.process.stats.snapshot();
  }

  /**
   * The counters as a stats sink reads them after each worker's timers fired (WasmVm.tickNow), without moving the
   * clock. A plugin may hold counts back until its tick: the picker does, for at most a second (its
   * METRICS_FLUSH_MS), where Envoy latches counters for its sinks every stats_flush_interval (5 s by default:
   * api/envoy/config/bootstrap/v3/bootstrap.proto). What tests and benches read the picker's counters through.
   */
  scrape(): Record<string, number | number[]> {
    for (const w of this.workers) w.vm.tickNow();
    return this.stats();
  }

  /** The plugin goes away: each worker's VM shuts down, its root context told first (WasmVm.startShutdown). */
  close(): void {
    for (const w of this.workers) w.vm.startShutdown();
  }
}
