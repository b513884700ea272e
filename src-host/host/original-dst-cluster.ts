// An ORIGINAL_DST cluster with original_dst_lb_config.use_http_header, as proxy_http_call reaches it: the upstream
// host is the one the call's request header names (envoy source/extensions/clusters/original_dst/
// original_dst_cluster.cc OriginalDstCluster::LoadBalancer::chooseHost and requestOverrideHost: the first value of
// http_header_name, by default x-envoy-original-dst-host, parsed as "ip:port" or "[ipv6]:port" by
// Network::Utility::parseInternetAddressAndPortNoThrow; a new address becomes a host at once, addHost). An async
// call's router sees the call's own headers as its downstream headers (common/http/async_client_impl.cc
// AsyncStreamImpl::sendHeaders hands them to router_.decodeHeaders), so the plugin picks the pod per call. No header,
// or one that is not an IP address and port: chooseHost returns no host and the router answers its local 503
// "no healthy upstream" (router.cc Filter::decodeHeaders, sendNoHealthyUpstreamResponse).
import type { Cluster, HttpCallOutcome, HttpCallRequest, UpstreamHost } from "./cluster.ts";
import { localReplyHeaders } from "./local-reply-headers.ts";

export const ORIGINAL_DST_HOST_HEADER = "x-envoy-original-dst-host";

/** Sends a call to the host at `address` ("ip:port", "[ipv6]:port"). */
export type ReachHost = (address: string, req: HttpCallRequest, respond: (res: HttpCallOutcome) => void) => void;

const NO_HEALTHY_UPSTREAM = new TextEncoder().encode("no healthy upstream");

/** The address as Envoy names the host parsed from the header, or null when it is not an IP address and port. */
export function originalDstAddress(value: string): string | null {
  const m = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9a-fA-F:.]+)\]):(\d{1,5})$/.exec(value);
  if (m === null) return null;
  const port = Number(m[3]);
  if (port > 65535 || String(port) !== m[3]) return null;
  if (m[1] !== undefined) return m[1].split(".").every((o) => Number(o) <= 255 && String(Number(o)) === o) ? value : null;
  return `[${m[2].toLowerCase()}]:${port}`;
}

export class OriginalDstCluster implements Cluster {
  /** The hosts created so far (Envoy's host map; its cleanup of idle hosts is not modelled). */
  private readonly created = new Map<string, UpstreamHost>();

  constructor(
    readonly name: string,
    private readonly reach: ReachHost,
    private readonly headerName: string = ORIGINAL_DST_HOST_HEADER,
  ) {}

  hosts(): UpstreamHost[] {
    return [...this.created.values()];
  }

  dispatch(req: HttpCallRequest, respond: (res: HttpCallOutcome) => void): void {
    const value = req.headers.find(([k]) => k.toLowerCase() === this.headerName)?.[1];
    const address = value === undefined ? null : originalDstAddress(value);
    if (address === null) {
      respond({ headers: localReplyHeaders(503, [], NO_HEALTHY_UPSTREAM.length), body: NO_HEALTHY_UPSTREAM, trailers: [] });
      return;
    }
    if (!this.created.has(address)) this.created.set(address, { address, healthStatus: "Healthy", metrics: "" });
    this.reach(address, req, respond);
  }
}
