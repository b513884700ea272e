// Envoy's admin `GET /clusters?format=json` from the clusters' state (envoy source/server/admin/clusters_handler.cc
// ClustersHandler::writeClustersAsJson): an envoy.admin.v3.Clusters message as JSON, proto field names kept and
// default values left out (MessageUtil::getJsonStringFromMessageOrError, pretty-printed). Per cluster its name, its
// circuit breakers and its hosts; per host its address, stats, health flags (setHealthFlag: eds_health_status always,
// each other flag when set), weight. Without format=json the handler writes its text form, which nothing here reads:
// this answers it 400. The admin listener is reached as a cluster (`AdminCluster`), as an Envoy configuration reaches
// it with a static cluster pointing at the admin address.
import type { Cluster, HttpCallOutcome, HttpCallRequest, UpstreamHost } from "./cluster.ts";
import { splitAddress } from "./split-address.ts";

/**
 * A host's health flags as the admin reports them, from its health status name (as Higress reports it, plus the
 * states only Envoy's active health checker gives a host: "DegradedActiveHc", DEGRADED_ACTIVE_HC, a check answered
 * with x-envoy-degraded; "PendingActiveHc", a host added to a health-checked cluster and not checked yet, which
 * upstream_impl.cc BaseDynamicClusterImpl::updateDynamicHostList marks FAILED_ACTIVE_HC, and PENDING_ACTIVE_HC with
 * warm hosts). "Degraded" is EDS's DEGRADED (DEGRADED_EDS_HEALTH).
 */
export function adminHealthStatus(health: string): Record<string, unknown> {
  switch (health) {
    case "Healthy":
      return { eds_health_status: "HEALTHY" };
    case "Degraded":
      return { eds_health_status: "DEGRADED" };
    case "DegradedActiveHc":
      return { eds_health_status: "HEALTHY", failed_active_degraded_check: true };
    case "PendingActiveHc":
      return { failed_active_health_check: true, eds_health_status: "HEALTHY", pending_active_hc: true };
    case "Timeout":
      return { failed_active_health_check: true, eds_health_status: "HEALTHY", active_hc_timeout: true };
    // EDS DRAINING sets EDS_STATUS_DRAINING (upstream_impl.cc HostImplBase::setEdsHealthFlag, runtime guard
    // exclude_host_in_eds_status_draining, on by default), which setHealthFlag prints after the FAILED_EDS_HEALTH /
    // DEGRADED_EDS_HEALTH case and so overrides its HEALTHY. Envoy before that set FAILED_EDS_HEALTH: UNHEALTHY.
    case "Draining":
      return { eds_health_status: "DRAINING" };
    default:
      return { failed_active_health_check: true, eds_health_status: "HEALTHY" };
  }
}

function socketAddress(address: string): { address: string; port_value: number } {
  const { hostname, port } = splitAddress(address);
  return { address: hostname, port_value: port };
}

function hostStatus(h: UpstreamHost): Record<string, unknown> {
  return {
    address: { socket_address: socketAddress(h.address) },
    stats: [
      { name: "cx_connect_fail", value: "0" },
      { name: "rq_total", value: "0" },
      { type: "GAUGE", name: "cx_active" },
    ],
    health_status: adminHealthStatus(h.healthStatus),
    weight: 1,
    locality: {},
  };
}

export function renderAdminClusters(clusters: readonly Cluster[]): string {
  const thresholds = [
    { max_connections: 1024, max_pending_requests: 1024, max_requests: 1024, max_retries: 3 },
    { priority: "HIGH", max_connections: 1024, max_pending_requests: 1024, max_requests: 1024, max_retries: 3 },
  ];
  const statuses = clusters.map((c) => {
    const hosts = c.hosts();
    return hosts.length === 0
      ? { name: c.name, circuit_breakers: { thresholds } }
      : { name: c.name, circuit_breakers: { thresholds }, host_statuses: hosts.map(hostStatus) };
  });
  return JSON.stringify({ cluster_statuses: statuses }, null, 1) + "\n";
}

/** The admin listener, reached as a cluster; it answers /clusters?format=json from `clusters()`. */
export class AdminCluster implements Cluster {
  constructor(
    readonly name: string,
    private readonly clusters: () => readonly Cluster[],
  ) {}

  hosts(): UpstreamHost[] {
    return [];
  }

  dispatch(req: HttpCallRequest, respond: (res: HttpCallOutcome) => void): void {
    const path = req.headers.find(([k]) => k === ":path")?.[1] ?? "/";
    const url = new URL(path, "http://admin");
    const enc = new TextEncoder();
    if (url.pathname !== "/clusters" || url.searchParams.get("format") !== "json") {
      const body = enc.encode("only /clusters?format=json is served here\n");
      respond({ headers: [[":status", url.pathname === "/clusters" ? "400" : "404"], ["content-type", "text/plain"]], body, trailers: [] });
      return;
    }
    const body = enc.encode(renderAdminClusters(this.clusters()));
    respond({ headers: [[":status", "200"], ["content-type", "application/json"]], body, trailers: [] });
  }
}
