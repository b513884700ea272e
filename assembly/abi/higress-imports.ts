// The two host calls Higress adds to proxy-wasm. Stock Envoy lacks them and refuses to load a module that
// imports them, so only the Higress build may reference this file.

// Returns the cluster's hosts as a serialized header map (see header-map.ts): key "ip:port", value JSON
// {"health_status":"Healthy"|..., "metrics":"<Prometheus text of the last /metrics health check>"}.
@external("env", "proxy_get_upstream_hosts")
export declare function proxy_get_upstream_hosts(retPtr: usize, retLen: usize): i32;

// Sends the current request to "ip:port", bypassing the cluster's load balancer.
@external("env", "proxy_set_upstream_override_host")
export declare function proxy_set_upstream_override_host(hostPtr: usize, hostLen: usize): i32;
