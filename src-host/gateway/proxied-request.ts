// One downstream request through the gateway, driven the way Envoy's HTTP connection manager drives a filter
// chain: request headers and body chunks go through the Wasm filter as they arrive; once the filter lets the
// request go, the router picks the host and the released body is streamed upstream; the response goes back
// through the filter chunk by chunk and is flushed to the client right away (SSE stays unbuffered).
import { request, type Agent, type IncomingMessage, type ServerResponse, type ClientRequest } from "node:http";
import type { FilterStream } from "../host/filter-stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import type { Http1CodecRefusal } from "../host/http1-codec-error.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { StreamInfo } from "../host/stream.ts";
import { connectionStreamInfo } from "./connection-stream-info.ts";
import { RESPONSE_FLAG_BITS } from "../host/response-flags.ts";
import { splitAddress } from "../host/split-address.ts";
import { upstreamReset } from "./upstream-reset.ts";
import type { RequestRecord } from "./request-log.ts";
import { localReplyHeaders } from "../host/local-reply-headers.ts";
import type { Router } from "./router.ts";

const EMPTY = new Uint8Array(0);
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Connection-specific headers a proxy never forwards (RFC 9110 §7.6.1), plus `expect`, which the gateway answers. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "expect"]);

/** The stream property the plugin sets when it fails open; set_property keys are the NUL-joined path. */
export const FALLBACK_PROPERTY_KEYS = ["endpoint_picker\0fallback", "endpoint_picker.fallback"];

export interface ProxyContext {
  host: PluginHost | null;
  router: Router;
  clusterName: string;
  /** The route timeout (0: none), from when the router has the whole request until the response is complete. */
  requestTimeoutMs: number;
  /** The stream idle timeout (0: none): the route's idle_timeout if set, else the HCM's stream_idle_timeout. */
  streamIdleTimeoutMs: number;
  /** The HCM's request_timeout (0: none), from the stream's start until the whole request passed the filters. */
  hcmRequestTimeoutMs: number;
  /** HTTP/1 trailers (protocol.proto Http1ProtocolOptions.enable_trailers), off by default in Envoy: without it the
   *  codec drops the trailers it reads (http1 balsa_parser.cc validateAndProcessHeadersOrTrailersImpl skips them,
   *  codec_impl.cc ConnectionImpl::onHeaderField ignores them) and encodes none (StreamEncoderImpl::encodeTrailersBase
   *  just ends the body). `downstream`: the HCM's http_protocol_options; `upstream`: the cluster's. */
  trailers: { downstream: boolean; upstream: boolean };
  agent: Agent;
  /** Called once per request when it is over. */
  complete(record: RequestRecord): void;
  /** Reports an unexpected exception (a host or gateway bug); the request is answered 500 or reset. */
  internalError(id: number, where: string, e: unknown): void;
}

export interface ConnectionInfo {
  id: number;
  /** Worker (VM) index all requests of this connection use. */
  worker: number;
}

export class ProxiedRequest {
  private stream: FilterStream | null = null;
  private readonly startMs = performance.now();
  private requestEnded = false;
  private endOfStreamAtHeaders = false;
  /** The client's request trailers, as the codec delivered them (none unless the HCM enables trailers). */
  private requestTrailers: HeaderList = [];
  /** Without a plugin: the request headers and the body waiting to go upstream. */
  private plainHeaders: HeaderList = [];
  private plainBody: Uint8Array[] = [];
  private upstream: ClientRequest | null = null;
  private upstreamEnded = false;
  /** The client took more than its socket's buffer: upstream reads wait for its "drain". */
  private awaitingClientDrain = false;
  /** The upstream socket took more than its buffer: downstream reads wait for its "drain". */
  private upstreamFull = false;
  private upstreamCancelled = false;
  private upstreamResponse: IncomingMessage | null = null;
  /** The upstream response ended; the downstream one ends once the filter no longer holds it. */
  private upstreamComplete = false;
  /** The upstream response's trailers, as the codec delivered them (none unless the cluster enables trailers). */
  private responseTrailers: HeaderList = [];
  private upstreamStatus = 0;
  private headersWritten = false;
  private responding = false;
  private completed = false;
  private routeTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private hcmRequestTimer: NodeJS.Timeout | null = null;
  private endpoint: string | null = null;
  private route: string | null = null;
  private firstByteMs: number | null = null;
  private bytesIn = 0;
  private bytesOut = 0;
  private flags = "-";
  private details: string | null = null;

  constructor(
    private readonly ctx: ProxyContext,
    readonly id: number,
    private readonly conn: ConnectionInfo,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {}

  start(): void {
    const { req, res } = this;
    res.on("close", () => this.guard("client close", () => this.onClientClose()));
    req.on("error", () => {}); // a client reset surfaces through res "close"
    // conn_manager_impl.cc ActiveStream::ActiveStream arms the stream idle timer when the stream is created (none
    // when stream_idle_timeout is 0); resetIdleTimer re-arms it on each activity.
    if (this.ctx.streamIdleTimeoutMs > 0) {
      this.idleTimer = this.startTimer(this.ctx.streamIdleTimeoutMs, "idle timeout", () => this.onIdleTimeout());
    }
    // ActiveStream::ActiveStream arms request_timer_ too (none when request_timeout is 0).
    if (this.ctx.hcmRequestTimeoutMs > 0) {
      this.hcmRequestTimer = this.startTimer(this.ctx.hcmRequestTimeoutMs, "request timeout", () => this.onHcmRequestTimeout());
    }
    this.guard("request headers", () => this.onHeaders());
    req.on("data", (chunk: Buffer) => this.guard("request body", () => this.onData(chunk)));
    req.on("end", () => this.guard("request end", () => this.onEnd()));
  }

  // ---- request side ----

  private onHeaders(): void {
    const { req } = this;
    const headers: HeaderList = [
      [":method", req.method ?? "GET"],
      [":path", req.url ?? "/"],
      [":authority", req.headers.host ?? ""],
      [":scheme", "http"],
    ];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const key = req.rawHeaders[i].toLowerCase();
      if (key !== "host") headers.push([key, req.rawHeaders[i + 1]]);
    }
    // HTTP/1.1: no content-length and no transfer-encoding means no body.
    const cl = req.headers["content-length"];
    this.endOfStreamAtHeaders = (cl === undefined && req.headers["transfer-encoding"] === undefined) || cl === "0";
    const host = this.ctx.host;
    if (host) {
      const info: StreamInfo = {
        ...connectionStreamInfo(this.ctx.clusterName, req.socket, this.conn.id, `HTTP/${req.httpVersion}`),
        routeName: "default",
      };
      const stream = host.newStream(info, this.conn.worker);
      this.stream = stream;
      stream.onChange = () => this.guard("continue", () => this.onContinue());
      stream.decodeHeaders(headers, this.endOfStreamAtHeaders);
    } else {
      this.plainHeaders = headers;
    }
    // conn_manager_impl.cc ActiveStream::decodeHeaders: resetIdleTimer() after the filter chain's decodeHeaders.
    this.resetIdleTimer();
    this.progress();
  }

  /** The codec has the whole request (ServerConnectionImpl::onMessageCompleteBase: remote_complete_); Node's
   *  parser marks it (req.complete) before the body's last events reach this request. */
  get remoteComplete(): boolean {
    return this.req.complete || this.bodyComplete;
  }

  /**
   * The client's bytes broke the HTTP/1 codec in the middle of this request (its body's chunk framing, its trailers):
   * codec_impl.cc ServerConnectionImpl::sendProtocolError sets the encoder's details and, unless the response started
   * (startedResponse), sends the refusal's local reply on this stream (DownstreamFilterManager::sendLocalReply: through
   * the filter chain, or straight to the codec if the filter holds response headers); then
   * ConnectionManagerImpl::handleCodecError closes the connection (doConnectionClose → resetAllStreams: the encoder's
   * details, flag DownstreamProtocolError), so the reply says "connection: close" and a started response is cut.
   */
  codecError(refusal: Http1CodecRefusal): void {
    if (this.completed) return;
    this.res.shouldKeepAlive = false;
    if (this.headersWritten) this.resetWithDetails("DPE", refusal.details);
    else this.sendLocal(refusal.status, refusal.text, "DPE", refusal.details, !this.stream?.state.responseHeaders);
  }

  /** The filter continued (continue_stream) or changed the stream's state outside a decode call. */
  private onContinue(): void {
    if (this.responding) {
      if (!this.completed && !this.responseReplaced()) this.releaseResponse();
      this.progress();
      return;
    }
    // filter_manager.cc ActiveStreamFilterBase::commonContinue: the body the filter buffered goes on through doData
    // → FilterManager::decodeData, which resets the idle timer.
    if (!this.upstream && !this.endOfStreamAtHeaders && this.stream?.requestState === "forwarded") this.resetIdleTimer();
    this.progress();
  }

  private onData(chunk: Buffer): void {
    this.bytesIn += chunk.length;
    if (this.completed) return;
    // filter_manager.cc FilterManager::decodeData: resetIdleTimer() for each body chunk, the last one included.
    this.resetIdleTimer();
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    if (this.stream) this.stream.decodeData(bytes, false);
    else this.plainBody.push(bytes);
    this.progress();
  }

  private onEnd(): void {
    this.requestEnded = true;
    if (this.completed) return;
    this.resetIdleTimer();
    // http1 codec_impl.cc ServerConnectionImpl::onMessageCompleteBase: trailers read (enable_trailers) end the stream
    // (decodeTrailers, the body's last chunk having gone with end_stream false); otherwise an empty end-of-stream chunk.
    const trailers = this.ctx.trailers.downstream ? trailerList(this.req.rawTrailers) : [];
    this.requestTrailers = trailers;
    if (this.stream && !this.endOfStreamAtHeaders) {
      if (trailers.length > 0) this.stream.decodeTrailers(trailers);
      else this.stream.decodeData(EMPTY, true);
    }
    this.progress();
  }

  /** Acts on the filter's request state; runs after every decode call and on continue_stream. */
  private progress(): void {
    if (this.completed || this.responding) {
      if (this.upstream) this.pumpBody();
      return;
    }
    const state = this.stream ? this.stream.requestState : "forwarded";
    switch (state) {
      case "forwarded":
        if (this.stream?.requestBufferAboveLimit) this.req.pause();
        else if (this.req.isPaused() && !this.upstreamFull) this.req.resume();
        if (!this.upstream) this.openUpstream();
        else this.pumpBody();
        return;
      case "local-reply":
        this.sendPluginLocalReply();
        return;
      case "reset":
        this.resetClient("RST");
        return;
      default:
        // Held by the filter ("headers", "paused", "stalled"): wait for it, or for the timeout. Envoy's watermark: a
        // body buffer it holds past the limit (and still streaming: no 413) stops the client being read.
        if (this.stream?.requestBufferAboveLimit) this.req.pause();
        return;
    }
  }

  private openUpstream(): void {
    const route = this.ctx.router.route(this.stream);
    if (route === null) {
      this.sendLocal(503, "no healthy upstream", "UH", "no_healthy_upstream");
      return;
    }
    this.endpoint = route.host.address;
    this.route = route.reason;
    if (this.stream) this.stream.state.upstreamAddress = route.host.address;
    const headers = this.stream ? this.stream.requestHeaders : this.plainHeaders;
    let method = "GET";
    let path = "/";
    let authority = "";
    const out: string[] = [];
    let contentLength: string | null = null;
    for (const [k, v] of headers) {
      if (k === ":method") method = v;
      else if (k === ":path") path = v;
      else if (k === ":authority") authority = v;
      else if (k === "content-length") contentLength = v;
      else if (!k.startsWith(":") && !HOP_BY_HOP.has(k) && k !== "host") out.push(k, v);
    }
    out.push("host", authority || route.host.address);
    // The whole request is in: send its exact (possibly rewritten) length. Otherwise keep the declared length
    // when there is one, or stream the body chunked.
    const body = this.takeBody();
    // Trailers going upstream need a chunked body (http1 codec_impl.cc encodeTrailersBase encodes them only then).
    const chunkedForTrailers = this.ctx.trailers.upstream && contentLength === null && (this.stream?.requestTrailers ?? this.requestTrailers).length > 0;
    if (this.requestReleased && !chunkedForTrailers) {
      if (body.length > 0 || !this.endOfStreamAtHeaders || contentLength !== null) out.push("content-length", String(body.length));
    } else if (contentLength !== null) {
      out.push("content-length", contentLength);
    }
    const { hostname, port } = splitAddress(route.host.address);
    const up = request({ host: hostname, port, method, path, headers: out, agent: this.ctx.agent });
    this.upstream = up;
    up.on("response", (r) => this.guard("upstream response", () => this.onUpstreamResponse(r)));
    up.on("error", (e) => this.guard("upstream error", () => this.onUpstreamError(e)));
    this.writeUpstream(up, body);
    if (this.requestReleased) this.endUpstreamRequest(up);
    // The headers go upstream now even while the filter holds the body (router.cc Filter::decodeHeaders starts the
    // upstream request); Node would wait for the first body write.
    else if (body.length === 0) up.flushHeaders();
  }

  /**
   * The router has the whole request: end it upstream and start the route timeout, as router.cc
   * Filter::onRequestComplete does once end_stream reaches the router (after every filter let it through), so the
   * time the plugin held the request and the upload's own time do not count against it. It runs until the response
   * is complete (Filter::onUpstreamComplete disables response_timeout_); route_components.proto RouteAction.timeout:
   * "A value of 0 will disable the route's timeout."
   */
  private endUpstreamRequest(up: ClientRequest): void {
    this.upstreamEnded = true;
    // filter_manager.cc FilterManager::decodeData/decodeHeaders: once end_stream has passed every filter,
    // disarmRequestTimeout().
    this.disarmHcmRequestTimer();
    // The request's trailers go upstream when its codec encodes them (and Node's body is chunked).
    const trailers = this.stream ? (this.stream.requestTrailers ?? []) : this.requestTrailers;
    if (this.ctx.trailers.upstream && trailers.length > 0) up.addTrailers(trailers);
    up.end();
    if (this.ctx.requestTimeoutMs > 0 && this.routeTimer === null && !this.completed) {
      this.routeTimer = this.startTimer(this.ctx.requestTimeoutMs, "timeout", () => this.onRouteTimeout());
    }
  }

  /**
   * Flow control, as Envoy's watermarks: past the upstream connection's buffer the downstream is not read
   * (upstream_request.cc UpstreamRequest::onAboveWriteBufferHighWatermark -> readDisable on the downstream),
   * and the other way round in writeBody; a large body never piles up in the gateway.
   */
  private writeUpstream(up: ClientRequest, body: Uint8Array): void {
    if (body.length === 0 || up.write(body) || this.upstreamFull) return;
    this.upstreamFull = true;
    this.req.pause();
    up.once("drain", () => {
      this.upstreamFull = false;
      if (!this.completed && this.req.isPaused()) this.req.resume();
    });
  }

  /** Every request byte has been decoded (or the request has no body). */
  private get bodyComplete(): boolean {
    return this.requestEnded || this.endOfStreamAtHeaders;
  }

  /** The whole request may go to the upstream: all decoded, none of it held by the filter. */
  private get requestReleased(): boolean {
    return this.bodyComplete && !this.stream?.requestBodyHeld;
  }

  private takeBody(): Uint8Array {
    if (this.stream) return this.stream.takeReleasedBody();
    const parts = this.plainBody;
    this.plainBody = [];
    return parts.length === 1 ? parts[0] : new Uint8Array(Buffer.concat(parts));
  }

  private pumpBody(): void {
    const up = this.upstream;
    if (!up || this.upstreamEnded || up.destroyed) return;
    const body = this.takeBody();
    // filter_manager.cc FilterManager::decodeData resets the idle timer for body a continue lets go, too.
    if (body.length > 0 || this.requestReleased) this.resetIdleTimer();
    this.writeUpstream(up, body);
    if (this.requestReleased) this.endUpstreamRequest(up);
  }

  // ---- response side ----

  private onUpstreamResponse(r: IncomingMessage): void {
    if (this.completed || this.responding || this.upstreamCancelled) {
      r.resume();
      return;
    }
    // The route timeout keeps running until the response is complete (router.cc Filter::onUpstreamComplete disables
    // response_timeout_), so a response that streams past it is cut (onRouteTimeout).
    this.responding = true;
    // filter_manager.cc FilterManager::encodeHeaders: resetIdleTimer() and disarmRequestTimeout(); encodeData:
    // resetIdleTimer().
    this.resetIdleTimer();
    this.disarmHcmRequestTimer();
    this.upstreamResponse = r;
    this.upstreamStatus = r.statusCode ?? 502;
    // router.cc Filter::onUpstreamHeaders, before the filters see the headers.
    this.setDetails("via_upstream");
    const headers: HeaderList = [[":status", String(this.upstreamStatus)]];
    for (let i = 0; i + 1 < r.rawHeaders.length; i += 2) {
      const key = r.rawHeaders[i].toLowerCase();
      if (!HOP_BY_HOP.has(key)) headers.push([key, r.rawHeaders[i + 1]]);
    }
    const noBody = this.req.method === "HEAD" || this.upstreamStatus === 204 || this.upstreamStatus === 304 || r.headers["content-length"] === "0";
    if (this.stream) {
      this.stream.encodeHeaders(headers, noBody);
      if (this.responseReplaced()) return;
      if (this.stream.responseHeadersReleased) this.writeHeaders();
    } else {
      this.writeHeaders(headers);
    }
    r.on("data", (chunk: Buffer) => this.guard("response body", () => this.onUpstreamData(chunk)));
    r.on("end", () => this.guard("response end", () => this.onUpstreamEnd(noBody)));
    r.on("aborted", () => this.guard("upstream abort", () => this.onUpstreamAbort()));
    r.on("error", () => this.guard("upstream abort", () => this.onUpstreamAbort()));
  }

  private onUpstreamData(chunk: Buffer): void {
    if (this.completed) return;
    this.resetIdleTimer();
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    const out = this.stream ? this.stream.encodeData(bytes, false) : bytes;
    if (this.responseReplaced()) return;
    this.writeBody(out);
    // A streaming buffer the filter holds past the limit: the upstream is not read until the filter lets it go.
    if (this.stream?.responseBufferAboveLimit) this.upstreamResponse?.pause();
  }

  private onUpstreamEnd(noBody: boolean): void {
    if (this.completed) return;
    this.resetIdleTimer();
    this.upstreamComplete = true;
    // router.cc Filter::onUpstreamComplete → cleanup(): the route timeout ends with the upstream response, whatever
    // the filters downstream of the router still hold.
    this.clearRouteTimer();
    // http1 codec_impl.cc ClientConnectionImpl::onMessageCompleteBase: trailers read (enable_trailers) end the response
    // (router.cc Filter::onUpstreamTrailers → encodeTrailers); otherwise an empty end-of-stream chunk (onUpstreamData).
    const r = this.upstreamResponse;
    const trailers = this.ctx.trailers.upstream && r ? trailerList(r.rawTrailers) : [];
    this.responseTrailers = trailers;
    if (this.stream && !noBody) {
      const out = trailers.length > 0 ? this.stream.encodeTrailers(trailers) : this.stream.encodeData(EMPTY, true);
      if (this.responseReplaced()) return;
      this.writeBody(out);
    }
    this.endResponse();
  }

  /**
   * continue_stream(Response): filter_manager.cc ActiveStreamFilterBase::commonContinue sends the held headers
   * (doHeaders → FilterManager::encodeHeaders) and the body buffered so far (doData → encodeData) on at once, each
   * resetting the stream idle timer, with end_stream when the upstream response is over.
   */
  private releaseResponse(): void {
    const stream = this.stream;
    if (!stream || !this.upstreamResponse) return;
    if (stream.responseHeadersReleased && !this.headersWritten) {
      this.resetIdleTimer();
      this.writeHeaders();
    }
    const body = stream.takeReleasedResponseBody();
    if (body.length > 0) {
      this.resetIdleTimer();
      this.writeBody(body);
    }
    if (this.upstreamComplete) this.endResponse();
    else this.resumeUpstreamReads();
  }

  /** Ends the downstream response once the upstream one ended, unless the filter still holds it (or its trailers). */
  private endResponse(): void {
    const stream = this.stream;
    if (stream?.responseStoppedByFilter) return;
    if (stream && this.responseTrailers.length > 0 && !stream.responseTrailersReleased) return;
    if (!this.headersWritten) this.writeHeaders();
    // The trailers as the filter left them (or those it added in the last body callback), when the downstream codec
    // encodes trailers; Node, as Envoy's codec (chunk_encoding_), sends them only on a chunked response.
    const trailers = stream ? (stream.state.responseTrailers?.pairs ?? []) : this.responseTrailers;
    if (this.ctx.trailers.downstream && trailers.length > 0) this.res.addTrailers(trailers);
    this.res.end();
    this.complete(this.upstreamStatus);
  }

  /**
   * After a response callback: the filter may have answered locally (a trap under FAIL_CLOSED, or its own
   * reply) or reset the stream. A reply replaces the upstream response if nothing was sent yet; otherwise
   * the downstream stream is reset, as Envoy does.
   */
  private responseReplaced(): boolean {
    if (this.stream?.responsePayloadTooLarge) {
      // filter_manager.cc ActiveStreamEncoderFilter::responseDataTooLarge → sendLocalReply(500), no response flag:
      // straight to the client while no response headers went out (sendDirectLocalReply), else a reset.
      if (!this.headersWritten) this.sendLocal(500, "Internal Server Error", "-", "response_payload_too_large", false);
      else this.resetWithDetails("-", "response_payload_too_large");
      return true;
    }
    const state = this.stream?.requestState;
    if (state !== "local-reply" && state !== "reset") return false;
    if (state === "local-reply" && !this.headersWritten) {
      this.cancelUpstream();
      this.sendPluginLocalReply();
    } else {
      this.resetClient(state === "reset" ? "RST" : "LR");
    }
    return true;
  }

  /** The upstream connection broke after its response started. */
  private onUpstreamAbort(): void {
    if (this.completed || this.upstreamCancelled || this.res.writableEnded) return;
    // The router passed the response headers on (onUpstreamHeaders): downstream_response_started_.
    const reset = upstreamReset(null, true);
    // router.cc Filter::onUpstreamReset → onUpstreamAbort → sendLocalReply (filter_manager.cc
    // DownstreamFilterManager::sendLocalReply, which sets the details first): response headers the filter still holds
    // are replaced by the 503 sent straight to the client (sendDirectLocalReply); once they went out, the downstream
    // stream is reset.
    if (!this.headersWritten) this.sendLocal(503, reset.body, reset.flags, reset.details, false);
    else this.resetWithDetails(reset.flags, reset.details);
  }

  private onUpstreamError(e: Error): void {
    if (this.completed || this.upstreamCancelled) return;
    if (this.responding) {
      this.onUpstreamAbort();
      return;
    }
    // Envoy's answer when it cannot reach (or loses) the host before the response starts.
    const reset = upstreamReset(e);
    this.sendLocal(503, reset.body, reset.flags, reset.details);
  }

  /** Writes the response headers as the filter left them (or the given ones, without a filter). */
  private writeHeaders(given?: HeaderList): void {
    if (this.headersWritten) return;
    this.headersWritten = true;
    const headers = given ?? this.stream?.state.responseHeaders?.pairs ?? [[":status", String(this.upstreamStatus || 502)]];
    let status = this.upstreamStatus || 502;
    const flat: string[] = [];
    for (const [k, v] of headers) {
      if (k === ":status") status = Number(v) || status;
      else if (!k.startsWith(":") && !HOP_BY_HOP.has(k)) flat.push(k, v);
    }
    this.upstreamStatus = status;
    this.res.writeHead(status, flat);
    this.res.flushHeaders();
  }

  private writeBody(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (!this.headersWritten) this.writeHeaders();
    if (this.firstByteMs === null) this.firstByteMs = performance.now();
    this.bytesOut += bytes.length;
    // A client reading slower than the upstream sends: stop reading the upstream until the client catches up
    // (router.cc/upstream_request.cc DownstreamWatermarkManager::onAboveWriteBufferHighWatermark -> readDisable).
    const upstream = this.upstreamResponse;
    if (!this.res.write(bytes) && upstream && !this.awaitingClientDrain) {
      this.awaitingClientDrain = true;
      upstream.pause();
      this.res.once("drain", () => {
        this.awaitingClientDrain = false;
        this.resumeUpstreamReads();
      });
    }
  }

  /** Reads the upstream response again unless the client or the filter's buffer is still above its limit. */
  private resumeUpstreamReads(): void {
    if (this.awaitingClientDrain || this.stream?.responseBufferAboveLimit) return;
    this.upstreamResponse?.resume();
  }

  // ---- local answers ----

  /** The filter answered (its own reply, a 413, or a failure policy's 503); it already ran the encoder callbacks. */
  private sendPluginLocalReply(): void {
    const stream = this.stream;
    const reply = stream?.localReply;
    if (!stream || !reply || this.completed) return;
    this.responding = true;
    this.setFlags("LR");
    this.upstreamStatus = reply.status;
    // filter_manager.cc sendLocalReplyViaFilterChain: the reply went through the encoder filters, this one included,
    // which may hold it (StopIteration) until continue_stream; meanwhile only the idle timer runs (encodeHeaders
    // disarmed the request timeout).
    if (stream.responseStoppedByFilter) {
      this.clearRouteTimer();
      this.disarmHcmRequestTimer();
      return;
    }
    this.clearTimers();
    // The stream ends with the reply: router.cc Filter::onDestroy resets an upstream request still open.
    this.cancelUpstream();
    this.writeHeaders();
    this.writeBody(stream.takeReleasedResponseBody());
    this.res.end();
    this.complete(this.upstreamStatus);
  }

  /**
   * A gateway-generated reply; like Envoy's, it goes through the filter's encoder callbacks, unless the filter
   * already saw response headers (filter_manager.cc DownstreamFilterManager::sendLocalReply → sendDirectLocalReply).
   */
  private sendLocal(status: number, text: string, flags: string, details: string, viaFilter = true): void {
    this.clearTimers();
    this.responding = true;
    this.setFlags(flags);
    this.setDetails(details);
    this.upstreamStatus = status;
    this.cancelUpstream();
    const body = enc.encode(text);
    // http/utility.cc prepareLocalReply, as for a filter's local reply.
    const headers = localReplyHeaders(status, [], body.length);
    let out: Uint8Array = body;
    if (viaFilter && this.stream && !this.stream.bypass) {
      this.stream.encodeHeaders(headers, false);
      out = this.stream.encodeData(body, true);
      this.writeHeaders();
    } else {
      // sendDirectLocalReply: the reply's headers replace those the filter holds, for the access log too.
      if (this.stream?.state.responseHeaders) this.stream.replaceWithDirectLocalReply(headers);
      this.writeHeaders(headers);
    }
    this.writeBody(out);
    this.res.end();
    this.complete(status);
  }

  private onRouteTimeout(): void {
    this.routeTimer = null;
    if (this.completed) return;
    // router.cc Filter::onResponseTimeout → onUpstreamAbort(504, UpstreamRequestTimeout) → sendLocalReply: through the
    // filter before any response, straight to the client while the filter holds the response headers, a reset of the
    // downstream stream once they went out.
    if (this.headersWritten) this.resetWithDetails("UT", "response_timeout");
    else this.sendLocal(504, "upstream request timeout", "UT", "response_timeout", !this.responding);
  }

  /**
   * conn_manager_impl.cc ActiveStream::onRequestTimeout: sendLocalReply "request timeout", 504 once the whole request
   * was received, else 408 (Utility::maybeRequestTimeoutCode); no response flag. The timer is disarmed once a response
   * starts, so the reply goes through the filter chain.
   */
  private onHcmRequestTimeout(): void {
    this.hcmRequestTimer = null;
    if (this.completed || this.responding) return;
    this.sendLocal(this.bodyComplete ? 504 : 408, "request timeout", "-", "request_overall_timeout");
  }

  private disarmHcmRequestTimer(): void {
    if (this.hcmRequestTimer) clearTimeout(this.hcmRequestTimer);
    this.hcmRequestTimer = null;
  }

  /** A timer that does not keep the process alive, its callback guarded as every event's is. */
  private startTimer(ms: number, what: string, fire: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => this.guard(what, fire), ms);
    timer.unref();
    return timer;
  }

  /** conn_manager_impl.cc ActiveStream::resetIdleTimer. */
  private resetIdleTimer(): void {
    this.idleTimer?.refresh();
  }

  /**
   * conn_manager_impl.cc ActiveStream::onIdleTimeout: flag StreamIdleTimeout (SI) and sendLocalReply "stream timeout",
   * 504 once the whole request was received, else 408 (utility.cc Utility::maybeRequestTimeoutCode with
   * remoteDecodeComplete()). DownstreamFilterManager::sendLocalReply sends it through the filter chain when no response
   * started, straight to the client when the filter holds response headers, and resets the stream once they were sent.
   */
  private onIdleTimeout(): void {
    this.idleTimer = null;
    if (this.completed) return;
    const status = this.bodyComplete ? 504 : 408;
    if (!this.responding) this.sendLocal(status, "stream timeout", "SI", "stream_idle_timeout");
    else if (!this.headersWritten) this.sendLocal(status, "stream timeout", "SI", "stream_idle_timeout", false);
    else this.resetWithDetails("SI", "stream_idle_timeout");
  }

  private onClientClose(): void {
    if (this.completed) return;
    if (this.res.writableFinished) return;
    this.setFlags("DC");
    this.stream?.reset();
    // Completed first: destroying the upstream side emits its abort events synchronously.
    this.complete(this.headersWritten ? this.upstreamStatus : 0, false);
    this.cancelUpstream();
  }

  /** A local reply once response headers went out: DownstreamFilterManager::sendLocalReply sets its details, then, the
   *  headers being sent, resets the downstream stream (filter_manager_callbacks_.resetStream). */
  private resetWithDetails(flags: string, details: string): void {
    if (this.completed) return;
    this.setDetails(details);
    this.resetClient(flags);
  }

  /** Resets the downstream stream: the client sees its connection close. */
  private resetClient(flags: string): void {
    if (this.completed) return;
    this.setFlags(flags);
    this.stream?.reset();
    this.complete(this.headersWritten ? this.upstreamStatus : 0, false);
    this.cancelUpstream();
    this.res.destroy();
  }

  /** The response code details (StreamInfo::setResponseCodeDetails; stream_info.h ResponseCodeDetailValues), in the
   *  request log and the stream's `response.code_details`. */
  private setDetails(details: string): void {
    this.details = details;
    if (this.stream) this.stream.state.responseCodeDetails = details;
  }

  /** The request log's flags, and the stream's `response.flags` bits for those Envoy has. */
  private setFlags(flags: string): void {
    this.flags = flags;
    if (this.stream) this.stream.state.responseFlags |= RESPONSE_FLAG_BITS[flags] ?? 0;
  }

  // ---- the end ----

  private complete(status: number, finishStream = true): void {
    if (this.completed) return;
    this.completed = true;
    this.clearTimers();
    if (finishStream) this.stream?.finish();
    this.ctx.complete({
      id: this.id,
      worker: this.ctx.host ? this.conn.worker : null,
      method: this.req.method ?? "-",
      path: this.req.url ?? "-",
      status,
      flags: this.flags,
      // A local reply of the plugin set the stream's own (filter-stream.ts sendLocal).
      details: this.stream?.state.responseCodeDetails ?? this.details,
      endpoint: this.endpoint,
      route: this.route,
      fallback: this.fallbackReason(),
      ttftMs: this.firstByteMs === null ? null : this.firstByteMs - this.startMs,
      durMs: performance.now() - this.startMs,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
    });
    // Whatever the client still sends is read and dropped, so the connection can be reused.
    if (!this.requestEnded) this.req.resume();
  }

  private fallbackReason(): string | null {
    const props = this.stream?.state.properties;
    if (!props) return null;
    for (const key of FALLBACK_PROPERTY_KEYS) {
      const v = props.get(key);
      if (v) return dec.decode(v);
    }
    return null;
  }

  /** Drops the upstream exchange; its late events are ignored. */
  private cancelUpstream(): void {
    this.upstreamCancelled = true;
    this.upstream?.destroy();
    this.upstreamResponse?.destroy();
  }

  private clearRouteTimer(): void {
    if (this.routeTimer) clearTimeout(this.routeTimer);
    this.routeTimer = null;
  }

  private clearTimers(): void {
    this.clearRouteTimer();
    this.disarmHcmRequestTimer();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Runs a step; an unexpected exception answers 500 (or resets) instead of crashing the gateway. */
  private guard(where: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.ctx.internalError(this.id, where, e);
      if (this.completed) return;
      try {
        this.cancelUpstream();
        this.flags = "GW";
        if (!this.res.headersSent) {
          this.res.writeHead(500, { "content-type": "text/plain" });
          this.res.end("gateway internal error");
          this.upstreamStatus = 500;
        } else {
          this.res.destroy();
        }
        this.stream?.reset();
        this.complete(this.res.headersSent ? this.upstreamStatus : 0, false);
      } catch (again) {
        this.ctx.internalError(this.id, `${where} (cleanup)`, again);
        this.res.destroy();
      }
    }
  }
}

/** Trailers off the wire (Node's rawTrailers), keys lower-cased as the codec's header maps have them. */
function trailerList(raw: string[]): HeaderList {
  const out: HeaderList = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i].toLowerCase(), raw[i + 1]]);
  return out;
}
