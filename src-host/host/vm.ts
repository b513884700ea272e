// One Wasm VM: a module instance with the imports a gateway provides, the contexts it has created, and what
// each host call may see during the current callback. Envoy runs one of these per worker thread.
import { LogLevel } from "./abi.ts";
import type { CallData } from "./call-data.ts";
import type { Clock } from "./clock.ts";
import type { ClusterRegistry, HttpCallResponse } from "./cluster.ts";
import { ContextTable } from "./context-table.ts";
import { GuestMemory } from "./guest-memory.ts";
import { NO_BYTES } from "./no-bytes.ts";
import type { ProxyProcess } from "./shared-state.ts";
import type { StreamState } from "./stream.ts";
import type { RedisConnection, RedisTarget } from "./redis-client.ts";

export type Flavor = "envoy" | "higress";
export type LogSink = (level: number, message: string, vm: WasmVm) => void;

export class WasmTrap extends Error {
  constructor(
    readonly callback: string,
    readonly cause: unknown,
  ) {
    super(`wasm trap in ${callback}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export class MissingImportsError extends Error {
  constructor(readonly missing: string[]) {
    super(`module imports functions this host does not provide: ${missing.join(", ")}`);
  }
}

export class UnknownAbiError extends Error {
  constructor() {
    super("Missing or unknown Proxy-Wasm ABI version");
  }
}

/** The proxy-wasm ABI a module speaks, by its version mark. */
export type AbiVersion = "0.1.0" | "0.2.0" | "0.2.1" | "0.2.100";

const ABI_MARKS: ReadonlyArray<[string, AbiVersion]> = [
  ["proxy_abi_version_0_1_0", "0.1.0"],
  ["proxy_abi_version_0_2_0", "0.2.0"],
  ["proxy_abi_version_0_2_1", "0.2.1"],
  ["proxy_abi_version_0_2_100", "0.2.100"],
];

/**
 * cpp-host bytecode_util.cc BytecodeUtil::getAbiVersion: the first function export, in the export section's order,
 * that is a mark the host knows. Only Higress's cpp-host knows 0.2.100 (higress-group/proxy-wasm-cpp-host);
 * a module with no known mark fails to load (wasm.cc WasmBase::load).
 */
export function abiVersionOf(module: WebAssembly.Module, flavor: Flavor): AbiVersion {
  for (const e of WebAssembly.Module.exports(module)) {
    if (e.kind !== "function") continue;
    const mark = ABI_MARKS.find(([name, version]) => name === e.name && (version !== "0.2.100" || flavor === "higress"));
    if (mark) return mark[1];
  }
  throw new UnknownAbiError();
}

export interface VmOptions {
  flavor: Flavor;
  vmId: string;
  rootId: string;
  pluginName: string;
  vmConfig: Uint8Array;
  pluginConfig: Uint8Array;
  process: ProxyProcess;
  clock: Clock;
  clusters: ClusterRegistry;
  log: LogSink;
  logLevel: number;
  /** Higress: Redis clusters by name, for proxy_redis_init / proxy_redis_call. */
  redis?: Map<string, RedisTarget>;
  /** Test hook: lets a host call fail on demand (fault injection); return a status to force it. */
  fault?: (importName: string) => number | undefined;
}

/** A context's timer (envoy wasm.cc Wasm::setTimerPeriod keeps one per context id: timer_period_, timer_). */
export interface TickTimer {
  cancelTick: (() => void) | null;
  tickPeriodMs: number;
  /** What the timer runs (proxy_on_tick on its context), while tickPeriodMs > 0. */
  onTick: (() => void) | null;
}

export interface RootState extends TickTimer {
  id: number;
  /** The plugin configuration this root context was created for (cpp-host PluginBase: one root context per plugin
   *  key, root_id + configuration, in a VM: wasm.cc WasmBase::start). */
  pluginConfig: Uint8Array;
  /** What proxy_get_status returns (cpp-host ContextBase status_code_ / status_message_, read on the root
   *  context by exports.cc get_status). Envoy's Context::onHttpCallFailure and Context::onRedisCallFailure set
   *  BrokenConnection and never reset the code; nothing on the success path touches it. */
  statusCode: number;
  statusMessage: string;
  /** This context's CallData buffer (call-data.ts). */
  callData: CallData;
}

interface PendingHttpCall {
  rootId: number;
  cancelTimeout: () => void;
}

export type ImportBuilder = (vm: WasmVm) => Record<string, WebAssembly.ImportValue>;

export class WasmVm {
  readonly memory: GuestMemory;
  readonly instance: WebAssembly.Instance;
  readonly roots = new Map<number, RootState>();
  readonly streams = new ContextTable<StreamState>();
  /** The context host calls act on (proxy_set_effective_context can change it). */
  effectiveContextId = 0;
  /** The context of the callback running now (cpp-host current_context_). */
  currentContextId = 0;
  /** The root context whose on_context_create or on_configure runs now, which alone reads the plugin configuration
   *  (cpp-host ContextBase::onStart / onConfigure set its temp_plugin_), or 0. */
  configuringRoot = 0;
  /** The HTTP call response being delivered, during proxy_on_http_call_response (null on a failure), and the root
   *  context it is delivered to (envoy context.cc Context::onHttpCallSuccess keeps it in that root's
   *  http_call_response_): see callResponseFor. */
  httpCallResponse: HttpCallResponse | null = null;
  httpCallResponseRoot = 0;
  /** The VM context's (id 0: _initialize, _start) CallData buffer (call-data.ts). */
  vmContextCallData: CallData = NO_BYTES;
  /** The VM context's timer: a tick period set from it (cpp-host ContextBase::setTimerPeriod on root_context(), which
   *  for the VM context is itself) ticks context 0 (envoy wasm.cc Wasm::tickHandler: getContext(0)->onTick). */
  private readonly vmContextTimer: TickTimer = { cancelTick: null, tickPeriodMs: 0, onTick: null };
  /** The Redis reply being delivered and the root context it goes to, during proxy_on_redis_call_response (envoy
   *  context.cc Context::onRedisCallSuccess keeps it in that root context's redis_call_response_). */
  redisCallResponse: { rootId: number; reply: Uint8Array } | null = null;
  /** Redis connections this VM's proxy_redis_init opened. */
  readonly redisConnections = new Set<RedisConnection>();
  /** cpp-host wasm.h next_http_call_id_: starts at CalloutType::HttpCall (0) and each call adds
   *  kCalloutIncrement (4), so HTTP call tokens are 4, 8, ... (low two bits 0; Higress's Redis tokens end in 3). */
  private lastHttpCallId = 0;
  private pendingCalls = new Map<number, PendingHttpCall>();
  private nextContextId = 1;
  failed = false;
  /** shutdown() ran. */
  shutDown = false;
  private exports: Record<string, WebAssembly.ExportValue>;
  readonly abiVersion: AbiVersion;
  /** Calls into the module now running (a host function may make the host call the module again). */
  private callDepth = 0;
  private afterCallActions: Array<() => void> = [];

  constructor(
    module: WebAssembly.Module,
    readonly options: VmOptions,
    builders: ImportBuilder[],
  ) {
    this.abiVersion = abiVersionOf(module, options.flavor);
    const provided: Record<string, Record<string, WebAssembly.ImportValue>> = {};
    for (const build of builders) {
      for (const [qualified, fn] of Object.entries(build(this))) {
        const [mod, name] = qualified.split(".", 2);
        (provided[mod] ??= {})[name] = fn;
      }
    }
    const missing = WebAssembly.Module.imports(module)
      .filter((imp) => imp.kind !== "function" || !provided[imp.module]?.[imp.name])
      .map((imp) => `${imp.module}.${imp.name}`);
    if (missing.length) throw new MissingImportsError(missing);
    this.instance = new WebAssembly.Instance(module, provided);
    this.exports = this.instance.exports;
    const memory = this.exports.memory as WebAssembly.Memory;
    const malloc = (this.exports.proxy_on_memory_allocate ?? this.exports.malloc) as (n: number) => number;
    if (!(memory instanceof WebAssembly.Memory) || typeof malloc !== "function") {
      throw new Error("module must export memory and malloc (or proxy_on_memory_allocate)");
    }
    this.memory = new GuestMemory(memory, malloc);
  }

  get flavor(): Flavor {
    return this.options.flavor;
  }

  linearMemoryBytes(): number {
    return (this.exports.memory as WebAssembly.Memory).buffer.byteLength;
  }

  hasExport(name: string): boolean {
    return typeof this.exports[name] === "function";
  }

  allocateContextId(): number {
    return this.nextContextId++;
  }

  /** Calls an export; a trap marks the VM failed and surfaces as WasmTrap. */
  call(name: string, args: Array<number | bigint>, contextId = 0): number {
    return this.run(name, contextId, args, 0, 0);
  }

  /** call() for a stream callback, (contextId, a, b), without an array per call. cpp-host calls each with its own arity
   *  (wasm.h WasmBase: on_log_ is WasmCallVoid<1>, on_request_headers_abi_02_ WasmCallWord<3>, ...); a wasm function
   *  called from JS drops the arguments past its parameters, so each gets exactly its own here too. */
  callback(name: string, contextId: number, a: number, b: number): number {
    return this.run(name, contextId, null, a, b);
  }

  /** Runs the export `name` on `args`, or on (contextId, a, b) when args is null. */
  private run(name: string, contextId: number, args: Array<number | bigint> | null, a: number, b: number): number {
    if (this.failed) throw new WasmTrap(name, new Error("VM already failed"));
    const fn = this.exports[name];
    if (typeof fn !== "function") return 0;
    const savedContext = this.effectiveContextId;
    const savedCurrent = this.currentContextId;
    this.effectiveContextId = contextId;
    this.currentContextId = contextId;
    this.callDepth++;
    try {
      const f = fn as (...a: Array<number | bigint>) => unknown;
      // Direct calls, not a spread of the array.
      const r =
        args === null ? f(contextId, a, b)
        : args.length === 1 ? f(args[0])
        : args.length === 2 ? f(args[0], args[1])
        : args.length === 3 ? f(args[0], args[1], args[2])
        : f(...args);
      return typeof r === "number" ? r : r === undefined ? 0 : Number(r);
    } catch (e) {
      this.failed = true;
      throw new WasmTrap(name, e);
    } finally {
      this.effectiveContextId = savedContext;
      this.currentContextId = savedCurrent;
      this.callDepth--;
      if (this.callDepth === 0) this.runAfterCallActions();
    }
  }

  /** cpp-host wasm.h WasmBase::addAfterVmCallAction: Envoy defers what a host call starts on a stream
   *  (envoy context.cc Context::continueStream) until the callback returns (cpp-host context.cc
   *  DeferAfterCallActions), so the module is never entered again from inside a host call. Outside a call
   *  it runs now. */
  addAfterVmCallAction(action: () => void): void {
    this.afterCallActions.push(action);
    if (this.callDepth === 0) this.runAfterCallActions();
  }

  /** WasmBase::doAfterVmCallActions: in order, including actions those actions add. */
  private runAfterCallActions(): void {
    while (this.afterCallActions.length > 0) this.afterCallActions.shift()!();
  }

  /** Runs `_initialize` (or `_start`), as Envoy does before any other callback. */
  initialize(): void {
    if (this.hasExport("_initialize")) this.call("_initialize", []);
    else if (this.hasExport("_start")) this.call("_start", []);
  }

  createRootContext(pluginConfig: Uint8Array = this.options.pluginConfig): number {
    const id = this.allocateContextId();
    this.roots.set(id, { id, pluginConfig, cancelTick: null, tickPeriodMs: 0, onTick: null, statusCode: 0, statusMessage: "", callData: NO_BYTES });
    this.callConfiguring("proxy_on_context_create", [id, 0], id);
    return id;
  }

  vmStart(rootId: number): boolean {
    return this.call("proxy_on_vm_start", [rootId, this.options.vmConfig.length], rootId) !== 0;
  }

  configure(rootId: number): boolean {
    const config = this.roots.get(rootId)?.pluginConfig ?? this.options.pluginConfig;
    return this.callConfiguring("proxy_on_configure", [rootId, config.length], rootId) !== 0;
  }

  /** A root context's callback with its plugin at hand (cpp-host ContextBase::onStart sets temp_plugin_ around
   *  on_context_create, ContextBase::onConfigure around on_configure; on_vm_start gets none). */
  private callConfiguring(name: string, args: number[], rootId: number): number {
    const saved = this.configuringRoot;
    this.configuringRoot = rootId;
    try {
      return this.call(name, args, rootId);
    } finally {
      this.configuringRoot = saved;
    }
  }

  /** The configuration of the context's root (what get_buffer_bytes PluginConfiguration reads). */
  pluginConfigOf(contextId: number): Uint8Array {
    return this.roots.get(this.rootOf(contextId) ?? -1)?.pluginConfig ?? this.options.pluginConfig;
  }

  /** envoy wasm.cc Wasm::setTimerPeriod for a root context, or the VM context (0). */
  setTickPeriod(rootId: number, periodMs: number, onTick: () => void): void {
    const root = rootId === 0 ? this.vmContextTimer : this.roots.get(rootId);
    if (!root) return;
    root.cancelTick?.();
    root.cancelTick = null;
    root.tickPeriodMs = periodMs;
    root.onTick = periodMs > 0 ? onTick : null;
    if (periodMs > 0) root.cancelTick = this.options.clock.every(periodMs, onTick);
  }

  /** Runs the timer of every root context that has one, now, as its next expiry would (cpp-host WasmBase::tick);
   *  the schedule stays. A root without a timer gets no tick, as in Envoy. */
  tickNow(): void {
    if (this.shutDown) return;
    for (const root of [...this.roots.values()]) root.onTick?.();
    this.vmContextTimer.onTick?.();
  }

  /** The root context a context belongs to (cpp-host ContextBase::root_context()), or null. */
  rootOf(contextId: number): number | null {
    if (this.roots.has(contextId)) return contextId;
    const stream = this.streams.get(contextId);
    return stream !== undefined && this.roots.has(stream.rootId) ? stream.rootId : null;
  }

  /** The HTTP call response a host call of the effective context reads: envoy context.cc Context::getConstMap
   *  (HttpCallResponseHeaders / Trailers) and Context::getBuffer (HttpCallResponseBody) look in
   *  rootContext()->http_call_response_, so only the calling root context and its streams see it. */
  callResponseFor(contextId: number): HttpCallResponse | null {
    const r = this.httpCallResponse;
    return r !== null && this.rootOf(contextId) === this.httpCallResponseRoot ? r : null;
  }

  /** A timeout of 0 means none: Envoy's Context::httpCall only sets the async client's timeout when it
   *  is positive (context.cc). */
  registerHttpCall(rootId: number, timeoutMs: number, onTimeout: (callId: number) => void): number {
    const callId = (this.lastHttpCallId = (this.lastHttpCallId + 4) >>> 0);
    const cancelTimeout = timeoutMs > 0 ? this.options.clock.after(timeoutMs, () => onTimeout(callId)) : () => {};
    this.pendingCalls.set(callId, { rootId, cancelTimeout });
    return callId;
  }

  /** Removes a pending call and returns its root context id, or null if it already finished. */
  finishHttpCall(callId: number): number | null {
    const p = this.pendingCalls.get(callId);
    if (!p) return null;
    p.cancelTimeout();
    this.pendingCalls.delete(callId);
    return p.rootId;
  }

  /** A module call is running (a host call made from it is on the stack). */
  get inVmCall(): boolean {
    return this.callDepth > 0;
  }

  /** cpp-host wasm.cc WasmBase::startShutdown, run when a worker's WasmHandle goes (~WasmHandleBase): each root
   *  context gets on_done and, if that returned true, on_delete (ContextBase::onDone/onDelete: nothing on a
   *  failed VM). A root that answered false waits for proxy_done, which a VM dropped right after never gets.
   *  Not for a configuration canary: cpp-host WasmHandleBase::canary kill()s a passing one's handle (no
   *  shutdown) and a failing one is failed. Then shutdown(). */
  startShutdown(): void {
    if (this.shutDown) return;
    for (const id of [...this.roots.keys()]) this.retireRoot(id);
    this.shutdown();
  }

  /** cpp-host wasm.cc WasmBase::startShutdown(plugin_key), run when a plugin's last handle on this worker goes
   *  (~PluginHandleBase: a configuration replaced, once the streams that hold it end): its root context gets on_done
   *  and, if that returned true, on_delete, and leaves the VM; the VM and its other root contexts go on. Its timer
   *  stops with it (WasmBase::tick finds no context) and so do its HTTP calls (Context::~Context cancels them). */
  retireRoot(id: number): void {
    const root = this.roots.get(id);
    if (root === undefined) return;
    if (!this.failed) {
      try {
        if (this.call("proxy_on_done", [id], id) !== 0) this.call("proxy_on_delete", [id], id);
      } catch (e) {
        if (!(e instanceof WasmTrap)) throw e;
        this.options.log(LogLevel.Critical, e.message, this);
      }
    }
    if (this.shutDown) return;
    root.cancelTick?.();
    this.roots.delete(id);
    for (const [callId, call] of this.pendingCalls) {
      if (call.rootId !== id) continue;
      call.cancelTimeout();
      this.pendingCalls.delete(callId);
    }
  }

  /** Stops timers; the instance is dropped with this object. Calls still in flight never call back (envoy
   *  context.cc Context::~Context cancels its Redis and HTTP requests). */
  shutdown(): void {
    this.shutDown = true;
    for (const r of this.roots.values()) r.cancelTick?.();
    this.vmContextTimer.cancelTick?.();
    for (const p of this.pendingCalls.values()) p.cancelTimeout();
    this.pendingCalls.clear();
    for (const c of this.redisConnections) c.close();
    this.redisConnections.clear();
  }
}
