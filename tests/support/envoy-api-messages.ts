// The Envoy v3 API messages the examples configure, from envoyproxy/data-plane-api (the api/ tree of
// envoyproxy/envoy; read at its commit 84e84367, January 2026): each message's proto file and every field name
// it declares (oneof members included), the kind of the fields the examples set, and the fields its validate
// rules require ("a|b": one of a oneof), and the fields it marks `deprecated = true` (Envoy logs each use and counts
// it in runtime.deprecated_feature_use; the examples use none). Kinds: a message's full name, "Any" (typed_config
// with an @type), "Duration" (proto JSON: "1.5s"), "string", "uint32" (also UInt32Value), "bool" (also BoolValue),
// "enum:A|B" (the values that exist); a "[]" suffix means repeated.
export interface MessageSchema {
  proto: string;
  fields: string[];
  types: Record<string, string>;
  required?: string[];
  deprecated?: string[];
}

export const ENVOY_MESSAGES: Record<string, MessageSchema> = {
  "envoy.config.bootstrap.v3.Bootstrap": {
    proto: "envoy/config/bootstrap/v3/bootstrap.proto",
    fields: ["node", "node_context_params", "static_resources", "dynamic_resources", "cluster_manager", "hds_config", "flags_path", "stats_sinks", "deferred_stat_options", "stats_config", "stats_flush_interval", "stats_flush_on_admin", "stats_eviction_interval", "watchdog", "watchdogs", "tracing", "layered_runtime", "admin", "overload_manager", "enable_dispatcher_stats", "header_prefix", "stats_server_version_override", "use_tcp_for_dns_lookups", "dns_resolution_config", "typed_dns_resolver_config", "bootstrap_extensions", "fatal_actions", "config_sources", "default_config_source", "default_socket_interface", "certificate_provider_instances", "inline_headers", "perf_tracing_file_path", "default_regex_engine", "xds_delegate_extension", "xds_config_tracker_extension", "listener_manager", "application_log_config", "grpc_async_client_manager_config", "memory_allocator_manager"],
    types: { admin: "envoy.config.bootstrap.v3.Admin", static_resources: "envoy.config.bootstrap.v3.Bootstrap.StaticResources" },
    deprecated: ["watchdog", "tracing", "use_tcp_for_dns_lookups", "dns_resolution_config"],
  },
  "envoy.config.bootstrap.v3.Bootstrap.StaticResources": {
    proto: "envoy/config/bootstrap/v3/bootstrap.proto",
    fields: ["listeners", "clusters", "secrets"],
    types: { listeners: "envoy.config.listener.v3.Listener[]", clusters: "envoy.config.cluster.v3.Cluster[]" },
  },
  "envoy.config.bootstrap.v3.Admin": {
    proto: "envoy/config/bootstrap/v3/bootstrap.proto",
    fields: ["access_log", "access_log_path", "profile_path", "address", "socket_options", "ignore_global_conn_limit", "allow_paths"],
    types: { address: "envoy.config.core.v3.Address" },
    deprecated: ["access_log_path"],
  },
  "envoy.config.core.v3.Address": {
    proto: "envoy/config/core/v3/address.proto",
    fields: ["socket_address", "pipe", "envoy_internal_address"],
    types: { socket_address: "envoy.config.core.v3.SocketAddress" },
  },
  "envoy.config.core.v3.SocketAddress": {
    proto: "envoy/config/core/v3/address.proto",
    fields: ["protocol", "address", "port_value", "named_port", "resolver_name", "ipv4_compat", "network_namespace_filepath"],
    types: { address: "string", port_value: "uint32" }, required: ["address", "port_value|named_port"],
  },
  "envoy.config.listener.v3.Listener": {
    proto: "envoy/config/listener/v3/listener.proto",
    fields: ["name", "address", "additional_addresses", "stat_prefix", "filter_chains", "fcds_config", "filter_chain_matcher", "use_original_dst", "default_filter_chain", "per_connection_buffer_limit_bytes", "metadata", "deprecated_v1", "drain_type", "listener_filters", "listener_filters_timeout", "continue_on_listener_filters_timeout", "transparent", "freebind", "socket_options", "tcp_fast_open_queue_length", "traffic_direction", "udp_listener_config", "api_listener", "connection_balance_config", "reuse_port", "enable_reuse_port", "access_log", "tcp_backlog_size", "max_connections_to_accept_per_socket_event", "bind_to_port", "internal_listener", "enable_mptcp", "ignore_global_conn_limit", "bypass_overload_manager", "tcp_keepalive"],
    types: { name: "string", address: "envoy.config.core.v3.Address", filter_chains: "envoy.config.listener.v3.FilterChain[]", per_connection_buffer_limit_bytes: "uint32" },
    deprecated: ["deprecated_v1", "reuse_port"],
  },
  "envoy.config.listener.v3.FilterChain": {
    proto: "envoy/config/listener/v3/listener_components.proto",
    fields: ["filter_chain_match", "filters", "use_proxy_proto", "metadata", "transport_socket", "transport_socket_connect_timeout", "name"],
    types: { filters: "envoy.config.listener.v3.Filter[]" },
    deprecated: ["use_proxy_proto"],
  },
  "envoy.config.listener.v3.Filter": {
    proto: "envoy/config/listener/v3/listener_components.proto",
    fields: ["name", "typed_config", "config_discovery"],
    types: { name: "string", typed_config: "Any" }, required: ["name"],
  },
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager": {
    proto: "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto",
    fields: ["codec_type", "stat_prefix", "rds", "route_config", "scoped_routes", "http_filters", "add_user_agent", "tracing", "common_http_protocol_options", "http1_safe_max_connection_duration", "http_protocol_options", "http2_protocol_options", "http3_protocol_options", "server_name", "server_header_transformation", "scheme_header_transformation", "max_request_headers_kb", "stream_idle_timeout", "stream_flush_timeout", "request_timeout", "request_headers_timeout", "drain_timeout", "delayed_close_timeout", "access_log", "access_log_flush_interval", "flush_access_log_on_new_request", "access_log_options", "use_remote_address", "xff_num_trusted_hops", "original_ip_detection_extensions", "early_header_mutation_extensions", "internal_address_config", "skip_xff_append", "via", "generate_request_id", "preserve_external_request_id", "always_set_request_id_in_response", "forward_client_cert_details", "set_current_client_cert_details", "forward_client_cert_matcher", "proxy_100_continue", "represent_ipv4_remote_address_as_ipv4_mapped_ipv6", "upgrade_configs", "normalize_path", "merge_slashes", "path_with_escaped_slashes_action", "request_id_extension", "local_reply_config", "strip_matching_host_port", "strip_any_host_port", "stream_error_on_invalid_http_message", "path_normalization_options", "strip_trailing_host_dot", "proxy_status_config", "typed_header_validation_config", "append_x_forwarded_port", "append_local_overload", "add_proxy_protocol_connection_state", "forward_proto_config"],
    types: { stat_prefix: "string", codec_type: "enum:AUTO|HTTP1|HTTP2|HTTP3", route_config: "envoy.config.route.v3.RouteConfiguration", http_filters: "envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter[]", stream_idle_timeout: "Duration", request_timeout: "Duration" }, required: ["stat_prefix", "rds|route_config|scoped_routes"],
    deprecated: ["access_log_flush_interval", "flush_access_log_on_new_request"],
  },
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter": {
    proto: "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto",
    fields: ["name", "typed_config", "config_discovery", "is_optional", "disabled"],
    types: { name: "string", typed_config: "Any" }, required: ["name"],
  },
  "envoy.config.route.v3.RouteConfiguration": {
    proto: "envoy/config/route/v3/route.proto",
    fields: ["name", "virtual_hosts", "vhds", "internal_only_headers", "response_headers_to_add", "response_headers_to_remove", "request_headers_to_add", "request_headers_to_remove", "most_specific_header_mutations_wins", "validate_clusters", "max_direct_response_body_size_bytes", "cluster_specifier_plugins", "request_mirror_policies", "ignore_port_in_host_matching", "vhost_header", "ignore_path_parameters_in_path_matching", "typed_per_filter_config", "metadata"],
    types: { name: "string", virtual_hosts: "envoy.config.route.v3.VirtualHost[]" },
  },
  "envoy.config.route.v3.VirtualHost": {
    proto: "envoy/config/route/v3/route_components.proto",
    fields: ["name", "domains", "routes", "matcher", "require_tls", "virtual_clusters", "rate_limits", "request_headers_to_add", "request_headers_to_remove", "response_headers_to_add", "response_headers_to_remove", "cors", "typed_per_filter_config", "include_request_attempt_count", "include_attempt_count_in_response", "retry_policy", "retry_policy_typed_config", "hedge_policy", "include_is_timeout_retry_header", "per_request_buffer_limit_bytes", "request_body_buffer_limit", "request_mirror_policies", "metadata"],
    types: { name: "string", domains: "string[]", routes: "envoy.config.route.v3.Route[]" }, required: ["name", "domains"],
    deprecated: ["cors", "per_request_buffer_limit_bytes"],
  },
  "envoy.config.route.v3.Route": {
    proto: "envoy/config/route/v3/route_components.proto",
    fields: ["name", "match", "route", "redirect", "direct_response", "filter_action", "non_forwarding_action", "metadata", "decorator", "typed_per_filter_config", "request_headers_to_add", "request_headers_to_remove", "response_headers_to_add", "response_headers_to_remove", "tracing", "per_request_buffer_limit_bytes", "stat_prefix", "request_body_buffer_limit"],
    types: { name: "string", match: "envoy.config.route.v3.RouteMatch", route: "envoy.config.route.v3.RouteAction" }, required: ["match", "route|redirect|direct_response|filter_action|non_forwarding_action"],
    deprecated: ["per_request_buffer_limit_bytes"],
  },
  "envoy.config.route.v3.RouteMatch": {
    proto: "envoy/config/route/v3/route_components.proto",
    fields: ["prefix", "path", "safe_regex", "connect_matcher", "path_separated_prefix", "path_match_policy", "case_sensitive", "runtime_fraction", "headers", "query_parameters", "cookies", "grpc", "tls_context", "dynamic_metadata", "filter_state"],
    types: { prefix: "string", path: "string" }, required: ["prefix|path|safe_regex|connect_matcher|path_separated_prefix|path_match_policy"],
  },
  "envoy.config.route.v3.RouteAction": {
    proto: "envoy/config/route/v3/route_components.proto",
    fields: ["cluster", "cluster_header", "weighted_clusters", "cluster_specifier_plugin", "inline_cluster_specifier_plugin", "cluster_not_found_response_code", "metadata_match", "prefix_rewrite", "regex_rewrite", "path_rewrite_policy", "path_rewrite", "host_rewrite_literal", "auto_host_rewrite", "host_rewrite_header", "host_rewrite_path_regex", "host_rewrite", "append_x_forwarded_host", "timeout", "idle_timeout", "flush_timeout", "early_data_policy", "retry_policy", "retry_policy_typed_config", "request_mirror_policies", "priority", "rate_limits", "include_vh_rate_limits", "hash_policy", "cors", "max_grpc_timeout", "grpc_timeout_offset", "upgrade_configs", "internal_redirect_policy", "internal_redirect_action", "max_internal_redirects", "hedge_policy", "max_stream_duration"],
    types: { cluster: "string", timeout: "Duration", idle_timeout: "Duration" }, required: ["cluster|cluster_header|weighted_clusters|cluster_specifier_plugin|inline_cluster_specifier_plugin"],
    deprecated: ["include_vh_rate_limits", "cors", "max_grpc_timeout", "grpc_timeout_offset", "internal_redirect_action", "max_internal_redirects"],
  },
  "envoy.extensions.filters.http.header_mutation.v3.HeaderMutation": {
    proto: "envoy/extensions/filters/http/header_mutation/v3/header_mutation.proto",
    fields: ["mutations", "most_specific_header_mutations_wins"],
    types: { mutations: "envoy.extensions.filters.http.header_mutation.v3.Mutations" },
  },
  "envoy.extensions.filters.http.header_mutation.v3.Mutations": {
    proto: "envoy/extensions/filters/http/header_mutation/v3/header_mutation.proto",
    fields: ["request_mutations", "query_parameter_mutations", "response_mutations", "response_trailers_mutations", "request_trailers_mutations"],
    types: { request_mutations: "envoy.config.common.mutation_rules.v3.HeaderMutation[]" },
  },
  "envoy.config.common.mutation_rules.v3.HeaderMutation": {
    proto: "envoy/config/common/mutation_rules/v3/mutation_rules.proto",
    fields: ["remove", "append", "remove_on_match"],
    types: { remove: "string" }, required: ["remove|append|remove_on_match"],
  },
  "envoy.extensions.filters.http.wasm.v3.Wasm": {
    proto: "envoy/extensions/filters/http/wasm/v3/wasm.proto",
    fields: ["config"],
    types: { config: "envoy.extensions.wasm.v3.PluginConfig" },
  },
  "envoy.extensions.wasm.v3.PluginConfig": {
    proto: "envoy/extensions/wasm/v3/wasm.proto",
    fields: ["name", "root_id", "vm_config", "configuration", "fail_open", "failure_policy", "reload_config", "capability_restriction_config", "allow_on_headers_stop_iteration"],
    types: { name: "string", root_id: "string", vm_config: "envoy.extensions.wasm.v3.VmConfig", configuration: "Any", failure_policy: "enum:UNSPECIFIED|FAIL_RELOAD|FAIL_CLOSED|FAIL_OPEN", allow_on_headers_stop_iteration: "bool" },
    deprecated: ["fail_open"],
  },
  "envoy.extensions.wasm.v3.VmConfig": {
    proto: "envoy/extensions/wasm/v3/wasm.proto",
    fields: ["vm_id", "runtime", "code", "configuration", "allow_precompiled", "nack_on_code_cache_miss", "environment_variables"],
    types: { vm_id: "string", runtime: "string", code: "envoy.config.core.v3.AsyncDataSource", allow_precompiled: "bool" },
  },
  "envoy.config.core.v3.AsyncDataSource": {
    proto: "envoy/config/core/v3/base.proto",
    fields: ["local", "remote"],
    types: { local: "envoy.config.core.v3.DataSource" },
  },
  "envoy.config.core.v3.DataSource": {
    proto: "envoy/config/core/v3/base.proto",
    fields: ["filename", "inline_bytes", "inline_string", "environment_variable", "watched_directory"],
    types: { filename: "string" },
  },
  "envoy.extensions.filters.http.router.v3.Router": {
    proto: "envoy/extensions/filters/http/router/v3/router.proto",
    fields: ["dynamic_stats", "start_child_span", "upstream_log", "upstream_log_options", "suppress_envoy_headers", "strict_check_headers", "respect_expected_rq_timeout", "suppress_grpc_request_failure_code_stats", "upstream_http_filters", "reject_connect_request_early_data"],
    types: {},
    deprecated: ["start_child_span"],
  },
  "envoy.config.cluster.v3.Cluster": {
    proto: "envoy/config/cluster/v3/cluster.proto",
    fields: ["transport_socket_matches", "transport_socket_matcher", "name", "alt_stat_name", "type", "cluster_type", "eds_cluster_config", "connect_timeout", "per_connection_buffer_limit_bytes", "lb_policy", "load_assignment", "health_checks", "max_requests_per_connection", "circuit_breakers", "upstream_http_protocol_options", "common_http_protocol_options", "http_protocol_options", "http2_protocol_options", "typed_extension_protocol_options", "dns_refresh_rate", "dns_jitter", "dns_failure_refresh_rate", "respect_dns_ttl", "dns_lookup_family", "dns_resolvers", "use_tcp_for_dns_lookups", "dns_resolution_config", "typed_dns_resolver_config", "wait_for_warm_on_init", "outlier_detection", "cleanup_interval", "upstream_bind_config", "lb_subset_config", "ring_hash_lb_config", "maglev_lb_config", "original_dst_lb_config", "least_request_lb_config", "round_robin_lb_config", "common_lb_config", "transport_socket", "metadata", "protocol_selection", "upstream_connection_options", "close_connections_on_host_health_failure", "ignore_health_on_host_removal", "filters", "load_balancing_policy", "lrs_server", "lrs_report_endpoint_metrics", "track_timeout_budgets", "upstream_config", "track_cluster_stats", "preconnect_policy", "connection_pool_per_downstream_connection"],
    types: { name: "string", type: "enum:STATIC|STRICT_DNS|LOGICAL_DNS|EDS|ORIGINAL_DST", connect_timeout: "Duration", load_balancing_policy: "envoy.config.cluster.v3.LoadBalancingPolicy", health_checks: "envoy.config.core.v3.HealthCheck[]", load_assignment: "envoy.config.endpoint.v3.ClusterLoadAssignment", cluster_type: "envoy.config.cluster.v3.Cluster.CustomClusterType", lb_policy: "enum:ROUND_ROBIN|LEAST_REQUEST|RING_HASH|RANDOM|MAGLEV|CLUSTER_PROVIDED|LOAD_BALANCING_POLICY_CONFIG", original_dst_lb_config: "envoy.config.cluster.v3.Cluster.OriginalDstLbConfig" }, required: ["name"],
    deprecated: ["max_requests_per_connection", "upstream_http_protocol_options", "common_http_protocol_options", "http_protocol_options", "http2_protocol_options", "dns_refresh_rate", "dns_jitter", "dns_failure_refresh_rate", "respect_dns_ttl", "dns_resolvers", "use_tcp_for_dns_lookups", "dns_resolution_config", "protocol_selection", "track_timeout_budgets"],
  },
  "envoy.config.cluster.v3.Cluster.CustomClusterType": {
    proto: "envoy/config/cluster/v3/cluster.proto",
    fields: ["name", "typed_config"],
    types: { name: "string", typed_config: "Any" }, required: ["name"],
  },
  "envoy.extensions.clusters.dns.v3.DnsCluster": {
    proto: "envoy/extensions/clusters/dns/v3/dns_cluster.proto",
    fields: ["dns_refresh_rate", "dns_failure_refresh_rate", "respect_dns_ttl", "dns_jitter", "typed_dns_resolver_config", "dns_lookup_family", "all_addresses_in_single_endpoint"],
    types: { dns_refresh_rate: "Duration", respect_dns_ttl: "bool", all_addresses_in_single_endpoint: "bool" },
  },
  "envoy.config.cluster.v3.Cluster.OriginalDstLbConfig": {
    proto: "envoy/config/cluster/v3/cluster.proto",
    fields: ["use_http_header", "http_header_name", "upstream_port_override", "metadata_key"],
    types: { use_http_header: "bool", http_header_name: "string", upstream_port_override: "uint32" },
  },
  "envoy.config.cluster.v3.LoadBalancingPolicy": {
    proto: "envoy/config/cluster/v3/cluster.proto",
    fields: ["policies"],
    types: { policies: "envoy.config.cluster.v3.LoadBalancingPolicy.Policy[]" },
  },
  "envoy.config.cluster.v3.LoadBalancingPolicy.Policy": {
    proto: "envoy/config/cluster/v3/cluster.proto",
    fields: ["typed_extension_config"],
    types: { typed_extension_config: "envoy.config.core.v3.TypedExtensionConfig" },
  },
  "envoy.config.core.v3.TypedExtensionConfig": {
    proto: "envoy/config/core/v3/extension.proto",
    fields: ["name", "typed_config"],
    types: { name: "string", typed_config: "Any" }, required: ["name", "typed_config"],
  },
  "envoy.extensions.load_balancing_policies.override_host.v3.OverrideHost": {
    proto: "envoy/extensions/load_balancing_policies/override_host/v3/override_host.proto",
    fields: ["override_host_sources", "fallback_policy"],
    types: { override_host_sources: "envoy.extensions.load_balancing_policies.override_host.v3.OverrideHost.OverrideHostSource[]", fallback_policy: "envoy.config.cluster.v3.LoadBalancingPolicy" }, required: ["override_host_sources", "fallback_policy"],
  },
  "envoy.extensions.load_balancing_policies.override_host.v3.OverrideHost.OverrideHostSource": {
    proto: "envoy/extensions/load_balancing_policies/override_host/v3/override_host.proto",
    fields: ["header", "metadata"],
    types: { header: "string" },
  },
  "envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin": {
    proto: "envoy/extensions/load_balancing_policies/round_robin/v3/round_robin.proto",
    fields: ["slow_start_config", "locality_lb_config"],
    types: {},
  },
  "envoy.config.core.v3.HealthCheck": {
    proto: "envoy/config/core/v3/health_check.proto",
    fields: ["timeout", "interval", "initial_jitter", "interval_jitter", "interval_jitter_percent", "unhealthy_threshold", "healthy_threshold", "alt_port", "reuse_connection", "http_health_check", "tcp_health_check", "grpc_health_check", "custom_health_check", "no_traffic_interval", "no_traffic_healthy_interval", "unhealthy_interval", "unhealthy_edge_interval", "healthy_edge_interval", "event_log_path", "event_logger", "event_service", "always_log_health_check_failures", "always_log_health_check_success", "tls_options", "transport_socket_match_criteria"],
    types: { timeout: "Duration", interval: "Duration", no_traffic_interval: "Duration", unhealthy_threshold: "uint32", healthy_threshold: "uint32", http_health_check: "envoy.config.core.v3.HealthCheck.HttpHealthCheck" }, required: ["timeout", "interval", "unhealthy_threshold", "healthy_threshold", "http_health_check|tcp_health_check|grpc_health_check|custom_health_check"],
    deprecated: ["event_log_path"],
  },
  "envoy.config.core.v3.HealthCheck.HttpHealthCheck": {
    proto: "envoy/config/core/v3/health_check.proto",
    fields: ["host", "path", "send", "receive", "response_buffer_size", "request_headers_to_add", "request_headers_to_remove", "expected_statuses", "retriable_statuses", "codec_client_type", "service_name_matcher", "method"],
    types: { path: "string", host: "string" }, required: ["path"],
  },
  "envoy.config.endpoint.v3.ClusterLoadAssignment": {
    proto: "envoy/config/endpoint/v3/endpoint.proto",
    fields: ["cluster_name", "endpoints", "named_endpoints", "policy"],
    types: { cluster_name: "string", endpoints: "envoy.config.endpoint.v3.LocalityLbEndpoints[]" }, required: ["cluster_name"],
  },
  "envoy.config.endpoint.v3.LocalityLbEndpoints": {
    proto: "envoy/config/endpoint/v3/endpoint_components.proto",
    fields: ["locality", "metadata", "lb_endpoints", "load_balancer_endpoints", "leds_cluster_locality_config", "load_balancing_weight", "priority", "proximity"],
    types: { lb_endpoints: "envoy.config.endpoint.v3.LbEndpoint[]" },
    deprecated: ["load_balancer_endpoints"],
  },
  "envoy.config.endpoint.v3.LbEndpoint": {
    proto: "envoy/config/endpoint/v3/endpoint_components.proto",
    fields: ["endpoint", "endpoint_name", "health_status", "metadata", "load_balancing_weight"],
    types: { endpoint: "envoy.config.endpoint.v3.Endpoint" },
  },
  "envoy.config.endpoint.v3.Endpoint": {
    proto: "envoy/config/endpoint/v3/endpoint_components.proto",
    fields: ["address", "health_check_config", "hostname", "additional_addresses"],
    types: { address: "envoy.config.core.v3.Address" },
  },
};
