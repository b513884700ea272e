// What the gateway knows about its upstream clusters, as seen by the plugin host: the host list (with the
// health-check metrics Higress stores) and how to make an HTTP call to a cluster (proxy_http_call).
import type { HeaderList } from "./header-map.ts";

export interface UpstreamHost {
  /** "ip:port" */
  address: string;
  /** Health status name as Higress reports it; Higress's ai-load-balancer takes only "Healthy" hosts. */
  healthStatus: string;
  /** Body of the last /metrics health check, cut at 64 KiB (Higress store_metrics). */
  metrics: string;
}

export interface HttpCallRequest {
  headers: HeaderList;
  body: Uint8Array;
  trailers: HeaderList;
  timeoutMs: number;
}

export interface HttpCallResponse {
  headers: HeaderList;
  body: Uint8Array;
  trailers: HeaderList;
}

/**
 * How an HTTP call ended, as the cluster saw it. Envoy's async client turns these into the plugin's view
 * (envoy-calls/http-calls.ts proxy_http_call): a response is delivered whatever its status; `null` (no response: the
 * connection failed or was reset before response headers) becomes the router's local 503 reply, delivered
 * as a response too; only `"reset"` (reset after response headers, or a body over the buffer limit) is the
 * async client's onFailure, which the plugin sees as zero headers.
 */
export type HttpCallOutcome = HttpCallResponse | null | "reset";

export interface Cluster {
  readonly name: string;
  hosts(): UpstreamHost[];
  /** Sends an HTTP call and reports how it ended (see HttpCallOutcome). */
  dispatch?(req: HttpCallRequest, respond: (res: HttpCallOutcome) => void): void;
}

export class ClusterRegistry {
  private clusters = new Map<string, Cluster>();

  add(cluster: Cluster): this {
    this.clusters.set(cluster.name, cluster);
    return this;
  }
  get(name: string): Cluster | undefined {
    return this.clusters.get(name);
  }
  remove(name: string): void {
    this.clusters.delete(name);
  }
  /** Every cluster, in the order added (Envoy's admin /clusters lists them all). */
  all(): Cluster[] {
    return [...this.clusters.values()];
  }
}

/** A cluster with a fixed host list, for tests and the simulator. */
export class StaticCluster implements Cluster {
  constructor(
    readonly name: string,
    public hostList: UpstreamHost[] = [],
  ) {}
  hosts(): UpstreamHost[] {
    return this.hostList;
  }
}
