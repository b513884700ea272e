// Buffers (proxy_get_buffer_bytes, proxy_get_buffer_status, proxy_set_buffer_bytes): the stream's bodies, an
// HTTP call's response body, the VM and plugin configuration, and Higress's Redis reply.
import { BufferType, Status } from "../abi.ts";
import { callDataBytes, type CallData } from "../call-data.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

const NO_BODY = new Uint8Array(0);

/** envoy context.cc Buffer::copyFrom on an Envoy buffer: start 0 drains `length` bytes (all when past the end) and
 *  prepends the data; a start at or past the end appends it; any other start is BadArgument (null here). Higress's
 *  envoy-1.27 has the same rule. */
export function copyFrom(b: Uint8Array, start: number, length: number, data: Uint8Array): Uint8Array | null {
  if (start === 0) {
    const kept = b.subarray(Math.min(length, b.length));
    const next = new Uint8Array(data.length + kept.length);
    next.set(data, 0);
    next.set(kept, data.length);
    return next;
  }
  if (start >= b.length) {
    const next = new Uint8Array(b.length + data.length);
    next.set(b, 0);
    next.set(data, b.length);
    return next;
  }
  return null;
}

export function bufferCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, stream, ret } = scope;

  /** envoy context.cc Context::getBuffer: undefined past the last type (cpp-host exports.cc: BadArgument), null where
   *  Envoy answers nullptr (NotFound), else the bytes; what it gives becomes the context's CallData (call-data.ts). */
  function buffer(type: number): Uint8Array | null | undefined {
    // Stock Envoy has no Redis reply buffer (redis-imports.ts).
    if (type >>> 0 > (vm.flavor === "higress" ? BufferType.RedisCallResponse : 8)) return undefined;
    const s = stream();
    switch (type) {
      // Context::getBuffer: buffer_.set(request_body_buffer_) (Buffer::set returns this) is never null, so a body is
      // always there, empty when Envoy has no buffer behind it (requestBodyPresent): before the body, after Continue,
      // on a root context. The module's body (the chunk of its body callback, or the filter manager's buffer while
      // buffering) is DirectionState.body.
      case BufferType.HttpRequestBody:
        if (s === null) return keep(NO_BODY);
        s.callData = "request-body";
        return s.requestBodyPresent ? s.requestBody : NO_BODY;
      case BufferType.HttpResponseBody:
        if (s === null) return keep(NO_BODY);
        s.callData = "response-body";
        return s.responseBodyPresent ? s.responseBody : NO_BODY;
      // buffer_.set(network_downstream_data_buffer_), set(network_upstream_data_buffer_) and
      // set(rootContext()->grpc_receive_buffer_.get()): never null either, and empty here (an HTTP filter has no
      // network data, and this host makes no gRPC calls).
      case BufferType.DownstreamData:
      case BufferType.UpstreamData:
      case BufferType.GrpcCallMessage:
        return keep(NO_BODY);
      // rootContext()->http_call_response_: set only while proxy_on_http_call_response runs for a response, and only
      // for the root it is delivered to (WasmVm.callResponseFor).
      case BufferType.HttpCallResponseBody: {
        const r = vm.callResponseFor(vm.effectiveContextId);
        return r === null ? null : keep(r.body);
      }
      // buffer_.set(wasm()->vm_configuration()): in any callback of any context.
      case BufferType.VmConfiguration:
        return keep(vm.options.vmConfig);
      // temp_plugin_: only on the root context whose on_context_create (cpp-host ContextBase::onStart) or on_configure
      // (ContextBase::onConfigure) is running.
      case BufferType.PluginConfiguration:
        return vm.configuringRoot !== 0 && vm.effectiveContextId === vm.configuringRoot ? keep(vm.pluginConfigOf(vm.configuringRoot)) : null;
      case BufferType.RedisCallResponse: {
        // Higress's envoy context.cc Context::getBuffer: buffer_.set(rootContext()->redis_call_response_), never
        // null. The string is the reply while proxy_on_redis_call_response runs on that root context
        // (Context::onRedisCallSuccess) and empty otherwise: before any reply, after the callback (an after-VM-call
        // action clears it), in a failed call's callback (onRedisCallFailure sets nothing), on another root.
        const r = vm.redisCallResponse;
        return keep(r !== null && r.rootId === vm.rootOf(vm.effectiveContextId) ? r.reply : NO_BODY);
      }
    }
    // CallData: `return &buffer_;` as the context's last getBuffer left it.
    return callDataBytes(callDataOf(vm.effectiveContextId), s);
  }

  /** The context's CallData: its stream's, its root's, or the VM context's (id 0). */
  function callDataOf(contextId: number): CallData {
    return vm.streams.get(contextId)?.callData ?? vm.roots.get(contextId)?.callData ?? vm.vmContextCallData;
  }

  /** buffer_.set(bytes) on the effective context: its CallData from now on. */
  function keep(bytes: Uint8Array): Uint8Array {
    const id = vm.effectiveContextId;
    const owner = vm.streams.get(id) ?? vm.roots.get(id);
    if (owner !== undefined) owner.callData = bytes;
    else vm.vmContextCallData = bytes;
    return bytes;
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
      // The whole buffer (what a module reading the body asks for) needs no view of its own.
      const whole = start === 0 && maxSize >= b.length;
      return ret(retPtr, retLen, whole ? b : b.subarray(start, Math.min(b.length, start + maxSize)));
    },
    "env.proxy_get_buffer_status": (type: number, retSize: number, retFlags: number) => {
      const b = buffer(type);
      if (b === undefined) return Status.BadArgument;
      if (b === null) return Status.NotFound;
      mem().writeU32(retSize, b.length);
      mem().writeU32(retFlags, 0);
      return Status.Ok;
    },
    // cpp-host exports.cc set_buffer_bytes: getBuffer (nullptr: NotFound), the data (InvalidMemoryAccess), then
    // copyFrom, from any callback of any context. envoy context.cc Buffer::copyFrom: only a body with an Envoy buffer
    // behind it can change (copyFrom above); a body without one, and every other buffer (a string or a const buffer:
    // proxy_wasm::BufferBase::copyFrom, the const_buffer_instance_ branch), is BadArgument. Higress's envoy-1.27
    // Context::setBuffer picks the request body's buffer as getBuffer does (the decoding buffer while buffering, else
    // request_body_buffer_), after a modifyDecodingBuffer that only backs the body up for Higress's own use.
    "env.proxy_set_buffer_bytes": (type: number, start: number, size: number, valPtr: number, valLen: number) => {
      const b = buffer(type);
      if (b === undefined) return Status.BadArgument;
      if (b === null) return Status.NotFound;
      const value = mem().read(valPtr, valLen);
      const s = stream();
      // CallData pointing at a body buffer writes that body (the same Buffer::Instance behind buffer_).
      const data = type === BufferType.CallData && s !== null ? s.callData : null;
      const body = type === BufferType.HttpRequestBody || data === "request-body" ? "request" : type === BufferType.HttpResponseBody || data === "response-body" ? "response" : null;
      const present = body === "request" ? s?.requestBodyPresent : body === "response" ? s?.responseBodyPresent : false;
      if (!s || !present) return Status.BadArgument;
      const next = copyFrom(b, start >>> 0, size >>> 0, value);
      if (next === null) return Status.BadArgument;
      if (body === "request") s.requestBody = next;
      else s.responseBody = next;
      return Status.Ok;
    },
  };
}
