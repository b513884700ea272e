// The host functions Envoy gives a proxy-wasm 0.2.1 module, with Envoy's semantics (status codes, map and
// buffer availability, shared data CAS, metrics). Pointers are checked: a bad one is InvalidMemoryAccess.
import { BufferType, LogLevel, MapType, Status, StreamType } from "./abi.ts";
import { deserializeHeaderMap, serializeHeaderMap, serializedAsciiSize, writeAsciiHeaderMap, type HeaderList } from "./header-map.ts";
import { InvalidMemoryAccess } from "./guest-memory.ts";
import { deliveredResponse } from "./http-call.ts";
import type { HttpCallOutcome } from "./cluster.ts";
import { resolveProperty } from "./properties.ts";
import { HeaderMap } from "./stream.ts";
import type { WasmVm } from "./vm.ts";

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


type Fn = (...args: any[]) => number | void;

const enc = new TextEncoder();

/** Wraps a host call: fault injection first, then the call; a bad guest pointer becomes a status.
 *  Fixed arity (no rest parameters) keeps the wrapper off the allocation path; no call takes more than 10. */
export function guarded(vm: WasmVm, name: string, fn: Fn): Fn {
  const fault = vm.options.fault;
  if (fault) {
    return (a?: any, b?: any, c?: any, d?: any, e?: any, f?: any, g?: any, h?: any, i?: any, j?: any) => {
      const forced = fault(name);
      if (forced !== undefined) return forced;
      try {
        return fn(a, b, c, d, e, f, g, h, i, j);
      } catch (err) {
        if (err instanceof InvalidMemoryAccess) return Status.InvalidMemoryAccess;
        throw err;
      }
    };
  }
  return (a?: any, b?: any, c?: any, d?: any, e?: any, f?: any, g?: any, h?: any, i?: any, j?: any) => {
    try {
      return fn(a, b, c, d, e, f, g, h, i, j);
    } catch (err) {
      if (err instanceof InvalidMemoryAccess) return Status.InvalidMemoryAccess;
      throw err;
    }
  };
}

export function envoyImports(vm: WasmVm, hooks: () => VmHooks): Record<string, WebAssembly.ImportValue> {
  const mem = () => vm.memory;
  const proc = vm.options.process;
  const customProperties = new Map<string, Uint8Array>();
  const metricNames = new Map<number, string>();
  const metricStats: Array<import("./shared-state.ts").Stat | undefined> = [];
  let nextMetricId = 1;

  const stream = () => vm.streams.get(vm.effectiveContextId) ?? null;
  const rootOf = (contextId: number): number | null => vm.rootOf(contextId);

  const ret = (retPtr: number, retLen: number, value: Uint8Array | string): number =>
    mem().returnBytes(retPtr, retLen, value) ? Status.Ok : Status.InternalFailure;

  // context.cc Context::getMap / getConstMap: the stream's header maps exist only while the filter holds
  // them (a headers callback that returned Continue, or continue_stream, drops them); on_log reads the
  // access log's copies; nothing is writable then.
  function headerMap(type: number, write = false): HeaderMap | null | undefined {
    // undefined: unknown map type; null: known but not available now.
    const s = stream();
    switch (type) {
      case MapType.HttpRequestHeaders:
        if (!s) return null;
        if (s.accessLogPhase) return write ? null : s.requestHeaders;
        return s.requestHeadersHeld ? s.requestHeaders : null;
      case MapType.HttpRequestTrailers:
        return s ? s.requestTrailers : null;
      case MapType.HttpResponseHeaders:
        if (!s) return null;
        if (s.accessLogPhase) return write ? null : s.responseHeaders;
        return s.responseHeadersHeld ? s.responseHeaders : null;
      case MapType.HttpResponseTrailers:
        return s ? s.responseTrailers : null;
      case MapType.HttpCallResponseHeaders:
        return vm.httpCallResponse ? new HeaderMap(vm.httpCallResponse.headers) : null;
      case MapType.HttpCallResponseTrailers:
        return vm.httpCallResponse ? new HeaderMap(vm.httpCallResponse.trailers) : null;
      case MapType.GrpcCallInitialMetadata:
      case MapType.GrpcCallTrailingMetadata:
        return null;
    }
    return undefined;
  }
  const writableMap = (type: number) => type <= MapType.HttpResponseTrailers;

  function buffer(type: number): Uint8Array | null | undefined {
    // Type 9 is Higress's Redis reply (redis-imports.ts); stock Envoy has no such buffer.
    if (type < 0 || type > (vm.flavor === "higress" ? 9 : 8)) return undefined;
    if (!vm.readableBuffers.has(type)) return null;
    const s = stream();
    switch (type) {
      case BufferType.HttpRequestBody:
        return s ? s.requestBody : null;
      case BufferType.HttpResponseBody:
        return s ? s.responseBody : null;
      case BufferType.HttpCallResponseBody:
        return vm.httpCallResponse ? vm.httpCallResponse.body : null;
      case BufferType.VmConfiguration:
        return vm.options.vmConfig;
      case BufferType.PluginConfiguration:
        return vm.options.pluginConfig;
      case 9:
        return vm.redisCallResponse;
    }
    return null;
  }

  const fns: Record<string, Fn> = {
    "env.proxy_log": (level: number, ptr: number, len: number) => {
      if (level < LogLevel.Trace || level > LogLevel.Critical) return Status.BadArgument;
      const msg = mem().readString(ptr, len);
      if (level >= vm.options.logLevel) vm.options.log(level, msg, vm);
      return Status.Ok;
    },
    "env.proxy_get_log_level": (retPtr: number) => {
      mem().writeU32(retPtr, vm.options.logLevel);
      return Status.Ok;
    },
    "env.proxy_get_current_time_nanoseconds": (retPtr: number) => {
      mem().writeU64(retPtr, vm.options.clock.nowNs());
      return Status.Ok;
    },
    "env.proxy_set_tick_period_milliseconds": (periodMs: number) => {
      const root = rootOf(vm.effectiveContextId);
      if (root === null) return Status.BadArgument;
      vm.setTickPeriod(root, periodMs >>> 0, () => hooks().tick(root));
      return Status.Ok;
    },

    "env.proxy_get_property": (pathPtr: number, pathLen: number, retPtr: number, retLen: number) => {
      const segments = mem().readString(pathPtr, pathLen).split("\0");
      const o = vm.options;
      const v = resolveProperty(
        segments,
        { pluginName: o.pluginName, rootId: o.rootId, vmId: o.vmId },
        stream(),
        o.clock.nowMs(),
        stream()?.properties ?? customProperties,
      );
      return v === null ? Status.NotFound : ret(retPtr, retLen, v);
    },
    "env.proxy_set_property": (pathPtr: number, pathLen: number, valPtr: number, valLen: number) => {
      (stream()?.properties ?? customProperties).set(mem().readString(pathPtr, pathLen), mem().read(valPtr, valLen));
      return Status.Ok;
    },

    // cpp-host exports.cc get_buffer_bytes: start + length overflowing is BadArgument; a start past the end
    // (or a zero length) is Ok with a null pointer and size 0; a longer length is cut at the end.
    "env.proxy_get_buffer_bytes": (type: number, start: number, maxSize: number, retPtr: number, retLen: number) => {
      const b = buffer(type);
      if (b === undefined) return Status.BadArgument;
      if (b === null) return Status.NotFound;
      start >>>= 0;
      maxSize >>>= 0;
      if (start + maxSize > 0xffffffff) return Status.BadArgument;
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

    // context.cc Context::getHeaderMapSize: only the stream's own (mutable) maps, measured as Envoy's
    // HeaderMap::byteSize() (key and value bytes), not as the serialized size.
    "env.proxy_get_header_map_size": (type: number, retSize: number) => {
      const m = writableMap(type) ? headerMap(type, true) : null;
      if (m === undefined || m === null) return Status.BadArgument;
      mem().writeU32(retSize, m.pairs.reduce((n, [k, v]) => n + enc.encode(k).length + enc.encode(v).length, 0));
      return Status.Ok;
    },
    // context.cc Context::getHeaderMapPairs: always Ok; a map that is not available now reads as empty.
    // cpp-host exports.cc get_header_map_pairs returns an empty map as zero bytes.
    "env.proxy_get_header_map_pairs": (type: number, retPtr: number, retLen: number) => {
      const m = headerMap(type);
      if (m === undefined) return Status.BadArgument;
      if (m === null || m.pairs.length === 0) return ret(retPtr, retLen, "");
      const asciiSize = serializedAsciiSize(m.pairs);
      if (asciiSize < 0) return ret(retPtr, retLen, serializeHeaderMap(m.pairs));
      const pairs = m.pairs;
      return mem().returnWritten(retPtr, retLen, asciiSize, (u8, at) => writeAsciiHeaderMap(pairs, u8, at)) ? Status.Ok : Status.InternalFailure;
    },
    "env.proxy_set_header_map_pairs": (type: number, ptr: number, len: number) => {
      const m = headerMap(type, true);
      if (m === undefined || m === null || !writableMap(type)) return Status.BadArgument;
      let pairs: HeaderList;
      try {
        pairs = deserializeHeaderMap(mem().read(ptr, len));
      } catch {
        return Status.BadArgument;
      }
      m.set(pairs);
      return Status.Ok;
    },
    // context.cc Context::getHeaderMapValue: an unavailable map is BadArgument, or NotFound in the access-log phase.
    "env.proxy_get_header_map_value": (type: number, kPtr: number, kLen: number, retPtr: number, retLen: number) => {
      const m = headerMap(type);
      if (m === undefined) return Status.BadArgument;
      if (m === null) return stream()?.accessLogPhase ? Status.NotFound : Status.BadArgument;
      const v = m.get(mem().readString(kPtr, kLen));
      return v === undefined ? Status.NotFound : ret(retPtr, retLen, v);
    },
    "env.proxy_add_header_map_value": (type: number, kPtr: number, kLen: number, vPtr: number, vLen: number) => {
      const m = headerMap(type, true);
      if (m === undefined || m === null || !writableMap(type)) return Status.BadArgument;
      m.add(mem().readString(kPtr, kLen), mem().readString(vPtr, vLen));
      return Status.Ok;
    },
    "env.proxy_replace_header_map_value": (type: number, kPtr: number, kLen: number, vPtr: number, vLen: number) => {
      const m = headerMap(type, true);
      if (m === undefined || m === null || !writableMap(type)) return Status.BadArgument;
      m.replace(mem().readString(kPtr, kLen), mem().readString(vPtr, vLen));
      return Status.Ok;
    },
    "env.proxy_remove_header_map_value": (type: number, kPtr: number, kLen: number) => {
      const m = headerMap(type, true);
      if (m === undefined || m === null || !writableMap(type)) return Status.BadArgument;
      m.remove(mem().readString(kPtr, kLen));
      return Status.Ok;
    },

    "env.proxy_get_shared_data": (kPtr: number, kLen: number, retPtr: number, retLen: number, retCas: number) => {
      const r = proc.sharedData.get(vm.options.vmId, mem().readString(kPtr, kLen));
      if (r.status !== Status.Ok) return r.status;
      mem().writeU32(retCas, r.cas!);
      return ret(retPtr, retLen, r.value!);
    },
    "env.proxy_set_shared_data": (kPtr: number, kLen: number, vPtr: number, vLen: number, cas: number) =>
      proc.sharedData.set(vm.options.vmId, mem().readString(kPtr, kLen), mem().read(vPtr, vLen), cas >>> 0),

    "env.proxy_register_shared_queue": (nPtr: number, nLen: number, retId: number) => {
      const root = rootOf(vm.effectiveContextId);
      if (root === null) return Status.BadArgument;
      const id = proc.queues.register(vm.options.vmId, mem().readString(nPtr, nLen), {
        onQueueReady: (queueId) => hooks().queueReady(root, queueId),
      });
      mem().writeU32(retId, id);
      return Status.Ok;
    },
    "env.proxy_resolve_shared_queue": (vPtr: number, vLen: number, nPtr: number, nLen: number, retId: number) => {
      const id = proc.queues.resolve(mem().readString(vPtr, vLen), mem().readString(nPtr, nLen));
      if (id === null) return Status.NotFound;
      mem().writeU32(retId, id);
      return Status.Ok;
    },
    "env.proxy_enqueue_shared_queue": (id: number, vPtr: number, vLen: number) => proc.queues.enqueue(id >>> 0, mem().read(vPtr, vLen)),
    "env.proxy_dequeue_shared_queue": (id: number, retPtr: number, retLen: number) => {
      const r = proc.queues.dequeue(id >>> 0);
      return r.status !== Status.Ok ? r.status : ret(retPtr, retLen, r.value!);
    },

    "env.proxy_define_metric": (type: number, nPtr: number, nLen: number, retId: number) => {
      const name = mem().readString(nPtr, nLen);
      if (!proc.stats.define(type, name)) return Status.BadArgument;
      let id = [...metricNames].find(([, n]) => n === name)?.[0];
      if (id === undefined) metricNames.set((id = nextMetricId++), name);
      metricStats[id] = proc.stats.stat(name);
      mem().writeU32(retId, id);
      return Status.Ok;
    },
    "env.proxy_increment_metric": (id: number, delta: bigint) => proc.stats.incrementStat(metricStats[id >>> 0], delta),
    "env.proxy_record_metric": (id: number, value: bigint) => {
      const name = metricNames.get(id >>> 0);
      return name === undefined ? Status.NotFound : proc.stats.record(name, BigInt.asUintN(64, value));
    },
    "env.proxy_get_metric": (id: number, retPtr: number) => {
      const name = metricNames.get(id >>> 0);
      if (name === undefined) return Status.NotFound;
      const r = proc.stats.get(name);
      if (r.status !== Status.Ok) return r.status;
      mem().writeU64(retPtr, r.value!);
      return Status.Ok;
    },

    // cpp-host exports.cc http_call: the call belongs to the root context of the calling context, so the
    // answer comes to proxy_on_http_call_response on the root context whoever dispatched it. Envoy's
    // Context::httpCall (context.cc): a negative timeout, an unknown cluster, or headers without :path,
    // :method and :authority are BadArgument; a timeout of 0 means no timeout.
    "env.proxy_http_call": (
      uPtr: number, uLen: number, hPtr: number, hLen: number, bPtr: number, bLen: number,
      tPtr: number, tLen: number, timeoutMs: number, retId: number,
    ) => {
      const clusterName = mem().readString(uPtr, uLen);
      let headers: HeaderList;
      let trailers: HeaderList;
      try {
        headers = deserializeHeaderMap(mem().read(hPtr, hLen));
        trailers = deserializeHeaderMap(mem().read(tPtr, tLen));
      } catch {
        return Status.BadArgument;
      }
      const body = mem().read(bPtr, bLen);
      mem().writeU32(retId, 0);
      if ((timeoutMs | 0) < 0) return Status.BadArgument;
      const cluster = vm.options.clusters.get(clusterName);
      if (!cluster || !cluster.dispatch) return Status.BadArgument;
      const names = new Set(headers.map(([k]) => k.toLowerCase()));
      if (!names.has(":authority") || !names.has(":method") || !names.has(":path")) return Status.BadArgument;
      const rootId = vm.rootOf(vm.effectiveContextId);
      if (rootId === null) return Status.BadArgument;
      const deliver = (callId: number, outcome: HttpCallOutcome | "timeout") => {
        if (vm.finishHttpCall(callId) === null) return;
        const root = vm.roots.get(rootId);
        if (!root) return;
        const res = deliveredResponse(outcome);
        vm.httpCallResponse = res;
        if (res === null) {
          // context.cc Context::onHttpCallFailure.
          root.statusCode = Status.BrokenConnection;
          root.statusMessage = "reset";
        }
        try {
          hooks().httpCallResponse(rootId, callId, res ? res.headers.length : 0, res ? res.body.length : 0, res ? res.trailers.length : 0);
        } finally {
          vm.httpCallResponse = null;
          root.statusMessage = "";
        }
      };
      const callId = vm.registerHttpCall(rootId, timeoutMs >>> 0, (id) => deliver(id, "timeout"));
      mem().writeU32(retId, callId);
      // Envoy answers on a later event-loop turn, never inside the call that dispatched it.
      cluster.dispatch({ headers, body, trailers, timeoutMs: timeoutMs >>> 0 }, (outcome) => {
        vm.options.clock.after(0, () => deliver(callId, outcome));
      });
      return Status.Ok;
    },
    // cpp-host exports.cc get_status: the root context's status_code_ and status_message_ — not an HTTP
    // status. 0 unless an HTTP call failed (Context::onHttpCallFailure), and it stays BrokenConnection
    // after that; the message is "reset" only during the failed call's callback.
    "env.proxy_get_status": (retCode: number, retMsgPtr: number, retMsgLen: number) => {
      const root = vm.roots.get(vm.rootOf(vm.effectiveContextId) ?? -1);
      mem().writeU32(retCode, root ? root.statusCode : 0);
      return ret(retMsgPtr, retMsgLen, root ? root.statusMessage : "");
    },
    // context.cc Context::sendLocalResponse: Ok whatever the context; a root context (no decoder callbacks)
    // sends nothing. The reply itself is deferred to after the current callback (FilterStream.setLocalReply).
    "env.proxy_send_local_response": (
      status: number, dPtr: number, dLen: number, bPtr: number, bLen: number, hPtr: number, hLen: number, grpc: number,
    ) => {
      if (!stream()) return Status.Ok;
      let headers: HeaderList;
      try {
        headers = deserializeHeaderMap(mem().read(hPtr, hLen));
      } catch {
        return Status.BadArgument;
      }
      return hooks().localReply(vm.effectiveContextId, status >>> 0, mem().readString(dPtr, dLen), mem().read(bPtr, bLen), headers, grpc);
    },
    // context.cc Context::continueStream / closeStream: Ok for request and response (nothing happens on a
    // context without decoder/encoder callbacks, such as a root context).
    "env.proxy_continue_stream": (type: number) => {
      if (type !== StreamType.HttpRequest && type !== StreamType.HttpResponse) return Status.BadArgument;
      return stream() ? hooks().continueStream(vm.effectiveContextId, type) : Status.Ok;
    },
    "env.proxy_close_stream": (type: number) => {
      if (type !== StreamType.HttpRequest && type !== StreamType.HttpResponse) return Status.BadArgument;
      return stream() ? hooks().closeStream(vm.effectiveContextId, type) : Status.Ok;
    },
    "env.proxy_set_effective_context": (contextId: number) => {
      if (!vm.roots.has(contextId) && !vm.streams.has(contextId)) return Status.BadArgument;
      vm.effectiveContextId = contextId;
      return Status.Ok;
    },
    "env.proxy_done": () => hooks().done(vm.effectiveContextId),

    // WASI functions Envoy implements for modules built for wasm32-wasi.
    "wasi_snapshot_preview1.fd_write": (fd: number, iovs: number, iovsLen: number, retWritten: number) => {
      if (fd !== 1 && fd !== 2) return 8; // BADF
      let text = "";
      let total = 0;
      const view = mem();
      for (let i = 0; i < iovsLen; i++) {
        const head = view.read(iovs + i * 8, 8);
        const dv = new DataView(head.buffer);
        const p = dv.getUint32(0, true);
        const l = dv.getUint32(4, true);
        text += view.readString(p, l);
        total += l;
      }
      vm.options.log(fd === 1 ? LogLevel.Info : LogLevel.Error, text.replace(/\n$/, ""), vm);
      view.writeU32(retWritten, total);
      return 0;
    },
    "wasi_snapshot_preview1.fd_read": () => 8,
    "wasi_snapshot_preview1.fd_seek": () => 8,
    "wasi_snapshot_preview1.fd_close": () => 8,
    "wasi_snapshot_preview1.fd_fdstat_get": () => 8,
    "wasi_snapshot_preview1.fd_prestat_get": () => 8,
    "wasi_snapshot_preview1.fd_prestat_dir_name": () => 8,
    "wasi_snapshot_preview1.environ_sizes_get": (retCount: number, retSize: number) => {
      mem().writeU32(retCount, 0);
      mem().writeU32(retSize, 0);
      return 0;
    },
    "wasi_snapshot_preview1.environ_get": () => 0,
    "wasi_snapshot_preview1.args_sizes_get": (retArgc: number, retSize: number) => {
      mem().writeU32(retArgc, 0);
      mem().writeU32(retSize, 0);
      return 0;
    },
    "wasi_snapshot_preview1.args_get": () => 0,
    "wasi_snapshot_preview1.clock_time_get": (clockId: number, _precision: bigint, retPtr: number) => {
      if (clockId !== 0 && clockId !== 1) return 58; // NOTSUP
      mem().writeU64(retPtr, vm.options.clock.nowNs());
      return 0;
    },
    "wasi_snapshot_preview1.random_get": (ptr: number, len: number) => {
      const bytes = crypto.getRandomValues(new Uint8Array(len >>> 0));
      mem().read(ptr, len); // bounds check
      new Uint8Array((vm.instance.exports.memory as WebAssembly.Memory).buffer).set(bytes, ptr >>> 0);
      return 0;
    },
    "wasi_snapshot_preview1.sched_yield": () => 0,
    "wasi_snapshot_preview1.poll_oneoff": () => 58,
    // Envoy logs proc_exit and carries on; it must not unwind the host.
    "wasi_snapshot_preview1.proc_exit": (code: number) => {
      vm.options.log(LogLevel.Warn, `proc_exit(${code}) ignored`, vm);
    },
  };

  const out: Record<string, WebAssembly.ImportValue> = {};
  for (const [name, fn] of Object.entries(fns)) out[name] = guarded(vm, name.split(".")[1], fn) as WebAssembly.ImportValue;
  return out;
}
