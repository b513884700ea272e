import { AdminClusterHosts, HostState } from "../../assembly/endpoints/admin-clusters";

let held: ArrayBuffer = new ArrayBuffer(0);

function parse(hosts: AdminClusterHosts, doc: string, cluster: string = "vllm"): bool {
  held = String.UTF8.encode(doc);
  return hosts.parse(changetype<usize>(held), <usize>held.byteLength, cluster);
}

function addresses(hosts: AdminClusterHosts): string {
  const out = new Array<string>();
  for (let i = 0; i < hosts.count; i++) out.push(String.UTF8.decodeUnsafe(hosts.addressPtr(i), <usize>hosts.addressLen(i)));
  return out.join(",");
}

function states(hosts: AdminClusterHosts): string {
  const out = new Array<string>();
  for (let i = 0; i < hosts.count; i++) {
    const s = hosts.stateAt(i);
    out.push(s == HostState.Healthy ? "healthy" : s == HostState.Degraded ? "degraded" : s == HostState.Unhealthy ? "unhealthy" : "?");
  }
  return out.join(",");
}

function host(ip: string, port: i32, health: string = '{"eds_health_status": "HEALTHY"}'): string {
  return '{"address": {"socket_address": {"address": "' + ip + '", "port_value": ' + port.toString() + '}}, ' +
    '"stats": [{"name": "cx_connect_fail", "value": "0"}, {"type": "GAUGE", "name": "cx_active"}], ' +
    '"health_status": ' + health + ', "weight": 1, "locality": {}}';
}

function cluster(name: string, hosts: Array<string>): string {
  return '{"name": "' + name + '", "circuit_breakers": {"thresholds": [{"max_connections": 1024}, {"priority": "HIGH"}]}, ' +
    '"host_statuses": [' + hosts.join(", ") + "]}";
}

function admin(clusters: Array<string>): string {
  return '{\n "cluster_statuses": [\n' + clusters.join(",\n") + "\n ]\n}\n";
}

describe("AdminClusterHosts (Envoy's admin /clusters?format=json)", () => {
  it("reads the serving cluster's hosts as Envoy names them, and no other cluster's", () => {
    const h = new AdminClusterHosts(8);
    const doc = admin([
      cluster("envoy_admin", [host("127.0.0.1", 9901)]),
      cluster("vllm", [host("10.0.0.1", 8000), host("10.0.0.2", 8001), host("fd00::7", 8000)]),
      cluster("vllm_metrics", [host("10.0.0.1", 8000)]),
    ]);
    expect(parse(h, doc)).toBe(true);
    expect(addresses(h)).toBe("10.0.0.1:8000,10.0.0.2:8001,[fd00::7]:8000");
    expect(h.dropped).toBe(0);
  });

  it("reads every host with the state Envoy's health flags give it", () => {
    const h = new AdminClusterHosts(16);
    const doc = admin([cluster("vllm", [
      host("10.0.0.1", 8000, '{"failed_active_health_check": true, "eds_health_status": "HEALTHY"}'),
      host("10.0.0.2", 8000, '{"eds_health_status": "UNHEALTHY"}'),
      host("10.0.0.3", 8000, '{"eds_health_status": "DEGRADED"}'),
      host("10.0.0.4", 8000, '{"failed_outlier_check": true, "eds_health_status": "HEALTHY"}'),
      host("10.0.0.5", 8000, '{"pending_dynamic_removal": true, "eds_health_status": "HEALTHY"}'),
      host("10.0.0.6", 8000, '{"failed_active_health_check": false, "eds_health_status": "HEALTHY"}'),
      host("10.0.0.7", 8000, "{}"),
      host("10.0.0.8", 8000, '{"failed_active_degraded_check": true, "eds_health_status": "HEALTHY"}'),
      host("10.0.0.9", 8000, '{"failed_active_degraded_check": true, "failed_active_health_check": true, "eds_health_status": "DEGRADED"}'),
      host("10.0.0.10", 8000, '{"pending_active_hc": true, "eds_health_status": "HEALTHY"}'),
    ])]);
    expect(parse(h, doc)).toBe(true);
    expect(addresses(h)).toBe("10.0.0.1:8000,10.0.0.2:8000,10.0.0.3:8000,10.0.0.4:8000,10.0.0.5:8000,10.0.0.6:8000,10.0.0.7:8000,10.0.0.8:8000,10.0.0.9:8000,10.0.0.10:8000");
    expect(states(h)).toBe("unhealthy,unhealthy,degraded,unhealthy,unhealthy,healthy,healthy,degraded,unhealthy,unhealthy");
  });

  it("marks the hosts Envoy leaves out of its host count: pending a first check, excluded by one, or EDS DRAINING", () => {
    const h = new AdminClusterHosts(8);
    const doc = admin([cluster("vllm", [
      host("10.0.0.1", 8000, '{"eds_health_status": "DRAINING"}'),
      host("10.0.0.2", 8000, '{"eds_health_status": "UNHEALTHY"}'),
      host("10.0.0.3", 8000, '{"failed_active_health_check": true, "eds_health_status": "HEALTHY", "pending_active_hc": true}'),
      host("10.0.0.4", 8000, '{"failed_active_health_check": true, "excluded_via_immediate_hc_fail": true, "eds_health_status": "HEALTHY"}'),
      host("10.0.0.5", 8000, '{"pending_dynamic_removal": true, "eds_health_status": "HEALTHY"}'),
      host("10.0.0.6", 8000),
    ])]);
    expect(parse(h, doc)).toBe(true);
    expect(states(h)).toBe("unhealthy,unhealthy,unhealthy,unhealthy,unhealthy,healthy");
    const excluded = new Array<string>();
    for (let i = 0; i < h.count; i++) excluded.push(h.excludedAt(i) ? "excluded" : "counted");
    expect(excluded.join(",")).toBe("excluded,counted,excluded,excluded,counted,counted");
  });

  it("keeps a cluster's hosts listed before its name, and drops another's", () => {
    const h = new AdminClusterHosts(8);
    const doc = '{"cluster_statuses": [{"host_statuses": [' + host("10.0.0.9", 80) + '], "name": "other"}, ' +
      '{"host_statuses": [' + host("10.0.0.1", 80) + '], "name": "vllm"}]}';
    expect(parse(h, doc)).toBe(true);
    expect(addresses(h)).toBe("10.0.0.1:80");
  });

  it("counts hosts beyond its capacity, and lists an address once", () => {
    const h = new AdminClusterHosts(2);
    const doc = admin([cluster("vllm", [host("10.0.0.1", 80), host("10.0.0.1", 80), host("10.0.0.2", 80), host("10.0.0.3", 80)])]);
    expect(parse(h, doc)).toBe(true);
    expect(addresses(h)).toBe("10.0.0.1:80,10.0.0.2:80");
    expect(h.dropped).toBe(1);
  });

  it("takes a listed cluster without hosts as no endpoints", () => {
    const h = new AdminClusterHosts(4);
    expect(parse(h, '{"cluster_statuses": [{"name": "vllm", "circuit_breakers": {}}]}')).toBe(true);
    expect(h.count).toBe(0);
  });

  it("skips addresses that are not IP and port", () => {
    const h = new AdminClusterHosts(4);
    const doc = admin([cluster("vllm", [
      '{"address": {"pipe": {"path": "/tmp/s"}}, "health_status": {"eds_health_status": "HEALTHY"}}',
      host("vllm.default.svc", 80),
      host("10.0.0.1", 0),
      host("10.0.0.1", 70000),
      host("10.0.0.2", 80),
    ])]);
    expect(parse(h, doc)).toBe(true);
    expect(addresses(h)).toBe("10.0.0.2:80");
  });

  it("fails on anything else, leaving nothing read", () => {
    const h = new AdminClusterHosts(4);
    expect(parse(h, admin([cluster("vllm", [host("10.0.0.1", 80)])]))).toBe(true);
    expect(parse(h, admin([cluster("other", [host("10.0.0.1", 80)])]))).toBe(false);
    expect(h.count).toBe(0);
    expect(parse(h, "vllm::10.0.0.1:80::health_flags::healthy\n")).toBe(false);
    expect(parse(h, '{"cluster_statuses": [{"name": "vllm", "host_statuses": [' + host("10.0.0.1", 80))).toBe(false);
    expect(h.count).toBe(0);
    expect(parse(h, '{"clusters": []}')).toBe(false);
    expect(parse(h, "")).toBe(false);
  });
});
