// One request through a plugin host as Envoy feeds it: the request headers a client sends, the body (whole or in
// chunks), and the normal end of the stream; and where the plugin sent it.
import type { FilterStream } from "../host/filter-stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import { OVERRIDE_HEADER } from "../host/override-host.ts";
import type { PluginHost } from "../host/plugin-host.ts";

const enc = new TextEncoder();

export interface RequestOptions {
  worker?: number;
  /** Split the body into this many chunks (default 1). */
  chunks?: number;
  /** The stream's route cluster (default none: the stock build names its endpoints itself). */
  clusterName?: string;
  /** The downstream protocol (request.protocol); "HTTP/3" streams are logged after their filters go. */
  protocol?: string;
}

/** A JSON POST's request headers as a client sends them; `extra` replace the defaults of the same name. */
export function requestHeaders(length: number, extra: HeaderList = [], path = "/v1/chat/completions"): HeaderList {
  const defaults: HeaderList = [
    [":method", "POST"],
    [":path", path],
    [":authority", "gateway"],
    [":scheme", "http"],
    ["content-type", "application/json"],
    ["content-length", String(length)],
  ];
  const given = new Set(extra.map(([k]) => k.toLowerCase()));
  return [...defaults.filter(([k]) => !given.has(k)), ...extra];
}

/** Sends the request headers, then the body (nothing after a local reply); the stream then holds the decision. */
export function sendRequest(host: PluginHost, headers: HeaderList, body: Uint8Array, o: RequestOptions = {}): FilterStream {
  const s = host.newStream({ clusterName: o.clusterName, protocol: o.protocol }, o.worker);
  s.decodeHeaders(headers, body.length === 0);
  const chunks = Math.max(1, Math.min(o.chunks ?? 1, body.length));
  const step = Math.ceil(body.length / chunks);
  // One chunk is the body itself, not a view of it.
  if (chunks === 1) {
    if (body.length > 0 && s.requestState !== "local-reply") s.decodeData(body, true);
    return s;
  }
  for (let at = 0; at < body.length && s.requestState !== "local-reply"; at += step) {
    s.decodeData(body.subarray(at, at + step), at + step >= body.length);
  }
  return s;
}

/** Ends a stream the normal way: response headers, a small body, then on_log/on_done. */
export function completeStream(stream: FilterStream, status = 200): void {
  stream.encodeHeaders([[":status", String(status)]], false);
  stream.encodeData(enc.encode("{}"), true);
  stream.finish();
}

/** The endpoint the plugin routed to: the Higress override host, or the stock build's header (if it set one). */
export function chosenEndpoint(host: PluginHost, stream: FilterStream): string | null {
  if (host.flavor === "higress") return stream.overrideHost;
  return stream.requestHeaders.find(([k]) => k === OVERRIDE_HEADER)?.[1] ?? null;
}
