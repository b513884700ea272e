// What the gateway knows about its upstream clusters, as seen by the plugin host: the host list (with the
// health-check metrics Higress stores) and how to make an HTTP call to a cluster (proxy_http_call).
import type { HeaderList } from "./header-map.ts";

export interface UpstreamHost {
  /** "ip:port" */
  address: string;
  /** Envoy health status name as Higress reports it: "Healthy", "Unhealthy", "Degraded", "Timeout", ... */
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

export interface Cluster {
  readonly name: string;
  hosts(): UpstreamHost[];
  /** Sends an HTTP call; `respond(null)` means the call failed (connection error or reset). */
  dispatch?(req: HttpCallRequest, respond: (res: HttpCallResponse | null) => void): void;
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
