// One HTTP stream through the Wasm filter, with Envoy's semantics: the callback order (request headers,
// body per chunk, response callbacks, then on_log before on_done, then delete), header StopIteration
// mapping, cumulative body buffering with the 413 limit, local replies and the failure policy on a trap.
import { BufferType, DataStatus, HeadersStatus, LogLevel, Status, StreamType } from "./abi.ts";
import type { HeaderList } from "./header-map.ts";
import type { WasmVm } from "./vm.ts";
import { HeaderMap, StreamState, normalizeHeaders, type LocalReply, type StreamInfo } from "./stream.ts";
import type { PluginStreamCalls, StreamWorker } from "./stream-worker.ts";

const enc = new TextEncoder();

/**
 * Request side:
 * - "headers": nothing decoded yet;
 * - "paused": the filter holds the request (headers and any body) and gets each body chunk;
 * - "stalled": stock Envoy mapped a headers StopIteration to StopAllIteration: the body is buffered but
 *   never reaches the filter, and nothing moves until the plugin calls continue_stream;
 * - "forwarded": headers (and body released so far) may go upstream;
 * - "local-reply": the stream is answered locally (plugin reply, 413, or a failure policy's 503);
 * - "reset": the stream was reset.
 */
export type RequestState = "headers" | "paused" | "stalled" | "forwarded" | "local-reply" | "reset";

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export class FilterStream implements PluginStreamCalls {
  readonly state: StreamState;
  readonly contextId: number;
  requestState: RequestState = "headers";
  /** Names of the module callbacks invoked for this stream, in order. */
  readonly calls: string[] = [];
  /** True when the filter is bypassed (FAIL_OPEN after a failure): the stream goes on untouched. */
  bypass = false;
  /** Called when the request becomes forwardable or is answered outside a decode call (continue_stream). */
  onChange: (() => void) | null = null;
  private released: Uint8Array[] = [];
  private pendingBody: Uint8Array = new Uint8Array(0);
  private responseHeld = false;
  private inCallback = 0;
  private finished = false;
  private awaitingDone = false;
  // The VM this stream started on; a FAIL_RELOAD may give the worker a new one meanwhile.
  private readonly vm: WasmVm;

  constructor(
    private readonly worker: StreamWorker,
    info: StreamInfo,
  ) {
    const vm = (this.vm = worker.vm);
    const host = worker.host;
    this.contextId = vm.failed ? 0 : vm.allocateContextId();
    this.state = new StreamState(this.contextId, info, host.clock.nowMs());
    if (vm.failed) {
      this.applyFailurePolicy("new stream on a failed VM");
      return;
    }
    vm.streams.set(this.contextId, this.state);
    worker.streams.set(this.contextId, this);
    this.invoke("proxy_on_context_create", [this.contextId, worker.rootContextId]);
  }

  get localReply(): LocalReply | null {
    return this.state.localReply;
  }
  /** The Higress override host, if the plugin set one. */
  get overrideHost(): string | null {
    return this.state.overrideHost;
  }
  /** Request headers as they would go upstream (after the plugin's changes). */
  get requestHeaders(): HeaderList {
    return this.state.requestHeaders.pairs;
  }

  /** Body bytes released for the upstream since the last call. */
  takeReleasedBody(): Uint8Array {
    const out = this.released.reduce(concat, new Uint8Array(0));
    this.released = [];
    return out;
  }

  decodeHeaders(headers: HeaderList, endOfStream: boolean): void {
    if (this.requestState !== "headers") return;
    this.state.requestHeaders.set(headers);
    if (this.bypass) {
      this.requestState = "forwarded";
      return;
    }
    const r = this.invoke("proxy_on_request_headers", [this.contextId, headers.length, endOfStream ? 1 : 0]);
    if (r === null || this.settled()) return;
    if (r === HeadersStatus.Continue) {
      this.requestState = "forwarded";
    } else if (r === HeadersStatus.StopIteration && (this.worker.host.flavor === "higress" || this.worker.host.allowOnHeadersStopIteration)) {
      this.requestState = "paused";
    } else {
      // Stock Envoy without allow_on_headers_stop_iteration: StopIteration becomes StopAllIterationAndWatermark.
      this.requestState = "stalled";
    }
  }

  decodeData(chunk: Uint8Array, endOfStream: boolean): void {
    this.state.requestBodySize += chunk.length;
    switch (this.requestState) {
      case "forwarded": {
        if (this.bypass) {
          this.released.push(chunk);
          return;
        }
        this.state.requestBody = chunk;
        this.invoke("proxy_on_request_body", [this.contextId, chunk.length, endOfStream ? 1 : 0], [BufferType.HttpRequestBody]);
        if (this.requestState === "forwarded") this.released.push(this.state.requestBody);
        this.state.requestBody = new Uint8Array(0);
        return;
      }
      case "stalled":
        this.pendingBody = concat(this.pendingBody, chunk);
        return;
      case "paused":
        break;
      default:
        return;
    }
    this.state.requestBody = concat(this.state.requestBody, chunk);
    const r = this.invoke("proxy_on_request_body", [this.contextId, this.state.requestBody.length, endOfStream ? 1 : 0], [BufferType.HttpRequestBody]);
    if (r === null || this.settled()) return;
    if (r === DataStatus.Continue) {
      this.forward();
    } else if (r === DataStatus.StopIterationAndBuffer && this.state.requestBody.length > this.worker.host.bufferLimitBytes) {
      this.sendLocal({ status: 413, details: "request_payload_too_large", body: enc.encode("Payload Too Large"), headers: [], grpcStatus: -1 });
    } else if (r === DataStatus.StopIterationNoBuffer) {
      this.state.requestBody = new Uint8Array(0);
    }
  }

  decodeTrailers(trailers: HeaderList): void {
    this.state.requestTrailers = new HeaderMap(normalizeHeaders(trailers));
    if (this.bypass || this.requestState === "local-reply" || this.requestState === "reset") return;
    // The buffered body stays readable while the request is paused (spec "Buffers").
    const readable = this.requestState === "paused" ? [BufferType.HttpRequestBody] : [];
    const r = this.invoke("proxy_on_request_trailers", [this.contextId, trailers.length], readable);
    if (r === HeadersStatus.Continue && this.requestState === "paused") this.forward();
  }

  encodeHeaders(headers: HeaderList, endOfStream: boolean): void {
    this.state.responseHeaders = new HeaderMap(normalizeHeaders(headers));
    if (this.bypass) return;
    const r = this.invoke("proxy_on_response_headers", [this.contextId, headers.length, endOfStream ? 1 : 0]);
    this.responseHeld = r !== null && r !== HeadersStatus.Continue;
  }

  /** Whether the response headers may be sent downstream now. */
  get responseHeadersReleased(): boolean {
    return !this.responseHeld;
  }

  /** Runs the response body callback and returns the bytes to send downstream now. */
  encodeData(chunk: Uint8Array, endOfStream: boolean): Uint8Array {
    this.state.responseBodySize += chunk.length;
    if (this.bypass) return chunk;
    this.state.responseBody = concat(this.state.responseBody, chunk);
    const r = this.invoke("proxy_on_response_body", [this.contextId, this.state.responseBody.length, endOfStream ? 1 : 0], [BufferType.HttpResponseBody]);
    if (r === null || r === DataStatus.Continue) {
      const out = this.state.responseBody;
      this.state.responseBody = new Uint8Array(0);
      this.responseHeld = false;
      return out;
    }
    if (r === DataStatus.StopIterationNoBuffer) this.state.responseBody = new Uint8Array(0);
    return new Uint8Array(0);
  }

  /** The stream is over (response sent, or reset): on_log, then on_done, then on_delete, as Envoy does. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.contextId === 0) return;
    const vm = this.vm;
    if (!vm.failed && vm.streams.has(this.contextId)) {
      this.invoke("proxy_on_log", [this.contextId]);
      const done = this.invoke("proxy_on_done", [this.contextId]);
      if (done === 0 && !vm.failed) {
        this.awaitingDone = true;
        return;
      }
    }
    this.delete();
  }

  /** A downstream or upstream reset: Envoy still writes the access log, so the teardown is the same. */
  reset(): void {
    if (this.requestState !== "local-reply") this.requestState = "reset";
    this.finish();
  }

  // ---- called by host functions through the worker's hooks ----

  setLocalReply(reply: LocalReply): number {
    if (this.state.localReply || this.requestState === "reset") return Status.BadArgument;
    this.sendLocal(reply);
    return Status.Ok;
  }

  continueFromPlugin(type: number): number {
    if (type === StreamType.HttpRequest && (this.requestState === "paused" || this.requestState === "stalled")) {
      this.forward();
      this.notify();
    } else if (type === StreamType.HttpResponse && this.responseHeld) {
      this.responseHeld = false;
      this.notify();
    }
    return Status.Ok;
  }

  closeFromPlugin(_type: number): number {
    this.state.closedByPlugin = true;
    this.requestState = "reset";
    this.notify();
    return Status.Ok;
  }

  doneFromPlugin(): number {
    if (!this.awaitingDone) return Status.NotFound;
    this.awaitingDone = false;
    this.delete();
    return Status.Ok;
  }

  // ---- internals ----

  private forward(): void {
    const wasStalled = this.requestState === "stalled";
    this.requestState = "forwarded";
    this.released.push(this.state.requestBody);
    this.state.requestBody = new Uint8Array(0);
    if (wasStalled) {
      this.released.push(this.pendingBody);
      this.pendingBody = new Uint8Array(0);
    }
  }

  private settled(): boolean {
    return this.requestState === "local-reply" || this.requestState === "reset" || this.bypass;
  }

  private sendLocal(reply: LocalReply): void {
    const headers = normalizeHeaders(reply.headers).filter(([k]) => k !== ":status");
    this.state.localReply = { ...reply, headers };
    this.requestState = "local-reply";
    this.released = [];
    // Envoy runs the local reply through the encoder filters, this one included.
    const responseHeaders: HeaderList = [[":status", String(reply.status)], ...headers];
    if (reply.body.length) responseHeaders.push(["content-length", String(reply.body.length)]);
    if (!this.vm.failed && this.contextId !== 0 && !this.bypass) {
      this.encodeHeaders(responseHeaders, reply.body.length === 0);
      if (reply.body.length) this.encodeData(reply.body, true);
    } else {
      this.state.responseHeaders = new HeaderMap(responseHeaders);
    }
    this.notify();
  }

  private notify(): void {
    if (this.inCallback === 0) this.onChange?.();
  }

  /** Calls a stream callback; on a trap applies the failure policy and returns null. */
  private invoke(name: string, args: number[], readable: number[] = []): number | null {
    if (this.contextId === 0 || this.vm.failed) return null;
    this.calls.push(name);
    this.inCallback++;
    const r = this.worker.safeCallOn(this.vm, name, args, this.contextId, readable);
    this.inCallback--;
    if (!r.ok) {
      this.applyFailurePolicy(name);
      return null;
    }
    return r.value;
  }

  private applyFailurePolicy(where: string): void {
    const host = this.worker.host;
    if (host.failurePolicy === "FAIL_OPEN") {
      this.bypass = true;
      if (this.requestState === "paused" || this.requestState === "stalled") this.forward();
      else if (this.requestState === "headers" && this.contextId !== 0) this.requestState = "forwarded";
      this.worker.host.log(LogLevel.Warn, `FAIL_OPEN: bypassing the filter after failure in ${where}`, this.vm);
      return;
    }
    // FAIL_CLOSED, and FAIL_RELOAD for the stream that saw the failure: Envoy answers 503.
    if (this.requestState === "local-reply" || this.finished) return;
    this.sendLocal({ status: 503, details: "wasm_fail_stream", body: new Uint8Array(0), headers: [], grpcStatus: -1 });
  }

  private delete(): void {
    if (this.contextId === 0) return;
    const vm = this.vm;
    if (!vm.failed && vm.streams.has(this.contextId)) this.invoke("proxy_on_delete", [this.contextId]);
    vm.streams.delete(this.contextId);
    this.worker.streams.delete(this.contextId);
  }
}

