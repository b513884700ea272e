// Typed wrappers over the proxy-wasm 0.2.1 host functions: one small function per host call. Functions that
// take `string` encode it to UTF-8 (an allocation); hot paths use the `...Raw` forms with pre-encoded bytes.
import * as env from "./imports";
import { OUT_PTR, OUT_LEN, OUT_EXTRA, Returned, clearOutParams, freeOutBuffer } from "./memory";
export { Returned } from "./memory";
import { HeaderMapReader, HeaderMapWriter } from "./header-map";
import { MapType, Status } from "./types";

/** UTF-8 bytes of a string, kept for repeated host calls. */
export class Utf8 {
  readonly buf: ArrayBuffer;
  constructor(readonly text: string) {
    this.buf = String.UTF8.encode(text);
  }
  @inline get ptr(): usize { return changetype<usize>(this.buf); }
  @inline get len(): usize { return <usize>this.buf.byteLength; }
}

// Getters return into a Returned the caller owns (a field of the stream, root or platform that reads), never
// into module state: streams of a worker interleave, so a result left in a global can be read by the wrong one.
// Numbers the host hands back with a status (a queue id, an HTTP call's token) come back as a HostResult.

/** A host call's u32 result or its failure, as Rust's Result<u32, Status>: the value when >= 0, else -status. */
export type HostResult = i64;

@inline export function isOk(result: HostResult): bool {
  return result >= 0;
}

/** The host status of a HostResult (Status.Ok for a value). */
@inline export function statusOf(result: HostResult): i32 {
  return result >= 0 ? Status.Ok : <i32>-result;
}

function resultOf(status: i32): HostResult {
  return status == Status.Ok ? <i64>load<u32>(OUT_EXTRA) : -<i64>status;
}

/** A shared-data value and the CAS token it was read with. */
export class SharedValue extends Returned {
  cas: u32 = 0;
}

// ---- logging and time ----

export function log(level: i32, message: string): void {
  const b = String.UTF8.encode(message);
  env.proxy_log(level, changetype<usize>(b), b.byteLength);
}

export function getLogLevel(): i32 {
  store<u32>(OUT_EXTRA, 0);
  if (env.proxy_get_log_level(OUT_EXTRA) != Status.Ok) return -1;
  return load<i32>(OUT_EXTRA);
}

/** Nanoseconds since the epoch, or 0 when the host refuses. */
export function currentTimeNanos(): u64 {
  store<u64>(OUT_EXTRA, 0);
  if (env.proxy_get_current_time_nanoseconds(OUT_EXTRA) != Status.Ok) return 0;
  return load<u64>(OUT_EXTRA);
}

export function setTickPeriodMs(periodMs: u32): i32 {
  return env.proxy_set_tick_period_milliseconds(periodMs);
}

// ---- properties ----

/** Joins path segments with NUL, as the host splits them (Envoy: `path` tokens separated by '\0'). */
export function propertyPath(segments: string[]): ArrayBuffer {
  let joined = "";
  for (let i = 0; i < segments.length; i++) {
    if (i > 0) joined += "\0";
    joined += segments[i];
  }
  return String.UTF8.encode(joined);
}

/** Reads a property into `out`; returns the host status. */
export function getProperty(path: ArrayBuffer, out: Returned): i32 {
  clearOutParams();
  const s = env.proxy_get_property(changetype<usize>(path), path.byteLength, OUT_PTR, OUT_LEN);
  if (s == Status.Ok) out.take();
  return s;
}

/** Allocates (a path, a buffer and a string): for configuration and tests, not the request path. */
export function getPropertyString(segments: string[]): string | null {
  const out = new Returned();
  if (getProperty(propertyPath(segments), out) != Status.Ok) return null;
  const s = out.toString();
  out.release();
  return s;
}

export function setProperty(path: ArrayBuffer, value: ArrayBuffer): i32 {
  return env.proxy_set_property(changetype<usize>(path), path.byteLength, changetype<usize>(value), value.byteLength);
}

// ---- buffers ----

/** Reads up to maxSize bytes of a buffer into `out`; returns the host status. */
export function getBufferBytes(type: i32, start: u32, maxSize: u32, out: Returned): i32 {
  clearOutParams();
  const s = env.proxy_get_buffer_bytes(type, start, maxSize, OUT_PTR, OUT_LEN);
  if (s == Status.Ok) out.take();
  return s;
}

/** The size of a buffer, or -1 when the host has none. */
export function getBufferSize(type: i32): i64 {
  clearOutParams();
  if (env.proxy_get_buffer_status(type, OUT_LEN, OUT_EXTRA) != Status.Ok) return -1;
  return <i64>load<u32>(OUT_LEN);
}

export function setBufferBytes(type: i32, start: u32, size: u32, value: ArrayBuffer): i32 {
  return env.proxy_set_buffer_bytes(type, start, size, changetype<usize>(value), value.byteLength);
}

// ---- header maps ----

export function getHeaderMapSize(type: i32): i64 {
  clearOutParams();
  if (env.proxy_get_header_map_size(type, OUT_LEN) != Status.Ok) return -1;
  return <i64>load<u32>(OUT_LEN);
}

/** Fetches a whole map into `out` and points `reader` at it (valid until out is released). Returns the host
 *  status, or ParseFailure when the bytes are malformed. */
export function getHeaderMapPairs(type: i32, reader: HeaderMapReader, out: Returned): i32 {
  clearOutParams();
  const s = env.proxy_get_header_map_pairs(type, OUT_PTR, OUT_LEN);
  if (s != Status.Ok) return s;
  out.take();
  return reader.reset(out.ptr, out.len) ? Status.Ok : Status.ParseFailure;
}

export function setHeaderMapPairs(type: i32, writer: HeaderMapWriter): i32 {
  const ptr = writer.finish();
  return env.proxy_set_header_map_pairs(type, ptr, writer.length);
}

/** Reads one header value into `out`; returns the host status (NotFound when absent). */
export function getHeaderValueRaw(type: i32, key: Utf8, out: Returned): i32 {
  clearOutParams();
  const s = env.proxy_get_header_map_value(type, key.ptr, key.len, OUT_PTR, OUT_LEN);
  if (s == Status.Ok) out.take();
  return s;
}

/** Allocates (a key, a buffer and a string): for configuration and tests, not the request path. */
export function getHeaderValue(type: i32, key: string): string | null {
  const out = new Returned();
  if (getHeaderValueRaw(type, new Utf8(key), out) != Status.Ok) return null;
  const s = out.toString();
  out.release();
  return s;
}

export function addHeaderValue(type: i32, key: Utf8, valuePtr: usize, valueLen: usize): i32 {
  return env.proxy_add_header_map_value(type, key.ptr, key.len, valuePtr, valueLen);
}

export function replaceHeaderValue(type: i32, key: Utf8, valuePtr: usize, valueLen: usize): i32 {
  return env.proxy_replace_header_map_value(type, key.ptr, key.len, valuePtr, valueLen);
}

export function removeHeader(type: i32, key: Utf8): i32 {
  return env.proxy_remove_header_map_value(type, key.ptr, key.len);
}

// ---- shared data (process-wide, keyed by vm_id, compare-and-swap) ----

/** Reads a shared value and its CAS into `out`; returns the host status. */
export function getSharedData(key: Utf8, out: SharedValue): i32 {
  clearOutParams();
  const s = env.proxy_get_shared_data(key.ptr, key.len, OUT_PTR, OUT_LEN, OUT_EXTRA);
  if (s == Status.Ok) {
    out.take();
    out.cas = load<u32>(OUT_EXTRA);
  }
  return s;
}

/** Writes a shared value; a non-zero cas must match the current one (else CasMismatch). */
export function setSharedData(key: Utf8, valuePtr: usize, valueLen: usize, cas: u32): i32 {
  return env.proxy_set_shared_data(key.ptr, key.len, valuePtr, valueLen, cas);
}

// ---- shared queues ----

/** The queue's id, or the host's refusal. */
export function registerSharedQueue(name: Utf8): HostResult {
  store<u32>(OUT_EXTRA, 0);
  return resultOf(env.proxy_register_shared_queue(name.ptr, name.len, OUT_EXTRA));
}

/** The id of another VM's queue, or the host's refusal. */
export function resolveSharedQueue(vmId: Utf8, name: Utf8): HostResult {
  store<u32>(OUT_EXTRA, 0);
  return resultOf(env.proxy_resolve_shared_queue(vmId.ptr, vmId.len, name.ptr, name.len, OUT_EXTRA));
}

export function enqueueSharedQueue(id: u32, valuePtr: usize, valueLen: usize): i32 {
  return env.proxy_enqueue_shared_queue(id, valuePtr, valueLen);
}

/** Dequeues into `out`; Empty when there is nothing. */
export function dequeueSharedQueue(id: u32, out: Returned): i32 {
  clearOutParams();
  const s = env.proxy_dequeue_shared_queue(id, OUT_PTR, OUT_LEN);
  if (s == Status.Ok) out.take();
  return s;
}

// ---- metrics ----

/** Defines a metric and returns its id, or 0xffffffff when the host refuses. */
export function defineMetric(type: i32, name: string): u32 {
  const b = String.UTF8.encode(name);
  store<u32>(OUT_EXTRA, 0);
  if (env.proxy_define_metric(type, changetype<usize>(b), b.byteLength, OUT_EXTRA) != Status.Ok) return u32.MAX_VALUE;
  return load<u32>(OUT_EXTRA);
}

export function incrementMetric(id: u32, delta: i64): i32 {
  return env.proxy_increment_metric(id, delta);
}

export function recordMetric(id: u32, value: u64): i32 {
  return env.proxy_record_metric(id, value);
}

/** The metric's value, or -1 when the host has no such metric. */
export function getMetric(id: u32): i64 {
  store<u64>(OUT_EXTRA, 0);
  if (env.proxy_get_metric(id, OUT_EXTRA) != Status.Ok) return -1;
  return load<i64>(OUT_EXTRA);
}

// ---- HTTP calls and stream control ----

/** Dispatches an HTTP call to a cluster: the call's token, with which the answer comes to
 *  proxy_on_http_call_response, or the host's refusal. */
export function dispatchHttpCall(cluster: Utf8, headers: HeaderMapWriter, body: ArrayBuffer | null, timeoutMs: u32): HostResult {
  const hp = headers.finish();
  const bodyPtr: usize = body === null ? 0 : changetype<usize>(body);
  const bodyLen = body === null ? 0 : body.byteLength;
  store<u32>(OUT_EXTRA, 0);
  return resultOf(env.proxy_http_call(cluster.ptr, cluster.len, hp, headers.length, bodyPtr, bodyLen, 0, 0, timeoutMs, OUT_EXTRA));
}

/** proxy_get_status: the root context's status code (Envoy: 0, or BrokenConnection once an HTTP call has
 *  failed; it is never reset). Not an HTTP status: see httpCallResponseStatus. */
export function getStatusCode(): u32 {
  clearOutParams();
  if (env.proxy_get_status(OUT_EXTRA, OUT_PTR, OUT_LEN) != Status.Ok) return 0;
  freeOutBuffer(); // the status message is not used
  return load<u32>(OUT_EXTRA);
}

const STATUS_HEADER = new Utf8(":status");

/** The HTTP status of the call being answered, from the `:status` header of its response map (where
 *  Envoy puts it); 0 when the call failed (Envoy then has no response map) or the value is not 3 digits.
 *  `scratch` holds the header while it is read and is released before returning. */
export function httpCallResponseStatus(scratch: Returned): i32 {
  if (getHeaderValueRaw(MapType.HttpCallResponseHeaders, STATUS_HEADER, scratch) != Status.Ok) return 0;
  let status = 0;
  if (scratch.len == 3) {
    for (let i: usize = 0; i < 3; i++) {
      const d = <i32>load<u8>(scratch.ptr + i) - 48;
      if (d < 0 || d > 9) {
        status = 0;
        break;
      }
      status = status * 10 + d;
    }
  }
  scratch.release();
  return status;
}

export function sendLocalResponse(status: u32, details: string, body: string, headers: HeaderMapWriter): i32 {
  const d = String.UTF8.encode(details);
  const b = String.UTF8.encode(body);
  const hp = headers.finish();
  return env.proxy_send_local_response(status, changetype<usize>(d), d.byteLength, changetype<usize>(b), b.byteLength, hp, headers.length, -1);
}

export function continueStream(streamType: i32): i32 {
  return env.proxy_continue_stream(streamType);
}

export function closeStream(streamType: i32): i32 {
  return env.proxy_close_stream(streamType);
}

export function setEffectiveContext(contextId: u32): i32 {
  return env.proxy_set_effective_context(contextId);
}

export function done(): i32 {
  return env.proxy_done();
}
