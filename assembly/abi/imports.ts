// Host functions of proxy-wasm ABI 0.2.1 that Envoy provides (proxy-wasm/spec abi-versions/v0.2.1/README.md).
// Only functions that are referenced get imported: AssemblyScript drops unused externals, so a module's import
// list is exactly what its code calls.

@external("env", "proxy_log")
export declare function proxy_log(level: i32, msgPtr: usize, msgLen: usize): i32;
@external("env", "proxy_get_log_level")
export declare function proxy_get_log_level(retLevel: usize): i32;
@external("env", "proxy_get_current_time_nanoseconds")
export declare function proxy_get_current_time_nanoseconds(retTime: usize): i32;
@external("env", "proxy_set_tick_period_milliseconds")
export declare function proxy_set_tick_period_milliseconds(periodMs: u32): i32;

@external("env", "proxy_get_property")
export declare function proxy_get_property(pathPtr: usize, pathLen: usize, retPtr: usize, retLen: usize): i32;
@external("env", "proxy_set_property")
export declare function proxy_set_property(pathPtr: usize, pathLen: usize, valPtr: usize, valLen: usize): i32;

@external("env", "proxy_get_buffer_bytes")
export declare function proxy_get_buffer_bytes(type: i32, start: u32, maxSize: u32, retPtr: usize, retLen: usize): i32;
@external("env", "proxy_get_buffer_status")
export declare function proxy_get_buffer_status(type: i32, retSize: usize, retFlags: usize): i32;
@external("env", "proxy_set_buffer_bytes")
export declare function proxy_set_buffer_bytes(type: i32, start: u32, size: u32, valPtr: usize, valLen: usize): i32;

@external("env", "proxy_get_header_map_size")
export declare function proxy_get_header_map_size(type: i32, retSize: usize): i32;
@external("env", "proxy_get_header_map_pairs")
export declare function proxy_get_header_map_pairs(type: i32, retPtr: usize, retLen: usize): i32;
@external("env", "proxy_set_header_map_pairs")
export declare function proxy_set_header_map_pairs(type: i32, ptr: usize, len: usize): i32;
@external("env", "proxy_get_header_map_value")
export declare function proxy_get_header_map_value(type: i32, keyPtr: usize, keyLen: usize, retPtr: usize, retLen: usize): i32;
@external("env", "proxy_add_header_map_value")
export declare function proxy_add_header_map_value(type: i32, keyPtr: usize, keyLen: usize, valPtr: usize, valLen: usize): i32;
@external("env", "proxy_replace_header_map_value")
export declare function proxy_replace_header_map_value(type: i32, keyPtr: usize, keyLen: usize, valPtr: usize, valLen: usize): i32;
@external("env", "proxy_remove_header_map_value")
export declare function proxy_remove_header_map_value(type: i32, keyPtr: usize, keyLen: usize): i32;

@external("env", "proxy_set_shared_data")
export declare function proxy_set_shared_data(keyPtr: usize, keyLen: usize, valPtr: usize, valLen: usize, cas: u32): i32;
@external("env", "proxy_get_shared_data")
export declare function proxy_get_shared_data(keyPtr: usize, keyLen: usize, retPtr: usize, retLen: usize, retCas: usize): i32;

@external("env", "proxy_register_shared_queue")
export declare function proxy_register_shared_queue(namePtr: usize, nameLen: usize, retId: usize): i32;
@external("env", "proxy_resolve_shared_queue")
export declare function proxy_resolve_shared_queue(vmIdPtr: usize, vmIdLen: usize, namePtr: usize, nameLen: usize, retId: usize): i32;
@external("env", "proxy_enqueue_shared_queue")
export declare function proxy_enqueue_shared_queue(queueId: u32, valPtr: usize, valLen: usize): i32;
@external("env", "proxy_dequeue_shared_queue")
export declare function proxy_dequeue_shared_queue(queueId: u32, retPtr: usize, retLen: usize): i32;

@external("env", "proxy_define_metric")
export declare function proxy_define_metric(type: i32, namePtr: usize, nameLen: usize, retId: usize): i32;
@external("env", "proxy_increment_metric")
export declare function proxy_increment_metric(metricId: u32, delta: i64): i32;
@external("env", "proxy_record_metric")
export declare function proxy_record_metric(metricId: u32, value: u64): i32;
@external("env", "proxy_get_metric")
export declare function proxy_get_metric(metricId: u32, retValue: usize): i32;

@external("env", "proxy_http_call")
export declare function proxy_http_call(
  upstreamPtr: usize, upstreamLen: usize, headersPtr: usize, headersLen: usize, bodyPtr: usize, bodyLen: usize,
  trailersPtr: usize, trailersLen: usize, timeoutMs: u32, retCallId: usize): i32;
@external("env", "proxy_send_local_response")
export declare function proxy_send_local_response(
  statusCode: u32, detailsPtr: usize, detailsLen: usize, bodyPtr: usize, bodyLen: usize,
  headersPtr: usize, headersLen: usize, grpcStatus: i32): i32;
@external("env", "proxy_continue_stream")
export declare function proxy_continue_stream(streamType: i32): i32;
@external("env", "proxy_close_stream")
export declare function proxy_close_stream(streamType: i32): i32;
@external("env", "proxy_get_status")
export declare function proxy_get_status(retCode: usize, retMsgPtr: usize, retMsgLen: usize): i32;
@external("env", "proxy_set_effective_context")
export declare function proxy_set_effective_context(contextId: u32): i32;
@external("env", "proxy_done")
export declare function proxy_done(): i32;
