// Buffers (proxy_get_buffer_bytes, proxy_get_buffer_status, proxy_set_buffer_bytes): the stream's bodies, an
// HTTP call's response body, the VM and plugin configuration, and Higress's Redis reply.
import { BufferType, Status } from "../abi.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

const NO_BODY = new Uint8Array(0);

export function bufferCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, stream, ret } = scope;

  function buffer(type: number): Uint8Array | null | undefined {
    // Type 9 is Higress's Redis reply (redis-imports.ts); stock Envoy has no such buffer.
    if (type < 0 || type > (vm.flavor === "higress" ? 9 : 8)) return undefined;
    const s = stream();
    switch (type) {
      // envoy context.cc Context::getBuffer: buffer_.set(request_body_buffer_) (Buffer::set returns this) is never
      // null, so a body is always there, empty when the filter holds none: before the body, after Continue, on a
      // root context. The stream keeps the body it holds (the chunk in its callback, the buffered body while the
      // request is paused) in requestBody / responseBody, and empties it when it lets the body go.
      case BufferType.HttpRequestBody:
        return s ? s.requestBody : NO_BODY;
      case BufferType.HttpResponseBody:
        return s ? s.responseBody : NO_BODY;
      case 9: {
        // Higress's envoy context.cc Context::getBuffer: buffer_.set(rootContext()->redis_call_response_), never
        // null. The string is the reply while proxy_on_redis_call_response runs on that root context
        // (Context::onRedisCallSuccess) and empty otherwise: before any reply, after the callback (an after-VM-call
        // action clears it), in a failed call's callback (onRedisCallFailure sets nothing), on another root.
        const r = vm.redisCallResponse;
        return r !== null && r.rootId === vm.rootOf(vm.effectiveContextId) ? r.reply : NO_BODY;
      }
    }
    if (!vm.readableBuffers.includes(type)) return null;
    switch (type) {
      case BufferType.HttpCallResponseBody:
        return vm.httpCallResponse ? vm.httpCallResponse.body : null;
      case BufferType.VmConfiguration:
        return vm.options.vmConfig;
      case BufferType.PluginConfiguration:
        return vm.pluginConfigOf(vm.effectiveContextId);
    }
    return null;
  }

  return {
    // cpp-host exports.cc get_buffer_bytes: a start past the end (or a zero length) is Ok with a null pointer
    // and size 0; a longer length is cut at the end. Its overflow check (start > start + length) is on
    // 64-bit Words holding a 32-bit guest's u32 arguments, so it never fires: any start and length are Ok.
    "env.proxy_get_buffer_bytes": (type: number, start: number, maxSize: number, retPtr: number, retLen: number) => {
      const b = buffer(type);
      if (b === undefined) return Status.BadArgument;
      if (b === null) return Status.NotFound;
      start >>>= 0;
      maxSize >>>= 0;
      if (start >= b.length) return ret(retPtr, retLen, "");
      return ret(retPtr, retLen, b.subarray(start, Math.min(b.length, start + maxSize)));
    },
    "env.proxy_get_buffer_status": (type: number, retSize: number, retFlags: number) => {
      const b = buffer(type);
      if (b === undefined) return Status.BadArgument;
      if (b === null) return Status.NotFound;
      mem().writeU32(retSize, b.length);
      mem().writeU32(retFlags, 0);
      return Status.Ok;
    },
    "env.proxy_set_buffer_bytes": (type: number, start: number, size: number, valPtr: number, valLen: number) => {
      const b = buffer(type);
      if (b === undefined) return Status.BadArgument;
      if (b === null || (type !== BufferType.HttpRequestBody && type !== BufferType.HttpResponseBody)) return Status.NotFound;
      // Only a body the filter is in the callback of can be changed here (not checked against Envoy's copyFrom).
      if (!vm.readableBuffers.includes(type) || !stream()) return Status.NotFound;
      const value = mem().read(valPtr, valLen);
      start = Math.min(start >>> 0, b.length);
      const end = Math.min(b.length, start + (size >>> 0));
      const next = new Uint8Array(start + value.length + (b.length - end));
      next.set(b.subarray(0, start), 0);
      next.set(value, start);
      next.set(b.subarray(end), start + value.length);
      const s = stream()!;
      if (type === BufferType.HttpRequestBody) s.requestBody = next;
      else s.responseBody = next;
      return Status.Ok;
    },
  };
}
