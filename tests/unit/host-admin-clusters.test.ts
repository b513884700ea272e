// src-host/host/admin-clusters.ts and original-dst-cluster.ts: the admin's JSON shape and health flags
// (clusters_handler.cc writeClustersAsJson, setHealthFlag) and the ORIGINAL_DST header's address parsing
// (Network::Utility::parseInternetAddressAndPortNoThrow, v4 "ip:port" and v6 "[ip]:port" only).
import { test } from "node:test";
import assert from "node:assert/strict";
import { StaticCluster } from "../../src-host/host/cluster.ts";
import { adminHealthStatus, renderAdminClusters } from "../../src-host/host/admin-clusters.ts";
import { originalDstAddress } from "../../src-host/host/original-dst-cluster.ts";

test("the admin lists every cluster with its hosts' socket addresses and health flags", () => {
  const json = JSON.parse(renderAdminClusters([
    new StaticCluster("vllm", [
      { address: "10.0.0.1:8000", healthStatus: "Healthy", metrics: "" },
      { address: "[fd00::1]:8000", healthStatus: "Unhealthy", metrics: "" },
    ]),
    new StaticCluster("empty", []),
  ]));
  assert.deepEqual(json.cluster_statuses.map((c: { name: string }) => c.name), ["vllm", "empty"]);
  const [a, b] = json.cluster_statuses[0].host_statuses;
  assert.deepEqual(a.address, { socket_address: { address: "10.0.0.1", port_value: 8000 } });
  assert.deepEqual(a.health_status, { eds_health_status: "HEALTHY" });
  assert.deepEqual(b.address, { socket_address: { address: "fd00::1", port_value: 8000 } });
  assert.equal(b.health_status.failed_active_health_check, true);
  assert.equal(json.cluster_statuses[1].host_statuses, undefined, "no hosts: the repeated field is left out");
  // EDS_STATUS_DRAINING: eds_health_status DRAINING and no other flag.
  assert.deepEqual(adminHealthStatus("Draining"), { eds_health_status: "DRAINING" });
  // setHealthFlag: DEGRADED_ACTIVE_HC as failed_active_degraded_check, DEGRADED_EDS_HEALTH as eds_health_status.
  assert.deepEqual(adminHealthStatus("DegradedActiveHc"), { eds_health_status: "HEALTHY", failed_active_degraded_check: true });
  assert.deepEqual(adminHealthStatus("Degraded"), { eds_health_status: "DEGRADED" });
  assert.deepEqual(adminHealthStatus("PendingActiveHc"), { failed_active_health_check: true, eds_health_status: "HEALTHY", pending_active_hc: true });
});

test("x-envoy-original-dst-host takes an IP address and port only", () => {
  assert.equal(originalDstAddress("10.0.0.1:8000"), "10.0.0.1:8000");
  assert.equal(originalDstAddress("[FD00::1]:80"), "[fd00::1]:80");
  for (const bad of ["vllm:8000", "10.0.0.1", "10.0.0.256:80", "10.0.0.1:65536", "10.0.0.1:080", "fd00::1:80", ""]) {
    assert.equal(originalDstAddress(bad), null, bad);
  }
});
