// Drives the built picker module through the plugin host for the fuzzer and the reliability tests: sends one
// request, and judges the outcome against the properties every request must satisfy whatever its input —
// no trap, the request goes upstream, and either exactly one decision (to a routable endpoint) or exactly one
// counted fail-open (no override at all).
import type { FilterStream } from "../host/filter-stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import { OVERRIDE_HEADER } from "../host/override-host.ts";
import type { PluginHost } from "../host/plugin-host.ts";

/** A value no client may route with; every fuzzed request carries it. */
export const CLIENT_OVERRIDE = "6.6.6.6:666";
const PREFIX = "endpoint_picker.";

export interface SendOptions {
  path?: string;
  headers?: HeaderList;
  clusterName?: string;
  worker?: number;
  /** Split the body into this many chunks (default 1). */
  chunks?: number;
}

/** Sends a POST with a JSON content type, the right Content-Length and a client override header. */
export function sendBody(host: PluginHost, body: Uint8Array, o: SendOptions = {}): FilterStream {
  const s = host.newStream({ clusterName: o.clusterName ?? "backends" }, o.worker);
  const defaults: HeaderList = [
    [":method", "POST"],
    [":path", o.path ?? "/v1/chat/completions"],
    [":authority", "gateway"],
    [":scheme", "http"],
    ["content-type", "application/json"],
    ["content-length", String(body.length)],
    [OVERRIDE_HEADER, CLIENT_OVERRIDE],
  ];
  const given = new Set((o.headers ?? []).map(([k]) => k.toLowerCase()));
  s.decodeHeaders([...defaults.filter(([k]) => !given.has(k)), ...(o.headers ?? [])], body.length === 0);
  if (body.length === 0) return s;
  const chunks = Math.max(1, Math.min(o.chunks ?? 1, body.length));
  const step = Math.ceil(body.length / chunks);
  for (let at = 0; at < body.length; at += step) s.decodeData(body.subarray(at, at + step), at + step >= body.length);
  return s;
}

/** Ends a stream the normal way: response headers, a small body, then on_log/on_done. */
export function completeStream(stream: FilterStream, status = 200): void {
  stream.encodeHeaders([[":status", String(status)]], false);
  stream.encodeData(new TextEncoder().encode("{}"), true);
  stream.finish();
}

/** The endpoint the plugin routed to: the Higress override host, or the stock build's header (if the plugin set it). */
export function chosenEndpoint(host: PluginHost, stream: FilterStream): string | null {
  if (host.flavor === "higress") return stream.overrideHost;
  const v = stream.requestHeaders.find(([k]) => k === OVERRIDE_HEADER)?.[1];
  return v === undefined ? null : v;
}

/** The plugin's counters and gauges, without the prefix. */
export function pickerCounters(host: PluginHost): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(host.stats())) if (k.startsWith(PREFIX) && typeof v === "number") out.set(k.slice(PREFIX.length), v);
  return out;
}

export interface Outcome {
  decisions: number;
  /** Fallback reasons whose counter moved, with how much. */
  fallbacks: Map<string, number>;
  chosen: string | null;
}

export function outcomeOf(host: PluginHost, stream: FilterStream, before: Map<string, number>): Outcome {
  const after = pickerCounters(host);
  const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
  const fallbacks = new Map<string, number>();
  for (const k of after.keys()) if (k.startsWith("fallback.") && delta(k) !== 0) fallbacks.set(k.slice(9), delta(k));
  return { decisions: delta("decisions"), fallbacks, chosen: chosenEndpoint(host, stream) };
}

/**
 * Violations of the per-request properties. `routable`: the endpoints a decision may name (null: any decision is
 * wrong, the plugin must fail open).
 */
export function requestViolations(host: PluginHost, stream: FilterStream, before: Map<string, number>, trapsBefore: number, routable: Set<string> | null): string[] {
  const v: string[] = [];
  const o = outcomeOf(host, stream, before);
  if (host.traps !== trapsBefore) v.push(`trap (${host.traps - trapsBefore})`);
  if (stream.requestState !== "forwarded") v.push(`request state ${stream.requestState}, not forwarded`);
  const fallbackMoves = [...o.fallbacks.values()].reduce((a, b) => a + b, 0);
  if (o.decisions + fallbackMoves !== 1 || o.fallbacks.size > 1 || o.decisions < 0) {
    v.push(`outcome counters: decisions +${o.decisions}, fallbacks ${JSON.stringify([...o.fallbacks])}`);
  }
  if (o.decisions === 1) {
    if (o.chosen === null) v.push("decision counted but no override set");
    else if (routable === null || !routable.has(o.chosen)) v.push(`override ${o.chosen} is not a routable endpoint`);
  } else if (o.chosen !== null) {
    v.push(`fail-open with an override: ${o.chosen}`);
  }
  if (stream.requestHeaders.some(([k, val]) => k === OVERRIDE_HEADER && val.includes(CLIENT_OVERRIDE))) v.push("client override header reached routing");
  if (o.fallbacks.size === 1) {
    const reason = [...o.fallbacks.keys()][0];
    const prop = new TextDecoder().decode(stream.state.properties.get("endpoint_picker.fallback") ?? new Uint8Array());
    if (prop !== reason) v.push(`fallback property "${prop}" but counter ${reason}`);
  }
  return v;
}
