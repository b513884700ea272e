// Where a filter stream and the worker it runs on meet: what the stream needs of its worker (the plugin host's
// WorkerVm provides it) and what the worker's host hooks call on a stream (FilterStream provides it), so that
// neither module imports the other.
import type { FailurePolicy } from "./abi.ts";
import type { Clock } from "./clock.ts";
import type { ContextTable } from "./context-table.ts";
import type { LocalReply } from "./stream.ts";
import type { Flavor, WasmVm } from "./vm.ts";

/** The plugin host's settings a stream applies. */
export interface StreamHostSettings {
  readonly flavor: Flavor;
  readonly clock: Clock;
  readonly failurePolicy: FailurePolicy;
  /** Envoy's deprecated `fail_open: true`: a failed VM is skipped, even for the streams in flight on it. */
  readonly legacyFailOpen: boolean;
  readonly allowOnHeadersStopIteration: boolean;
  readonly bufferLimitBytes: number;
  /** Higress before 2.2's body order (PluginHostOptions.envoy127BodyOrder). */
  readonly envoy127BodyOrder: boolean;
  log(level: number, message: string, vm: WasmVm): void;
}

/** The calls the plugin makes on one of its streams through the host functions. */
export interface PluginStreamCalls {
  setLocalReply(reply: LocalReply): number;
  continueFromPlugin(type: number): number;
  closeFromPlugin(type: number): number;
  doneFromPlugin(): number;
}

export interface StreamWorker {
  readonly vm: WasmVm;
  readonly host: StreamHostSettings;
  readonly rootContextId: number;
  readonly streams: ContextTable<PluginStreamCalls>;
  /** A stream of `vm` under root context `rootId` was deleted (the last one may let a replaced plugin go). */
  streamDeleted(vm: WasmVm, rootId: number): void;
  /** Runs a stream callback on `vm` (WasmVm.callback): its result, or null when it trapped (logged and counted). */
  safeCallbackOn(vm: WasmVm, name: string, contextId: number, a: number, b: number): number | null;
}
