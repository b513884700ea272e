// Picks the upstream host of a forwarded request, as the route's load balancer would once the filter has run:
// Higress honours the host set by proxy_set_upstream_override_host; stock Envoy's override_host policy reads the
// x-gateway-destination-endpoint request header; anything else goes to the fallback policy, round robin over the
// hosts Envoy's balancer would use: the healthy ones, the degraded ones for the share the healthy ones fall short of,
// all in panic (host/priority-load.ts). Envoy draws that share at random per request; this draws 1..100 in turn.
import type { Cluster, UpstreamHost } from "../host/cluster.ts";
import { OVERRIDE_HEADER, selectHigressOverrideHost, selectOverrideHost } from "../host/override-host.ts";
import type { HeaderList } from "../host/header-map.ts";
import type { Flavor } from "../host/vm.ts";
import { hostsForDraw } from "../host/priority-load.ts";

export type RouteReason =
  | "override"
  | "fallback:no-override"
  | "fallback:override-unknown-host"
  | "fallback:override-unhealthy-host"
  | "no-plugin";

export interface Route {
  host: UpstreamHost;
  reason: RouteReason;
}

/** What the router needs from a stream once the plugin ran. */
export interface RoutedStream {
  readonly overrideHost: string | null;
  readonly requestHeaders: HeaderList;
}

export class Router {
  private next = 0;
  private draws = 0;

  constructor(
    readonly cluster: Cluster,
    /** The plugin's flavor, or null when the gateway runs without a plugin. */
    readonly flavor: Flavor | null,
  ) {}

  /** The host for this request, or null when the cluster has no hosts at all. */
  route(stream: RoutedStream | null): Route | null {
    const hosts = this.cluster.hosts();
    if (hosts.length === 0) return null;
    if (this.flavor === null || stream === null) return { host: this.roundRobin(hosts), reason: "no-plugin" };
    const requested = this.flavor === "higress" ? stream.overrideHost : headerValue(stream.requestHeaders, OVERRIDE_HEADER);
    if (!requested) return { host: this.roundRobin(hosts), reason: "fallback:no-override" };
    const chosen = this.flavor === "higress" ? selectHigressOverrideHost(requested, hosts) : selectOverrideHost(requested, hosts);
    if (chosen) return { host: chosen, reason: "override" };
    const named = requested.split(",").map((s) => s.trim());
    const known = hosts.some((h) => named.includes(h.address));
    return { host: this.roundRobin(hosts), reason: known ? "fallback:override-unhealthy-host" : "fallback:override-unknown-host" };
  }

  /** Round robin over the hosts Envoy's balancer uses for this request's draw. */
  roundRobin(hosts: UpstreamHost[]): UpstreamHost {
    const pool = hostsForDraw(hosts, (this.draws++ % 100) + 1);
    return pool[this.next++ % pool.length];
  }
}

function headerValue(headers: HeaderList, name: string): string | null {
  for (const [k, v] of headers) if (k === name) return v;
  return null;
}
