// Higress `ai-load-balancer` configurations (alibaba/higress plugins/wasm-go/extensions/ai-load-balancer:
// main.go parseConfig, and each policy's New*LoadBalancer in */lb_policy.go). What means the same here is
// accepted by the schema (lb_type "endpoint", lb_policy endpoint_metrics / metrics_based / least_busy /
// prefix_cache, lb_config.metric_policy / target_metric / rate_limit). The rest is refused with what to
// write instead.

export const LB_TYPE_KEY = "lb_type";
/** Higress's default lb_type, the only one that picks an endpoint inside the route's service. */
export const LB_TYPE_ENDPOINT = "endpoint";

/** Why an lb_type value is refused ("" when accepted). */
export function lbTypeProblem(value: string): string {
  if (value == LB_TYPE_ENDPOINT) return "";
  if (value == "cluster") {
    return "lb_type \"cluster\" (Higress's cluster_metrics, balancing between services) is not supported: this " +
      "picker chooses an endpoint inside the route's service; write lb_type \"endpoint\" (or leave it out)";
  }
  return "expected \"endpoint\" (the only lb_type this picker implements)";
}

/** Why an lb_policy value from Higress is refused, or "" when it is not one of those. */
export function refusedPolicyProblem(policy: string): string {
  if (policy == "global_least_request") {
    return "Higress's Redis-backed global_least_request is not supported in this form: write lb_policy " +
      "\"endpoint_metrics\"; this picker balances on each endpoint's queue and its own requests in flight " +
      "(weights.queue, weights.inflight) without Redis";
  }
  if (policy == "cluster_metrics") {
    return "cluster_metrics (balancing between services) is not supported: write lb_type \"endpoint\" with " +
      "lb_policy \"endpoint_metrics\" to pick an endpoint inside the route's service";
  }
  return "";
}

/** Why a key inside lb_config is refused, or "" when it is not a Higress-only key. */
export function refusedLbConfigKeyProblem(key: string): string {
  if (
    key == "serviceFQDN" || key == "servicePort" || key == "username" || key == "password" || key == "timeout" ||
    key == "database" || key == "redisKeyTTL" || key == "maxRequestCount" || key == "cleanInterval" ||
    key == "enableDetailLog"
  ) {
    return "Higress's Redis connection for prefix_cache/global_least_request is not supported in this form: this " +
      "picker keeps its prefix index in the gateway (prefix.*); remove the Redis keys from lb_config, and use " +
      "the plugin's own redis.* keys where state must be shared between gateway replicas";
  }
  if (key == "criticalModels") {
    return "not supported: this picker schedules every request as Higress does a critical one (as its " +
      "endpoint_metrics does for all requests); remove it";
  }
  if (key == "mode" || key == "service_list" || key == "cluster_header" || key == "queue_size") {
    return "a cluster_metrics key: balancing between services is not supported; remove it and use lb_type " +
      "\"endpoint\" with lb_policy \"endpoint_metrics\"";
  }
  return "";
}
