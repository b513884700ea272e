// One HTTP stream as the plugin host sees it: the header maps and bodies the plugin may read or change,
// and what the plugin decided (local reply, override host, paused or forwarded).
import type { CallData } from "./call-data.ts";
import { serializeArrivingHeaderMap, serializeHeaderMap, type HeaderList } from "./header-map.ts";
import { NO_BYTES } from "./no-bytes.ts";
import { NO_INLINE, REQUEST_HEADERS_INLINE } from "./inline-headers.ts";

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

/** Lower-cases keys as Envoy's header maps do: a new list, sharing the pairs whose key is lower case already (no
 *  pair is changed in place, by the maps or their callers). */
/** Headers as the codec adds them (http1 codec_impl.cc completeCurrentHeader → HeaderMapImpl::addViaMove →
 *  insertByKey): keys lower-cased, and a repeated inline header of the map type joined to the first with ",". */
export function normalizeHeaders(h: HeaderList, inline: ReadonlySet<string> = NO_INLINE): HeaderList {
  const out: HeaderList = [];
  for (let i = 0; i < h.length; i++) {
    const pair = h[i];
    // An inline set holds lower-case names only: a name found in it as it is needs no lower-casing (which allocates).
    let key = pair[0];
    let isInline = inline.has(key);
    if (!isInline) {
      key = key.toLowerCase();
      if (key !== pair[0]) isInline = inline.has(key);
    }
    if (isInline) {
      // The first entry of an inline header, found by a scan: a map per call cost more than scanning the few entries
      // (an inline name is in `out` at most once, and there are a few dozen inline names).
      const at = indexOfKey(out, key);
      if (at >= 0) {
        const old = out[at][1];
        if (pair[1] !== "") out[at] = [key, old === "" ? pair[1] : `${old},${pair[1]}`];
        continue;
      }
    }
    out.push(key === pair[0] ? pair : [key, pair[1]]);
  }
  return out;
}

function indexOfKey(list: HeaderList, key: string): number {
  for (let i = 0; i < list.length; i++) if (list[i][0] === key) return i;
  return -1;
}

export class HeaderMap {
  private list: HeaderList;
  // The map serialized (spec "Serialization"), or null until it is read after a change. Envoy's codec fills each
  // HeaderString with the bytes it parsed, for every request whatever its filters, and get_header_map_pairs copies
  // them out (cpp-host pairs_util.cc PairsUtil::marshalPairs, a memcpy per key and value): so headers off the wire are
  // serialized here, as they arrive (a cost of the host, not of the plugin), and a read is one copy into memory the
  // module allocated (writeTo). Maps the plugin changed are serialized again at their next read.
  private bytes: Uint8Array | null = null;

  /** `inline`: the map type's inline headers (inline-headers.ts). */
  constructor(
    pairs: HeaderList = [],
    private readonly inline: ReadonlySet<string> = NO_INLINE,
  ) {
    this.list = pairs;
  }

  /** The pairs, to read: changes go through the methods. */
  get pairs(): HeaderList {
    return this.list;
  }

  get(key: string): string | undefined {
    const k = key.toLowerCase();
    return this.list.find((pair) => pair[0] === k)?.[1];
  }
  // envoy header_map_impl.h HeaderList::insert: a header goes at the end, a pseudo-header (":...") before the first
  // regular one. An inline header that is there already gets the value appended instead (header_map_impl.cc
  // HeaderMapImpl::insertByKey, appendToHeader: "," between two non-empty values, nothing for an empty one).
  private insert(k: string, value: string): void {
    if (this.inline.has(k)) {
      const i = this.list.findIndex((pair) => pair[0] === k);
      if (i >= 0) {
        const old = this.list[i][1];
        if (value !== "") this.list[i] = [k, old === "" ? value : `${old},${value}`];
        return;
      }
    }
    const at = k.charCodeAt(0) === 0x3a ? this.list.findIndex((pair) => pair[0].charCodeAt(0) !== 0x3a) : -1;
    if (at < 0) this.list.push([k, value]);
    else this.list.splice(at, 0, [k, value]);
  }
  add(key: string, value: string): void {
    this.insert(key.toLowerCase(), value);
    this.changed();
  }
  /** header_map_impl.cc HeaderMapImpl::setCopy: every entry of the key goes, then the key is added as add() does. */
  replace(key: string, value: string): void {
    const k = key.toLowerCase();
    this.remove(k);
    this.insert(k, value);
    this.changed();
  }
  remove(key: string): void {
    const k = key.toLowerCase();
    // Index access, not [n] destructuring: destructuring runs the iterator protocol on every pair.
    if (this.list.some((pair) => pair[0] === k)) {
      this.list = this.list.filter((pair) => pair[0] !== k);
      this.changed();
    }
  }
  /** Replaces the whole map; `fromCodec` when the headers arrive off the wire (the codec's bytes: see `bytes`). A map the
   *  plugin sets is built as wasm context.cc Context::setHeaderMapPairs builds it, one add() per pair. */
  set(pairs: HeaderList, fromCodec = false): void {
    if (fromCodec) {
      this.list = normalizeHeaders(pairs, this.inline);
      this.bytes = serializeArrivingHeaderMap(this.list);
      return;
    }
    this.list = [];
    for (let i = 0; i < pairs.length; i++) this.insert(pairs[i][0].toLowerCase(), pairs[i][1]);
    this.bytes = null;
  }
  /** The serialized map; the caller must not change it. */
  serialized(): Uint8Array {
    return (this.bytes ??= serializeHeaderMap(this.list));
  }
  /** The size of the serialized map (cpp-host pairs_util.cc PairsUtil::pairsSize). */
  serializedSize(): number {
    return this.serialized().length;
  }
  /** Writes the serialized map (serializedSize() bytes) into `out` at `at` (PairsUtil::marshalPairs). */
  writeTo(out: Uint8Array, at: number): void {
    out.set(this.serialized(), at);
  }
  private changed(): void {
    this.bytes = null;
  }
}

export class StreamState {
  readonly requestHeaders = new HeaderMap([], REQUEST_HEADERS_INLINE);
  requestTrailers: HeaderMap | null = null;
  responseHeaders: HeaderMap | null = null;
  responseTrailers: HeaderMap | null = null;
  /** The request body the module reads and writes (DirectionState.body): its body callback's chunk, or the filter
   *  manager's buffer while buffering. */
  requestBody: Uint8Array = NO_BYTES;
  /** The response body the module reads and writes, as requestBody. */
  responseBody: Uint8Array = NO_BYTES;
  /** Envoy has a buffer behind requestBody / responseBody (context.cc Context::getBuffer: the filter manager's while
   *  buffering, else request_body_buffer_ / response_body_buffer_ from a body callback until it continues or, for
   *  the request, continue_stream). Without one the module reads an empty body and cannot write it. */
  requestBodyPresent = false;
  responseBodyPresent = false;
  localReply: LocalReply | null = null;
  /** Higress: the host named by proxy_set_upstream_override_host. */
  overrideHost: string | null = null;
  /** The host the router sent the request to, its last attempt's (`upstream.address`: upstreamInfo's upstreamHost,
   *  set per attempt by router.cc Filter::onUpstreamHostSelected); null before any. */
  upstreamAddress: string | null = null;
  /** Envoy's response flags so far (response-flags.ts). */
  responseFlags = 0;
  /** StreamInfo::responseCodeDetails() once the router or a filter set it (`response.code_details`), else null. */
  responseCodeDetails: string | null = null;
  readonly startedMs: number;
  /** When the request completed (StreamInfo::onRequestComplete, conn_manager_impl.cc doDeferredStreamDestroy's
   *  completeRequest, before the access log and the filters' destruction), or null while it runs. */
  completedMs: number | null = null;
  requestBodySize = 0;
  responseBodySize = 0;
  closedByPlugin = false;
  /** The filter still holds the request / response header map (envoy context.cc request_headers_ /
   *  response_headers_, dropped when its headers callback returns Continue; continue_stream, of either
   *  type, drops only the request one: Context::continueStream). */
  requestHeadersHeld = true;
  responseHeadersHeld = false;
  /** The filter holds the request trailers (context.cc request_trailers_: set by Context::decodeTrailers, dropped when
   *  its callback returns Continue and by continue_stream of either type). */
  requestTrailersHeld = false;
  /** The filter holds the response trailers (context.cc response_trailers_: set by Context::encodeTrailers, dropped when
   *  its callback returns Continue; continue_stream leaves it), or created them in the last response body callback. */
  responseTrailersHeld = false;
  /** The body callback running now when it is its direction's last (end_of_stream), else null: there a write to that
   *  direction's trailers creates them (context.cc Context::getMap: addDecodedTrailers / addEncodedTrailers when the
   *  filter has a body buffer and end_of_stream_). */
  lastBodyCallback: "request" | "response" | null = null;
  /** This context's CallData buffer (call-data.ts). */
  callData: CallData = NO_BYTES;
  /** During on_log (context.cc Context::log, access_log_phase_): reads see the access log's header maps. */
  accessLogPhase = false;
  /** Properties the plugin set on this stream, by their NUL-separated path; the map is made at the first set. */
  private setProperties: Map<string, Uint8Array> | null = null;

  constructor(
    readonly contextId: number,
    readonly info: StreamInfo,
    nowMs: number,
    /** The root context this stream was created under (its plugin's, cpp-host ContextBase::root_context_id_). */
    readonly rootId = 0,
  ) {
    this.startedMs = nowMs;
  }

  /** Properties the plugin set on this stream (Envoy keeps them as filter state, readable by access logs). */
  get properties(): ReadonlyMap<string, Uint8Array> {
    return this.setProperties ?? NO_PROPERTIES;
  }

  setProperty(path: string, value: Uint8Array): void {
    (this.setProperties ??= new Map()).set(path, value);
  }
}

const NO_PROPERTIES: ReadonlyMap<string, Uint8Array> = new Map();
