// What every group of Envoy host functions works with: the VM, its owner's hooks, and the few helpers each group
// uses (the guest memory, the effective stream, returning bytes through out-params).
import { Status } from "../abi.ts";
import type { HeaderList } from "../header-map.ts";
import type { WasmVm } from "../vm.ts";

/** What the owner of a VM does for host calls that reach beyond the VM (streams, timers, queues). */
export interface VmHooks {
  tick(rootId: number): void;
  queueReady(rootId: number, queueId: number): void;
  httpCallResponse(rootId: number, callId: number, numHeaders: number, bodySize: number, numTrailers: number): void;
  /** Higress: a proxy_redis_call finished (redis-imports.ts). */
  redisCallResponse(rootId: number, token: number, status: number, size: number): void;
  localReply(contextId: number, status: number, details: string, body: Uint8Array, headers: HeaderList, grpc: number): number;
  continueStream(contextId: number, streamType: number): number;
  closeStream(contextId: number, streamType: number): number;
  done(contextId: number): number;
}

export type Fn = (...args: any[]) => number | void;

/** Host functions by import name ("env.proxy_log"), before guarding. */
export type HostFunctions = Record<string, Fn>;

/** Arrow-function fields, so a group can destructure them: `const { vm, mem, stream, ret } = scope`. */
export class ImportScope {
  constructor(readonly vm: WasmVm, readonly hooks: () => VmHooks) {}

  readonly mem = (): WasmVm["memory"] => this.vm.memory;

  /** The stream of the effective context, or null in a root context. */
  readonly stream = () => this.vm.streams.get(this.vm.effectiveContextId) ?? null;

  readonly rootOf = (contextId: number): number | null => this.vm.rootOf(contextId);

  /** Returns bytes to the module through (retPtr, retLen): Ok, or InvalidMemoryAccess when its malloc refuses
   *  (cpp-host wasm.h WasmBase::copyToPointerSize fails, and every exports.cc caller answers InvalidMemoryAccess). */
  readonly ret = (retPtr: number, retLen: number, value: Uint8Array | string): number =>
    this.vm.memory.returnBytes(retPtr, retLen, value) ? Status.Ok : Status.InvalidMemoryAccess;
}
