// Properties Envoy serves through proxy_get_property. The path arrives as segments split by NUL bytes
// ("request\0path"); strings come back as their UTF-8 bytes, integers, timestamps and durations as 8-byte
// little-endian int64 (timestamps in ns since the epoch, durations in ns), maps as serialized header maps.
import type { StreamState } from "./stream.ts";
import type { Flavor } from "./vm.ts";

const enc = new TextEncoder();

function int64(v: bigint | number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, BigInt(v), true);
  return out;
}

export interface PluginIdentity {
  pluginName: string;
  rootId: string;
  vmId: string;
}

/** Resolves a property path for the given stream (or none, for root contexts). Returns null when absent. */
export function resolveProperty(
  segments: string[],
  plugin: PluginIdentity,
  stream: StreamState | null,
  custom: ReadonlyMap<string, Uint8Array>,
  flavor: Flavor,
): Uint8Array | null {
  const path = segments.join(".");
  const set = custom.get(segments.join("\0"));
  if (set) return set;
  switch (path) {
    case "plugin_name":
      return enc.encode(plugin.pluginName);
    case "plugin_root_id":
      return enc.encode(plugin.rootId);
    case "plugin_vm_id":
      return enc.encode(plugin.vmId);
  }
  if (!stream) return null;
  const h = stream.requestHeaders;
  const str = (v: string | undefined) => (v === undefined ? null : enc.encode(v));
  const pathHeader = h.get(":path");
  switch (path) {
    case "request.path":
      return str(pathHeader);
    case "request.url_path":
      return str(pathHeader?.split("?")[0]);
    // filters/common/expr/context.cc RequestWrapper: the query stops at a fragment.
    case "request.query": {
      const q = pathHeader?.indexOf("?") ?? -1;
      return q < 0 ? enc.encode("") : enc.encode(pathHeader!.slice(q + 1).split("#")[0]);
    }
    case "request.host":
      return str(h.get(":authority"));
    case "request.scheme":
      return str(h.get(":scheme"));
    case "request.method":
      return str(h.get(":method"));
    case "request.headers":
      return h.serialized();
    case "request.referer":
      return str(h.get("referer"));
    case "request.useragent":
      return str(h.get("user-agent"));
    case "request.id":
      return str(h.get("x-request-id"));
    case "request.protocol":
      return str(stream.info.protocol ?? "HTTP/1.1");
    case "request.time":
      return int64(BigInt(Math.round(stream.startedMs)) * 1_000_000n);
    // filters/common/expr/context.cc RequestWrapper Duration: info_.requestComplete(), nothing before.
    case "request.duration":
      return stream.completedMs === null ? null : int64(BigInt(Math.max(0, Math.round(stream.completedMs - stream.startedMs))) * 1_000_000n);
    // RequestWrapper Size: the Content-Length header when there is one (nothing when it is not a number), else the
    // bytes received; TotalSize: the bytes received and the headers' byteSize() (key and value bytes).
    case "request.size": {
      const length = h.get("content-length");
      if (length === undefined) return int64(stream.requestBodySize);
      return /^[+-]?\d+$/.test(length.trim()) && Number.isSafeInteger(Number(length)) ? int64(Number(length)) : null;
    }
    case "request.total_size": {
      let size = stream.requestBodySize;
      for (const [k, v] of h.pairs) size += k.length + v.length;
      return int64(size);
    }
    case "response.code": {
      const s = stream.responseHeaders?.get(":status");
      return s === undefined ? null : int64(Number(s));
    }
    case "response.headers":
      return stream.responseHeaders?.serialized() ?? null;
    case "response.size":
      return int64(stream.responseBodySize);
    // filters/common/expr/context.cc: Flags is always an int64; upstream.address only once a host was chosen.
    case "response.flags":
      return int64(stream.responseFlags);
    // ResponseWrapper CodeDetails: only once details were set.
    case "response.code_details":
      return str(stream.responseCodeDetails ?? undefined);
    case "upstream.address":
      return str(stream.upstreamAddress ?? undefined);
    case "source.address":
      return stream.info.sourceAddress ? enc.encode(`${stream.info.sourceAddress}:${stream.info.sourcePort ?? 0}`) : null;
    case "source.port":
      return stream.info.sourcePort === undefined ? null : int64(stream.info.sourcePort);
    case "destination.address":
      return stream.info.destinationAddress
        ? enc.encode(`${stream.info.destinationAddress}:${stream.info.destinationPort ?? 0}`)
        : null;
    case "destination.port":
      return stream.info.destinationPort === undefined ? null : int64(stream.info.destinationPort);
    // context.cc Context::findValue keeps the top-level connection_id token too.
    case "connection.id":
    case "connection_id":
      return stream.info.connectionId === undefined ? null : int64(stream.info.connectionId);
    // filters/common/expr/context.cc XDSWrapper: the route entry's name and the upstream cluster's.
    case "xds.cluster_name":
      return str(stream.info.clusterName);
    case "xds.route_name":
      return str(stream.info.routeName);
    // Only Higress's Envoy still has the top-level tokens (higress-group/envoy wasm/context.cc PropertyToken
    // ROUTE_NAME, CLUSTER_NAME; wasm-go's RuleMatcher reads them). Envoy 1.33 dropped them from PROPERTY_TOKENS
    // (envoyproxy/envoy#36619): stock Envoy answers NotFound.
    case "cluster_name":
      return flavor === "higress" ? str(stream.info.clusterName) : null;
    case "route_name":
      return flavor === "higress" ? str(stream.info.routeName) : null;
  }
  return null;
}
