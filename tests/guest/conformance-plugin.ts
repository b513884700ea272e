// A conformance plugin: exercises every host function of the ABI layer through the host and logs what it
// observed as "CHECK <name> <value>" lines, which tests/integration/abi-conformance.test.ts asserts.
// Both ABI marks, Higress's first: Higress takes the first mark it knows (0.2.100), stock Envoy, which does not know
// that one, the next (0.2.1), so one module runs as a plugin of either.
export * from "../../assembly/abi/higress-abi-version";
export * from "../../assembly/abi/abi-version";
export * from "../../assembly/abi/exports";
import "../../assembly/abi/abort";
import * as host from "../../assembly/abi/host";
import * as env from "../../assembly/abi/imports";
import { Utf8 } from "../../assembly/abi/host";
import { HttpContext, RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { HeaderMapReader, HeaderMapWriter } from "../../assembly/abi/header-map";
import { BufferType, DataAction, HeadersAction, LogLevel, MapType, MetricType, Status, StreamType } from "../../assembly/abi/types";

@external("wasi_snapshot_preview1", "proc_exit")
declare function proc_exit(code: u32): void;

function check(name: string, value: string): void {
  host.log(LogLevel.Info, "CHECK " + name + " " + value);
}

/** The buffer every getter below returns into (a test plugin: one at a time). */
const out = new host.Returned();
const shared = new host.SharedValue();

function takeString(): string {
  const s = out.toString();
  out.release();
  return s;
}

const reader = new HeaderMapReader();
const writer = new HeaderMapWriter();
let counterId: u32 = 0;
let registeredQueueId: u32 = 0;
let inRequestHeaders = false;
let ticks = 0;

/** Serializes {"a":"1","b":"22"} (the spec's example) so the test can compare bytes. */
export function conformance_serialize_example(): usize {
  return writer.clear().add("a", "1").add("b", "22").finish();
}
export function conformance_serialized_length(): i32 {
  return writer.length;
}
/** Dispatches GET /metrics to the "metrics" cluster from whatever context is current. */
export function conformance_http_call(timeoutMs: u32): void {
  writer.clear().add(":method", "GET").add(":path", "/metrics").add(":authority", "backend");
  check("http_call_dispatch", host.statusOf(host.dispatchHttpCall(new Utf8("metrics"), writer, null, timeoutMs)).toString());
}
/** Adds x-added: 1 to a trailer map: "<more|end>:<status of the add>:<status of reading it back>". */
function addTrailer(map: i32, endOfStream: bool): string {
  const v = String.UTF8.encode("1");
  const added = host.addHeaderValue(map, new Utf8("x-added"), changetype<usize>(v), v.byteLength);
  const read = host.getHeaderValueRaw(map, new Utf8("x-added"), out);
  if (read == Status.Ok) out.release();
  return (endOfStream ? "end:" : "more:") + added.toString() + ":" + read.toString();
}
/** request.duration: "<status>" or, when Ok, "0:<nanoseconds>". */
function requestDuration(): string {
  const status = host.getProperty(host.propertyPath(["request", "duration"]), out);
  if (status != Status.Ok) return status.toString();
  const ns = out.len == 8 ? load<i64>(out.ptr) : -1;
  out.release();
  return "0:" + ns.toString();
}
/** From the root: the effective context set to the stream, then to 0: "<status of the second set>:<status of reading
 *  request.path>" (a stream has it, the root context not). */
export function conformance_effective_reset(streamId: u32): void {
  host.setEffectiveContext(streamId);
  const reset = host.setEffectiveContext(0);
  const path = host.getProperty(host.propertyPath(["request", "path"]), out);
  if (path == Status.Ok) out.release();
  check("effective_reset", reset.toString() + ":" + path.toString());
}
/** The context (0: none) whose view of the call's response onHttpCallResponse also logs, as
 *  "http_response_via <status of the body read>:<status of the :status read>". */
let responseReader: u32 = 0;
export function conformance_http_response_reader(contextId: u32): void {
  responseReader = contextId;
}
/** Dispatches a valid GET /metrics to "metrics" whose trailer map is malformed (a count with no sizes). */
export function conformance_http_call_malformed_trailers(): void {
  writer.clear().add(":method", "GET").add(":path", "/metrics").add(":authority", "backend");
  const headers = writer.finish();
  const bad = new StaticArray<u8>(4);
  bad[0] = 2;
  const cluster = String.UTF8.encode("metrics");
  const callId = new StaticArray<u32>(1);
  const status = env.proxy_http_call(changetype<usize>(cluster), cluster.byteLength, headers, writer.length, 0, 0,
    changetype<usize>(bad), 4, 1000, changetype<usize>(callId));
  check("http_call_malformed_trailers", status.toString());
}
let inRootCall = false;
/** A root context answering one of its streams: make it the effective context, then send_local_response. */
export function conformance_local_reply_from_root(contextId: u32): void {
  inRootCall = true;
  host.setEffectiveContext(contextId);
  writer.clear();
  check("root_call_local_reply", host.sendLocalResponse(503, "from root", "", writer).toString());
  inRootCall = false;
}
/** What a root context does to let a stream go: make it the effective context, then continue_stream. */
export function conformance_continue_stream(contextId: u32, streamType: i32): void {
  check("effective_context", host.setEffectiveContext(contextId).toString());
  check("continue_from_root", host.continueStream(streamType).toString());
  check("after_continue_request_header", host.getHeaderValueRaw(MapType.HttpRequestHeaders, new Utf8(":path"), out).toString());
  out.release();
  check("after_continue_response_header", host.getHeaderValueRaw(MapType.HttpResponseHeaders, new Utf8(":status"), out).toString());
  out.release();
}
/** Reads a stream's request trailer x-checksum from the root context: "CHECK trailer_from_root <status>". */
export function conformance_read_trailer(contextId: u32): void {
  host.setEffectiveContext(contextId);
  check("trailer_from_root", host.getHeaderValueRaw(MapType.HttpRequestTrailers, new Utf8("x-checksum"), out).toString());
  out.release();
}
export function conformance_alloc(size: usize): usize {
  return heap.alloc(size);
}
/** Parses a serialized map at ptr and logs its pairs, or "malformed". */
export function conformance_parse(ptr: usize, len: usize): void {
  if (!reader.reset(ptr, len)) {
    check("parse", "malformed");
    return;
  }
  let out = "";
  let n = 0;
  while (reader.next()) {
    out += String.UTF8.decodeUnsafe(reader.keyPtr, reader.keyLen) + "=" + String.UTF8.decodeUnsafe(reader.valuePtr, reader.valueLen) + ";";
    n++;
  }
  check("parse", n == reader.count ? out : "short:" + out);
}

/** A buffer read as "<status>:<bytes>". */
function readBuffer(type: i32): string {
  const status = host.getBufferBytes(type, 0, 0xffffffff, out);
  const bytes = status == Status.Ok ? out.toString() : "";
  out.release();
  return status.toString() + ":" + bytes;
}

class ConformanceRoot extends RootContext {
  // Runs in the root's proxy_on_context_create.
  constructor(id: u32) {
    super(id);
    check("create_plugin_config", readBuffer(BufferType.PluginConfiguration));
  }

  onVmStart(size: u32): bool {
    if (host.getBufferBytes(BufferType.VmConfiguration, 0, size, out) == Status.Ok) check("vm_config", takeString());
    check("vm_start_plugin_config", readBuffer(BufferType.PluginConfiguration));
    return true;
  }

  onConfigure(size: u32): bool {
    let config = "";
    if (host.getBufferBytes(BufferType.PluginConfiguration, 0, size, out) == Status.Ok) config = takeString();
    check("plugin_config", config);
    check("configure_vm_config", readBuffer(BufferType.VmConfiguration));
    if (config == "reject") return false;
    if (config == "trap-configure") unreachable();
    if (config == "proc-exit") {
      proc_exit(3);
      check("after_proc_exit", "alive");
    }
    check("log_level", host.getLogLevel().toString());
    check("time_nonzero", (host.currentTimeNanos() > 0).toString());
    check("prop_root_id", host.getPropertyString(["plugin_root_id"]) || "<none>");
    check("prop_vm_id", host.getPropertyString(["plugin_vm_id"]) || "<none>");
    check("prop_name", host.getPropertyString(["plugin_name"]) || "<none>");
    check("prop_missing", host.getProperty(host.propertyPath(["no", "such"]), out).toString());
    check("root_request_body", host.getBufferBytes(BufferType.HttpRequestBody, 0, 10, out).toString() + ":" + out.len.toString());
    check("buffer_status_config", host.getBufferSize(BufferType.PluginConfiguration).toString());
    check("set_property", host.setProperty(host.propertyPath(["conformance", "flag"]), String.UTF8.encode("on")).toString());
    check("get_set_property", host.getPropertyString(["conformance", "flag"]) || "<none>");

    // Shared data with compare-and-swap.
    const key = new Utf8("conformance/key");
    const v1 = String.UTF8.encode("v1");
    check("shared_get_missing", host.getSharedData(new Utf8("conformance/absent"), shared).toString());
    check("shared_set_new", host.setSharedData(key, changetype<usize>(v1), v1.byteLength, 12345).toString());
    host.getSharedData(key, shared);
    const cas1 = shared.cas;
    check("shared_get", shared.toString());
    shared.release();
    const v2 = String.UTF8.encode("v2");
    check("shared_set_cas_ok", host.setSharedData(key, changetype<usize>(v2), v2.byteLength, cas1).toString());
    check("shared_set_cas_stale", host.setSharedData(key, changetype<usize>(v1), v1.byteLength, cas1).toString());
    check("shared_set_cas_zero", host.setSharedData(key, changetype<usize>(v1), v1.byteLength, 0).toString());
    host.getSharedData(key, shared);
    check("shared_cas_changed", (shared.cas != cas1).toString());
    shared.release();

    // Shared queues.
    const qname = new Utf8("conformance/queue");
    const registered = host.registerSharedQueue(qname);
    check("queue_register", host.statusOf(registered).toString());
    registeredQueueId = host.isOk(registered) ? <u32>registered : 0;
    const qid = registeredQueueId;
    check("queue_resolve_missing", host.statusOf(host.resolveSharedQueue(new Utf8("other_vm"), qname)).toString());
    check("queue_dequeue_empty", host.dequeueSharedQueue(qid, out).toString());
    const item = String.UTF8.encode("item-1");
    check("queue_enqueue", host.enqueueSharedQueue(qid, changetype<usize>(item), item.byteLength).toString());
    if (host.dequeueSharedQueue(qid, out) == Status.Ok) check("queue_dequeue", takeString());
    check("queue_bad_id", host.enqueueSharedQueue(9999, changetype<usize>(item), item.byteLength).toString());

    // Metrics.
    counterId = host.defineMetric(MetricType.Counter, "conformance_requests");
    const gauge = host.defineMetric(MetricType.Gauge, "conformance_gauge");
    const histogram = host.defineMetric(MetricType.Histogram, "conformance_histogram");
    check("metric_increment_zero", host.incrementMetric(counterId, 0).toString());
    check("metric_increment_negative", host.incrementMetric(counterId, -1).toString());
    check("metric_increment", host.incrementMetric(counterId, 5).toString());
    check("metric_get", host.getMetric(counterId).toString());
    check("metric_gauge_record", host.recordMetric(gauge, 42).toString());
    check("metric_gauge_decrement", host.incrementMetric(gauge, -2).toString());
    check("metric_gauge_get", host.getMetric(gauge).toString());
    check("metric_histogram_record", host.recordMetric(histogram, 7).toString());
    check("metric_unknown", host.incrementMetric(777, 1).toString());
    check("metric_bad_type", host.defineMetric(9, "bad").toString());

    // HTTP call: missing required headers, unknown cluster, then a real one.
    writer.clear().add(":method", "GET").add(":path", "/metrics");
    check("http_call_missing_authority", host.statusOf(host.dispatchHttpCall(new Utf8("metrics"), writer, null, 1000)).toString());
    writer.clear().add(":method", "GET").add(":path", "/metrics").add(":authority", "backend");
    check("http_call_unknown_cluster", host.statusOf(host.dispatchHttpCall(new Utf8("nope"), writer, null, 1000)).toString());
    const call = host.dispatchHttpCall(new Utf8("metrics"), writer, null, 1000);
    check("http_call", host.statusOf(call).toString());
    check("http_call_id_nonzero", (host.isOk(call) && call != 0).toString());
    check("http_call_token", host.isOk(call) ? call.toString() : "error");

    check("tick_set", host.setTickPeriodMs(10).toString());
    return true;
  }

  onTick(): void {
    if (ticks == 0) {
      writer.clear();
      check("root_local_reply", host.sendLocalResponse(500, "root", "", writer).toString());
      check("root_continue", host.continueStream(StreamType.HttpRequest).toString());
      check("root_done", host.done().toString());
    }
    ticks++;
    check("tick", ticks.toString());
    if (ticks >= 2) host.setTickPeriodMs(0);
  }

  onDone(): bool {
    check("root_on_done", this.id.toString());
    return true;
  }

  onDelete(): void {
    check("root_on_delete", this.id.toString());
  }

  onQueueReady(queueId: u32): void {
    check("queue_ready", (queueId == registeredQueueId).toString());
  }

  onHttpCallResponse(callId: u32, numHeaders: u32, bodySize: u32, numTrailers: u32): void {
    check("http_response_headers", numHeaders.toString());
    check("http_response_context", this.id.toString());
    check("http_response_body_size", bodySize.toString());
    if (host.getHeaderMapPairs(MapType.HttpCallResponseHeaders, reader, out) == Status.Ok) {
      check("http_response_pairs", reader.count.toString());
      out.release();
    } else check("http_response_pairs", "error");
    check("effective_context_root", host.setEffectiveContext(this.id).toString());
    check("effective_context_bad", host.setEffectiveContext(99999).toString());
    check("http_response_status", host.httpCallResponseStatus(out).toString());
    check("proxy_status_code", host.getStatusCode().toString());
    if (host.getBufferBytes(BufferType.HttpCallResponseBody, 0, bodySize, out) == Status.Ok) check("http_response_body", takeString());
    else check("http_response_body", "<none>");
    const ct = host.getHeaderValue(MapType.HttpCallResponseHeaders, "content-type");
    check("http_response_content_type", ct === null ? "<none>" : ct);
    if (responseReader != 0 && host.setEffectiveContext(responseReader) == Status.Ok) {
      const body = host.getBufferBytes(BufferType.HttpCallResponseBody, 0, bodySize, out);
      if (body == Status.Ok) out.release();
      check("http_response_via", body.toString() + ":" + host.httpCallResponseStatus(out).toString());
      host.setEffectiveContext(this.id);
    }
  }

  createHttpContext(id: u32): HttpContext {
    return new ConformanceStream(id, this);
  }
}

class ConformanceStream extends HttpContext {
  scenario: string = "";

  onRequestHeaders(numHeaders: u32, endOfStream: bool): i32 {
    const s = host.getHeaderValue(MapType.HttpRequestHeaders, "x-scenario");
    this.scenario = s === null ? "" : s;
    check("req_num_headers", numHeaders.toString());
    if (host.getHeaderMapPairs(MapType.HttpRequestHeaders, reader, out) == Status.Ok) {
      let pairs = "";
      while (reader.next()) pairs += String.UTF8.decodeUnsafe(reader.keyPtr, reader.keyLen) + "=" + String.UTF8.decodeUnsafe(reader.valuePtr, reader.valueLen) + ";";
      out.release();
      check("req_pairs", pairs);
    }
    check("req_map_size", host.getHeaderMapSize(MapType.HttpRequestHeaders).toString());
    check("headers_body", host.getBufferBytes(BufferType.HttpRequestBody, 0, 10, out).toString() + ":" + out.len.toString());
    check("stream_vm_config", readBuffer(BufferType.VmConfiguration));
    check("stream_plugin_config", readBuffer(BufferType.PluginConfiguration));
    check("stream_network_and_grpc_buffers", readBuffer(BufferType.DownstreamData) + "," + readBuffer(BufferType.UpstreamData) + "," +
      readBuffer(BufferType.GrpcCallMessage) + "," + host.getBufferSize(BufferType.DownstreamData).toString());
    check("req_header_missing", host.getHeaderValueRaw(MapType.HttpRequestHeaders, new Utf8("x-absent"), out).toString());
    const dup = host.getHeaderValue(MapType.HttpRequestHeaders, "X-Dup");
    check("req_header_first_value", dup === null ? "<none>" : dup);
    const added = String.UTF8.encode("yes");
    host.addHeaderValue(MapType.HttpRequestHeaders, new Utf8("x-added"), changetype<usize>(added), added.byteLength);
    const rep = String.UTF8.encode("replaced");
    host.replaceHeaderValue(MapType.HttpRequestHeaders, new Utf8("x-dup"), changetype<usize>(rep), rep.byteLength);
    host.removeHeader(MapType.HttpRequestHeaders, new Utf8("x-remove-me"));
    check("prop_request_path", host.getPropertyString(["request", "path"]) || "<none>");
    check("prop_request_method", host.getPropertyString(["request", "method"]) || "<none>");
    check("prop_request_duration", requestDuration());
    check("resp_map_unavailable", host.getHeaderMapSize(MapType.HttpResponseHeaders).toString());
    check("bad_map_type", host.getHeaderMapSize(42).toString());
    if (this.scenario == "trap-headers") unreachable();
    if (this.scenario == "local-headers") {
      writer.clear().add("x-local", "1");
      inRequestHeaders = true;
      check("local_reply_status", host.sendLocalResponse(429, "conformance local", "slow down", writer).toString());
      check("second_local_reply_status", host.sendLocalResponse(500, "second", "no", writer).toString());
      inRequestHeaders = false;
      return HeadersAction.Continue;
    }
    if (this.scenario == "local-malformed") {
      // A map claiming two pairs whose sizes are missing.
      const bad = new StaticArray<u8>(4);
      bad[0] = 2;
      const details = String.UTF8.encode("malformed headers");
      const status = env.proxy_send_local_response(403, changetype<usize>(details), details.byteLength, 0, 0, changetype<usize>(bad), 4, -1);
      check("malformed_local_reply", status.toString());
      return HeadersAction.Continue;
    }
    if (this.scenario == "set-pairs-malformed") {
      const bad = new StaticArray<u8>(4);
      bad[0] = 2;
      check("set_pairs_malformed", env.proxy_set_header_map_pairs(MapType.HttpRequestHeaders, changetype<usize>(bad), 4).toString());
    }
    if (this.scenario == "local-hold") {
      writer.clear();
      host.sendLocalResponse(429, "held", "", writer);
      return HeadersAction.Continue;
    }
    if (this.scenario == "local-continue-in-body") {
      writer.clear();
      host.sendLocalResponse(403, "denied", "denied body", writer);
      return HeadersAction.Continue;
    }
    if (this.scenario == "continue" || this.scenario == "hold-response" || this.scenario == "hold-response-body" ||
      this.scenario == "hold-response-all" || this.scenario == "response-headers-result" || this.scenario == "continue-hold-body" ||
      this.scenario == "watermark-response" || this.scenario == "reply-in-response-body") {
      return HeadersAction.Continue;
    }
    if (this.scenario == "headers-result") {
      const result = host.getHeaderValue(MapType.HttpRequestHeaders, "x-headers-result");
      return result === null ? HeadersAction.Continue : <i32>parseInt(result);
    }
    if (this.scenario == "http-call") {
      conformance_http_call(1000);
      return HeadersAction.Continue;
    }
    if (this.scenario == "set-pairs") {
      writer.clear().add(":method", "POST").add(":path", "/rewritten").add("x-only", "1");
      check("set_pairs", host.setHeaderMapPairs(MapType.HttpRequestHeaders, writer).toString());
    }
    return HeadersAction.StopIteration;
  }

  onRequestBody(bodySize: u32, endOfStream: bool): i32 {
    check("body_size", bodySize.toString() + (endOfStream ? ":end" : ":more"));
    if (this.scenario == "trap-body") unreachable();
    if (this.scenario == "watermark-body") return DataAction.StopIterationAndWatermark;
    if (this.scenario == "add-trailers") check("body_add_trailer", addTrailer(MapType.HttpRequestTrailers, endOfStream));
    // Held, its end too, until the test calls conformance_continue_stream(id, Request).
    if (!endOfStream || this.scenario == "continue-hold-body") return DataAction.StopIterationAndBuffer;
    if (host.getBufferBytes(BufferType.HttpRequestBody, 0, bodySize, out) == Status.Ok) check("body", takeString());
    check("body_past_end", host.getBufferBytes(BufferType.HttpRequestBody, bodySize + 10, 5, out).toString() + ":" + out.len.toString());
    out.release();
    check("body_wrapping_length", host.getBufferBytes(BufferType.HttpRequestBody, 2, 0xffffffff, out).toString() + ":" + out.len.toString());
    out.release();
    check("body_req_header", host.getHeaderValueRaw(MapType.HttpRequestHeaders, new Utf8(":path"), out).toString());
    out.release();
    if (this.scenario == "rewrite-body") {
      check("set_body", host.setBufferBytes(BufferType.HttpRequestBody, 0, bodySize, String.UTF8.encode("new body")).toString());
    }
    if (this.scenario == "paused") return DataAction.StopIterationAndBuffer;
    if (this.scenario == "close") {
      check("close_stream", host.closeStream(StreamType.HttpRequest).toString());
      return DataAction.StopIterationAndBuffer;
    }
    const v = String.UTF8.encode("10.0.0.1:8000");
    host.replaceHeaderValue(MapType.HttpRequestHeaders, new Utf8("x-gateway-destination-endpoint"), changetype<usize>(v), v.byteLength);
    check("continue_request", host.continueStream(StreamType.HttpRequest).toString());
    check("continue_bad_type", host.continueStream(7).toString());
    check("network_stream_types", host.continueStream(StreamType.Downstream).toString() + "," + host.continueStream(StreamType.Upstream).toString() +
      "," + host.closeStream(StreamType.Downstream).toString() + "," + host.closeStream(StreamType.Upstream).toString() + "," + host.closeStream(4).toString());
    return DataAction.Continue;
  }

  onRequestTrailers(numTrailers: u32): i32 {
    check("trailers", numTrailers.toString() + ":" + host.getBufferSize(BufferType.HttpRequestBody).toString());
    check("trailer_in_callback", host.getHeaderValueRaw(MapType.HttpRequestTrailers, new Utf8("x-checksum"), out).toString());
    out.release();
    return HeadersAction.Continue;
  }

  onResponseHeaders(numHeaders: u32, endOfStream: bool): i32 {
    check("response_inside_request_callback", inRequestHeaders.toString());
    check("response_inside_root_call", inRootCall.toString());
    const status = host.getHeaderValue(MapType.HttpResponseHeaders, ":status");
    check("resp_status", status === null ? "<none>" : status);
    const v = String.UTF8.encode("seen");
    host.addHeaderValue(MapType.HttpResponseHeaders, new Utf8("x-conformance"), changetype<usize>(v), v.byteLength);
    if (this.scenario == "response-headers-result") {
      const result = host.getHeaderValue(MapType.HttpResponseHeaders, "x-headers-result");
      return result === null ? HeadersAction.Continue : <i32>parseInt(result);
    }
    const hold = this.scenario == "local-hold" || this.scenario == "hold-response" || this.scenario == "hold-response-all" ||
      this.scenario == "local-continue-in-body" || (this.scenario == "reply-in-response-body" && status == "200");
    return hold ? HeadersAction.StopIteration : HeadersAction.Continue;
  }

  onResponseBody(bodySize: u32, endOfStream: bool): i32 {
    check("resp_body_size", bodySize.toString() + (endOfStream ? ":end" : ":more"));
    if (this.scenario == "add-trailers") check("resp_body_add_trailer", addTrailer(MapType.HttpResponseTrailers, endOfStream));
    // Held until the test calls conformance_continue_stream(id, Response).
    if (this.scenario == "hold-response-body" || this.scenario == "hold-response-all") return DataAction.StopIterationAndBuffer;
    if (this.scenario == "watermark-response") return DataAction.StopIterationAndWatermark;
    if (this.scenario == "reply-in-response-body") {
      writer.clear();
      check("reply_in_response_body", host.sendLocalResponse(403, "replaced", "replaced", writer).toString());
    }
    if (this.scenario == "local-continue-in-body") check("continue_response_in_body", host.continueStream(StreamType.HttpResponse).toString());
    return DataAction.Continue;
  }

  onLog(): void {
    check("on_log", this.id.toString());
    check("log_request_duration", requestDuration());
    check("log_req_header", host.getHeaderValueRaw(MapType.HttpRequestHeaders, new Utf8(":path"), out).toString());
    out.release();
    check("log_req_trailer", host.getHeaderValueRaw(MapType.HttpRequestTrailers, new Utf8("x-checksum"), out).toString());
    out.release();
    const add = String.UTF8.encode("x");
    check("log_add_header", host.addHeaderValue(MapType.HttpRequestHeaders, new Utf8("x-late"), changetype<usize>(add), add.byteLength).toString());
    if (counterId != 0) host.incrementMetric(counterId, 1);
  }

  onDone(): bool {
    check("on_done", this.id.toString());
    if (this.scenario == "late-done") {
      check("proxy_done", host.done().toString());
      return false;
    }
    return true;
  }

  onDelete(): void {
    check("on_delete", this.id.toString());
  }
}

setRootContextFactory((id: u32): RootContext => new ConformanceRoot(id));
