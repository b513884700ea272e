// Control of the stream and context: local replies, continue and close, the effective context, proxy_done.
import { Status, StreamType } from "../abi.ts";
import { toPairs } from "../header-map.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function streamControlCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, hooks, stream } = scope;

  return {
    // cpp-host exports.cc send_local_response and context.cc Context::sendLocalResponse: Ok whatever the
    // context, and malformed extra headers are none (PairsUtil::toPairs); a root context (no decoder
    // callbacks) sends nothing. The reply is deferred to after the current callback (FilterStream.setLocalReply).
    "env.proxy_send_local_response": (
      status: number, dPtr: number, dLen: number, bPtr: number, bLen: number, hPtr: number, hLen: number, grpc: number,
    ) => {
      if (!stream()) return Status.Ok;
      const headers = toPairs(mem().read(hPtr, hLen));
      return hooks().localReply(vm.effectiveContextId, status >>> 0, mem().readString(dPtr, dLen), mem().read(bPtr, bLen), headers, grpc);
    },
    // cpp-host exports.cc continue_stream / close_stream: a type past WasmStreamType Upstream is BadArgument.
    // context.cc Context::continueStream / closeStream: Ok for request and response (nothing happens on a
    // context without decoder/encoder callbacks, such as a root context); Downstream and Upstream act only
    // on a network filter's callbacks, so do nothing here: Ok, except continueStream(Upstream), Unimplemented.
    "env.proxy_continue_stream": (type: number) => {
      if (type >>> 0 > StreamType.Upstream) return Status.BadArgument;
      if (type === StreamType.Upstream) return Status.Unimplemented;
      if (type === StreamType.Downstream) return Status.Ok;
      return stream() ? hooks().continueStream(vm.effectiveContextId, type) : Status.Ok;
    },
    "env.proxy_close_stream": (type: number) => {
      if (type >>> 0 > StreamType.Upstream) return Status.BadArgument;
      if (type === StreamType.Downstream || type === StreamType.Upstream) return Status.Ok;
      return stream() ? hooks().closeStream(vm.effectiveContextId, type) : Status.Ok;
    },
    // cpp-host exports.cc set_effective_context: any context the VM has (getContext), the VM context 0 included, which
    // as an effective id means the callback's own context (contextOrEffectiveContext: current_context_).
    "env.proxy_set_effective_context": (contextId: number) => {
      // exports.cc set_effective_context: static_cast<uint32_t>(context_id); an i32 at or above 2^31 reaches JS negative.
      contextId >>>= 0;
      if (contextId === 0) {
        vm.effectiveContextId = vm.currentContextId;
        return Status.Ok;
      }
      if (!vm.roots.has(contextId) && !vm.streams.has(contextId)) return Status.BadArgument;
      vm.effectiveContextId = contextId;
      return Status.Ok;
    },
    "env.proxy_done": () => hooks().done(vm.effectiveContextId),
  };
}
