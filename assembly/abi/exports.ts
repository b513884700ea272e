// The callbacks a proxy-wasm 0.2.1 HTTP filter exports (spec "Callbacks exposed by the Wasm module").
// The entry file re-exports everything here, and the ABI version mark of its gateway (abi-version.ts,
// higress-abi-version.ts). Unknown context ids are ignored, never trapped on.
import { createContext, deleteContext, rootById, streamById } from "./context";
import { hostMalloc } from "./memory";
import { collectAtEntry } from "./gc";
import { HeadersAction, DataAction } from "./types";
import { Stage, stageEnter, stageLeave } from "./stage-profile";

/** The host allocates returned buffers in our memory through this. */
export function malloc(size: usize): usize {
  return hostMalloc(size);
}

export function proxy_on_memory_allocate(size: usize): usize {
  return hostMalloc(size);
}

export function proxy_on_context_create(contextId: u32, parentContextId: u32): void {
  collectAtEntry(parentContextId != 0);
  stageEnter(Stage.Context);
  createContext(contextId, parentContextId);
  stageLeave();
}

export function proxy_on_vm_start(rootContextId: u32, vmConfigSize: u32): bool {
  const root = rootById(rootContextId);
  return root === null ? false : root.onVmStart(vmConfigSize);
}

export function proxy_on_configure(rootContextId: u32, pluginConfigSize: u32): bool {
  const root = rootById(rootContextId);
  return root === null ? false : root.onConfigure(pluginConfigSize);
}

export function proxy_on_tick(rootContextId: u32): void {
  collectAtEntry(false);
  const root = rootById(rootContextId);
  if (root !== null) root.onTick();
}

export function proxy_on_queue_ready(rootContextId: u32, queueId: u32): void {
  const root = rootById(rootContextId);
  if (root !== null) root.onQueueReady(queueId);
}

export function proxy_on_http_call_response(rootContextId: u32, callId: u32, numHeaders: u32, bodySize: u32, numTrailers: u32): void {
  const root = rootById(rootContextId);
  if (root !== null) root.onHttpCallResponse(callId, numHeaders, bodySize, numTrailers);
}

export function proxy_on_request_headers(contextId: u32, numHeaders: u32, endOfStream: bool): i32 {
  const s = streamById(contextId);
  if (s === null) return HeadersAction.Continue;
  s.reachedFilter = true;
  return s.onRequestHeaders(numHeaders, endOfStream);
}

export function proxy_on_request_body(contextId: u32, bodySize: u32, endOfStream: bool): i32 {
  const s = streamById(contextId);
  return s === null ? DataAction.Continue : s.onRequestBody(bodySize, endOfStream);
}

export function proxy_on_request_trailers(contextId: u32, numTrailers: u32): i32 {
  const s = streamById(contextId);
  return s === null ? HeadersAction.Continue : s.onRequestTrailers(numTrailers);
}

export function proxy_on_response_headers(contextId: u32, numHeaders: u32, endOfStream: bool): i32 {
  const s = streamById(contextId);
  return s === null ? HeadersAction.Continue : s.onResponseHeaders(numHeaders, endOfStream);
}

export function proxy_on_response_body(contextId: u32, bodySize: u32, endOfStream: bool): i32 {
  const s = streamById(contextId);
  return s === null ? DataAction.Continue : s.onResponseBody(bodySize, endOfStream);
}

export function proxy_on_response_trailers(contextId: u32, numTrailers: u32): i32 {
  const s = streamById(contextId);
  return s === null ? HeadersAction.Continue : s.onResponseTrailers(numTrailers);
}

export function proxy_on_log(contextId: u32): void {
  const s = streamById(contextId);
  if (s !== null) {
    s.onLog();
    // A stream that never reached the filter (an earlier filter answered it, or it was reset first) is created in the
    // VM only to be logged (envoy context.cc Context::log). An HTTP/3 stream is logged after its filters went (envoy
    // conn_manager_impl.cc doDeferredStreamDestroy), so no on_done or on_delete follows: it ends here. Elsewhere they
    // follow and find nothing.
    if (!s.reachedFilter) {
      s.onDone();
      s.onDelete();
      deleteContext(contextId);
    }
    return;
  }
  const r = rootById(contextId);
  if (r !== null) r.onLog();
}

export function proxy_on_done(contextId: u32): bool {
  const s = streamById(contextId);
  if (s !== null) return s.onDone();
  const r = rootById(contextId);
  return r === null ? true : r.onDone();
}

export function proxy_on_delete(contextId: u32): void {
  stageEnter(Stage.Context);
  const s = streamById(contextId);
  if (s !== null) s.onDelete();
  else {
    const r = rootById(contextId);
    if (r !== null) r.onDelete();
  }
  deleteContext(contextId);
  stageLeave();
}
