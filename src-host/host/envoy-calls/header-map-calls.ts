// Header maps (proxy_get_header_map_*, proxy_set_header_map_pairs, proxy_add/replace/remove_header_map_value)
// with Envoy's availability rules: which map exists in which callback, and which is writable.
import { MapType, Status } from "../abi.ts";
import { toPairs } from "../header-map.ts";
import { HeaderMap } from "../stream.ts";
import { NO_INLINE, RESPONSE_TRAILERS_INLINE } from "../inline-headers.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function headerMapCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, stream, ret } = scope;

  // context.cc Context::getMap / getConstMap: the stream's header maps exist only while the filter holds
  // them (a headers callback that returned Continue, or continue_stream, drops them). In on_log reads
  // (getConstMap) see the access log's copies, but writes (getMap ignores access_log_phase_) reach a map
  // only if the filter still holds it.
  function headerMap(type: number, write = false): HeaderMap | null | undefined {
    // undefined: unknown map type; null: known but not available now.
    const s = stream();
    switch (type) {
      case MapType.HttpRequestHeaders:
        if (!s) return null;
        if (s.accessLogPhase && !write) return s.requestHeaders;
        return s.requestHeadersHeld ? s.requestHeaders : null;
      // getConstMap: none in the access-log phase; otherwise, as getMap, while the filter holds them. getMap (a write, or
      // the size) in the last request body callback adds empty ones (FilterManager::addDecodedTrailers), held from then.
      case MapType.HttpRequestTrailers:
        if (!s || (s.accessLogPhase && !write)) return null;
        if (write && !s.requestTrailersHeld && s.lastBodyCallback === "request") {
          s.requestTrailers = new HeaderMap([], NO_INLINE);
          s.requestTrailersHeld = true;
        }
        return s.requestTrailersHeld ? s.requestTrailers : null;
      case MapType.HttpResponseHeaders:
        if (!s) return null;
        if (s.accessLogPhase && !write) return s.responseHeaders;
        return s.responseHeadersHeld ? s.responseHeaders : null;
      // getConstMap in the access-log phase: the access log's (the trailers that went downstream, if any). Otherwise
      // getMap: response_trailers_, set by Context::encodeTrailers until its Continue; in the last response body callback
      // (end_of_stream, so none came from upstream) it adds empty ones (FilterManager::addEncodedTrailers), held from then.
      case MapType.HttpResponseTrailers:
        if (!s) return null;
        if (s.accessLogPhase && !write) return s.responseTrailers;
        if (write && !s.responseTrailersHeld && s.responseTrailers === null && s.lastBodyCallback === "response") {
          s.responseTrailers = new HeaderMap([], RESPONSE_TRAILERS_INLINE);
          s.responseTrailersHeld = true;
        }
        return s.responseTrailersHeld ? s.responseTrailers : null;
      case MapType.HttpCallResponseHeaders:
      case MapType.HttpCallResponseTrailers: {
        const r = vm.callResponseFor(vm.effectiveContextId);
        if (r === null) return null;
        return new HeaderMap(type === MapType.HttpCallResponseHeaders ? r.headers : r.trailers);
      }
      case MapType.GrpcCallInitialMetadata:
      case MapType.GrpcCallTrailingMetadata:
        return null;
    }
    return undefined;
  }
  const writableMap = (type: number) => type <= MapType.HttpResponseTrailers;

  return {
    // context.cc Context::getHeaderMapSize: only the stream's own (mutable) maps, measured as Envoy's
    // HeaderMap::byteSize() (key and value bytes), not as the serialized size.
    "env.proxy_get_header_map_size": (type: number, retSize: number) => {
      const m = writableMap(type) ? headerMap(type, true) : null;
      if (m === undefined || m === null) return Status.BadArgument;
      // The serialized map less its count, the two lengths of each pair and the two NULs after them.
      mem().writeU32(retSize, m.serializedSize() - 4 - 10 * m.pairs.length);
      return Status.Ok;
    },
    // context.cc Context::getHeaderMapPairs: always Ok; a map that is not available now reads as empty.
    // cpp-host exports.cc get_header_map_pairs returns an empty map as zero bytes; otherwise it marshals the map
    // (PairsUtil::pairsSize, marshalPairs) into memory allocated in the module (refused => InvalidMemoryAccess).
    "env.proxy_get_header_map_pairs": (type: number, retPtr: number, retLen: number) => {
      const m = headerMap(type);
      if (m === undefined) return Status.BadArgument;
      if (m === null || m.pairs.length === 0) return ret(retPtr, retLen, "");
      return mem().returnCopy(retPtr, retLen, m.serialized()) ? Status.Ok : Status.InvalidMemoryAccess;
    },
    // cpp-host exports.cc set_header_map_pairs reads the map with PairsUtil::toPairs: a malformed one is
    // empty, so Context::setHeaderMapPairs clears the map and returns Ok.
    "env.proxy_set_header_map_pairs": (type: number, ptr: number, len: number) => {
      const m = headerMap(type, true);
      if (m === undefined || m === null || !writableMap(type)) return Status.BadArgument;
      m.set(toPairs(mem().read(ptr, len)));
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
  };
}
