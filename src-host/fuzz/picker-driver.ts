// Drives the built picker module through the plugin host for the fuzzer and the reliability tests: sends one
// request, and judges the outcome against the properties every request must satisfy whatever its input —
// no trap, the request goes upstream, and either exactly one decision (to a routable endpoint) or exactly one
// counted fail-open (no override at all).
import type { FilterStream } from "../host/filter-stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import { OVERRIDE_HEADER } from "../host/override-host.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { chosenEndpoint, requestHeaders, sendRequest } from "../harness/plugin-request.ts";
import { ROUTE_CLUSTER, type SendOptions } from "../harness/static-cluster-harness.ts";

/** A value no client may route with; every fuzzed request carries it. */
export const CLIENT_OVERRIDE = "6.6.6.6:666";
const PREFIX = "endpoint_picker.";

/** Sends a POST with a JSON content type, the right Content-Length and a client override header. */
export function sendBody(host: PluginHost, body: Uint8Array, o: SendOptions = {}): FilterStream {
  const extra = o.headers ?? [];
  const spoof: HeaderList = extra.some(([k]) => k.toLowerCase() === OVERRIDE_HEADER) ? [] : [[OVERRIDE_HEADER, CLIENT_OVERRIDE]];
  return sendRequest(host, requestHeaders(body.length, [...spoof, ...extra], o.path), body, { clusterName: ROUTE_CLUSTER, ...o });
}

/** The plugin's counters and gauges, without the prefix. */
export function pickerCounters(host: PluginHost): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(host.scrape())) if (k.startsWith(PREFIX) && typeof v === "number") out.set(k.slice(PREFIX.length), v);
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
