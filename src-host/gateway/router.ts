// Picks the upstream host of a forwarded request, as the route's load balancer would once the filter has run:
// Higress honours the host set by proxy_set_upstream_override_host; stock Envoy's override_host policy reads the
// x-gateway-destination-endpoint request header; anything else goes to the fallback policy, round robin over
// the healthy hosts (over all hosts when none is healthy, like Envoy's panic mode).
import type { Cluster, UpstreamHost } from "../host/cluster.ts";
import { OVERRIDE_HEADER, selectHigressOverrideHost, selectOverrideHost } from "../host/override-host.ts";
import type { HeaderList } from "../host/header-map.ts";
import type { Flavor } from "../host/vm.ts";

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

  /** Round robin over the healthy hosts, or over all hosts when none is healthy. */
  roundRobin(hosts: UpstreamHost[]): UpstreamHost {
    const healthy = hosts.filter((h) => h.healthStatus === "Healthy");
    const pool = healthy.length ? healthy : hosts;
    return pool[this.next++ % pool.length];
  }
}

function headerValue(headers: HeaderList, name: string): string | null {
  for (const [k, v] of headers) if (k === name) return v;
  return null;
}
