// One HTTP stream as the plugin host sees it: the header maps and bodies the plugin may read or change,
// and what the plugin decided (local reply, override host, paused or forwarded).
import type { HeaderList } from "./header-map.ts";

export interface LocalReply {
  status: number;
  details: string;
  body: Uint8Array;
  headers: HeaderList;
  grpcStatus: number;
}

export interface StreamInfo {
  /** The cluster the route sends this stream to (Higress's get_upstream_hosts reads its hosts). */
  clusterName?: string;
  /** Connection and request facts served as properties (source.address, request.protocol, ...). */
  sourceAddress?: string;
  sourcePort?: number;
  destinationAddress?: string;
  destinationPort?: number;
  protocol?: string;
  connectionId?: number;
  routeName?: string;
}

/** Lower-cases keys as Envoy's header maps do. */
export function normalizeHeaders(h: HeaderList): HeaderList {
  return h.map((pair) => [pair[0].toLowerCase(), pair[1]]);
}

export class HeaderMap {
  constructor(public pairs: HeaderList = []) {}

  get(key: string): string | undefined {
    const k = key.toLowerCase();
    return this.pairs.find((pair) => pair[0] === k)?.[1];
  }
  add(key: string, value: string): void {
    this.pairs.push([key.toLowerCase(), value]);
  }
  replace(key: string, value: string): void {
    const k = key.toLowerCase();
    const i = this.pairs.findIndex((pair) => pair[0] === k);
    this.remove(k);
    if (i < 0) this.pairs.push([k, value]);
    else this.pairs.splice(Math.min(i, this.pairs.length), 0, [k, value]);
  }
  remove(key: string): void {
    const k = key.toLowerCase();
    // Index access, not [n] destructuring: destructuring runs the iterator protocol on every pair.
    if (this.pairs.some((pair) => pair[0] === k)) this.pairs = this.pairs.filter((pair) => pair[0] !== k);
  }
  set(pairs: HeaderList): void {
    this.pairs = normalizeHeaders(pairs);
  }
}

export class StreamState {
  readonly requestHeaders = new HeaderMap();
  requestTrailers: HeaderMap | null = null;
  responseHeaders: HeaderMap | null = null;
  responseTrailers: HeaderMap | null = null;
  /** Request body the host holds for the plugin (cumulative while buffering). */
  requestBody: Uint8Array = new Uint8Array(0);
  /** Response body chunk (cumulative while buffering). */
  responseBody: Uint8Array = new Uint8Array(0);
  localReply: LocalReply | null = null;
  /** Higress: the host named by proxy_set_upstream_override_host. */
  overrideHost: string | null = null;
  readonly startedMs: number;
  requestBodySize = 0;
  responseBodySize = 0;
  closedByPlugin = false;
  /** The filter still holds the request / response header map (envoy context.cc request_headers_ /
   *  response_headers_, dropped when its headers callback returns Continue; continue_stream, of either
   *  type, drops only the request one: Context::continueStream). */
  requestHeadersHeld = true;
  responseHeadersHeld = false;
  /** During on_log (context.cc Context::log, access_log_phase_): reads see the access log's header maps. */
  accessLogPhase = false;
  /** Properties the plugin set on this stream (Envoy keeps them as filter state, readable by access logs). */
  readonly properties = new Map<string, Uint8Array>();

  constructor(
    readonly contextId: number,
    readonly info: StreamInfo,
    nowMs: number,
  ) {
    this.startedMs = nowMs;
  }
}
