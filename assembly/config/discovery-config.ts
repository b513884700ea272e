// The `discovery.*` settings (stock Envoy build): the endpoints are learned from Envoy's admin /clusters instead of
// listed in `endpoints`; the keys that fill them are in discovery-section.ts.
export const DEFAULT_DISCOVERY_PATH = "/clusters?format=json";
/** The request header an ORIGINAL_DST cluster with `use_http_header` reads its upstream host from (Envoy's default
 *  http_header_name: original_dst_cluster.cc OriginalDstCluster constructor, Http::Headers EnvoyOriginalDstHost). */
export const ORIGINAL_DST_HOST_HEADER = "x-envoy-original-dst-host";

export class DiscoveryConfig {
  /** The Envoy cluster whose endpoint is Envoy's admin listener; "" disables discovery. */
  cluster: string = "";
  path: string = DEFAULT_DISCOVERY_PATH;
  /** The cluster whose hosts are the endpoints (the route's cluster, kept up to date by Envoy: EDS, STRICT_DNS). */
  servingCluster: string = "";
  /** An ORIGINAL_DST cluster with original_dst_lb_config.use_http_header: each endpoint's /metrics goes through it. */
  metricsCluster: string = "";
  intervalMs: i32 = 1000;
  timeoutMs: i32 = 800;
  /** A longer admin answer is a failed poll (the last known endpoints stay). */
  maxBodyBytes: i32 = 1048576;
  /** Any discovery.* key was given (then cluster, servingCluster and metricsCluster are required). */
  seen: bool = false;

  get enabled(): bool {
    return this.cluster.length > 0;
  }

  copyFrom(o: DiscoveryConfig): void {
    this.cluster = o.cluster;
    this.path = o.path;
    this.servingCluster = o.servingCluster;
    this.metricsCluster = o.metricsCluster;
    this.intervalMs = o.intervalMs;
    this.timeoutMs = o.timeoutMs;
    this.maxBodyBytes = o.maxBodyBytes;
    this.seen = o.seen;
  }
}
