// A local HTTP gateway that runs every request through the endpoint-picker plugin as Envoy/Higress would: one
// Wasm VM per worker, each downstream connection pinned to one worker (round robin by connection), a
// health-checked upstream cluster the plugin reads hosts from, and the route's override-host policy.
import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { LOG_LEVEL_NAMES, type FailurePolicy } from "../host/abi.ts";
import { ClusterRegistry } from "../host/cluster.ts";
import { PluginHost } from "../host/plugin-host.ts";
import type { Flavor } from "../host/vm.ts";
import { HealthChecker, type HealthCheckOptions } from "./health-checker.ts";
import { HttpCallCluster, metricsClusterName } from "./http-call-cluster.ts";
import { ProxiedRequest, type ConnectionInfo } from "./proxied-request.ts";
import { answerCodecError, codecRefusal, isCodecError } from "./codec-error-reply.ts";
import { ENVOY_HEADER_LIMITS, http1RequestHeadError, type Http1CodecRefusal } from "../host/http1-codec-error.ts";
import { connectionStreamInfo } from "./connection-stream-info.ts";
import { formatRequestLine, type RequestRecord } from "./request-log.ts";
import { Router } from "./router.ts";

export const DEFAULT_CLUSTER_NAME = "inference-backends";

const REQUEST_HEADER_TIMEOUT_REPLY =
  "HTTP/1.1 408 Request Timeout\r\ncontent-length: 22\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nrequest header timeout";

export interface GatewayPluginOptions {
  wasm: Uint8Array;
  flavor: Flavor;
  /** Plugin configuration: an object is sent as JSON. */
  config: object | string;
  /** VMs, one per worker. Default 2. */
  workers?: number;
  /** Default FAIL_CLOSED (Envoy's default). */
  failurePolicy?: FailurePolicy;
  /** Envoy's deprecated `fail_open: true` (see PluginHostOptions.legacyFailOpen). */
  legacyFailOpen?: boolean;
  /** Stock Envoy 1.35+ `allow_on_headers_stop_iteration`. */
  allowOnHeadersStopIteration?: boolean;
  /** Higress before 2.2: the body order of its Envoy 1.27 (PluginHostOptions.envoy127BodyOrder). */
  envoy127BodyOrder?: boolean;
  vmConfig?: string;
  /** Minimum level of plugin log lines passed on (0 trace .. 5 critical). Default 2 (info). */
  logLevel?: number;
}

export interface GatewayOptions {
  /** "host:port" of each upstream. */
  upstreams: string[];
  /** Absent: a plain round-robin gateway. */
  plugin?: GatewayPluginOptions;
  /** Default { intervalMs: 1000, timeoutMs: 1000 }. */
  healthCheck?: HealthCheckOptions;
  /** The route timeout (Envoy's route `timeout`): from when the router has the whole request (after the plugin let
   *  it go) until the response is complete; a response that started is then cut. 0 for no limit. Default 300 s. */
  requestTimeoutMs?: number;
  /** The HTTP connection manager's `stream_idle_timeout`: how long a stream may go without request or response
   *  activity (a request the plugin holds, a silent upstream) before a 408/504 or, once the response started, a
   *  reset. 0 for no limit. Default 300 s, Envoy's default. It is also Envoy's flush timeout, which its HTTP/1 codec
   *  ignores (http1 codec_impl.h StreamImpl::setFlushTimeout), so the gateway, HTTP/1 only, has none. */
  streamIdleTimeoutMs?: number;
  /** The route's `idle_timeout`: replaces streamIdleTimeoutMs for the route's streams, 0 turning the idle timer off
   *  (conn_manager_impl.cc ActiveStream::refreshIdleTimeout). Default: not set. */
  routeIdleTimeoutMs?: number;
  /** The HTTP connection manager's `request_timeout`: how long the whole request may take to pass the filters (a slow
   *  upload, the plugin's hold) before a 408/504 "request timeout"; it stops once it has, or once a response starts.
   *  0 for no limit. Default 0, Envoy's default. */
  hcmRequestTimeoutMs?: number;
  /** The HTTP connection manager's `request_headers_timeout`: how long a request's headers may take to arrive before
   *  a 408 and the connection's close (Node's headersTimeout, checked every connectionsCheckingInterval). 0 for no
   *  limit. Default 0, Envoy's default. */
  requestHeadersTimeoutMs?: number;
  /** The HTTP connection manager's `common_http_protocol_options.idle_timeout`: how long a client connection may stay
   *  open without a request in flight. 0 for no limit. Default 1 hour, Envoy's default. */
  connectionIdleTimeoutMs?: number;
  /** HTTP/1 trailers (Http1ProtocolOptions.enable_trailers; Envoy's default: off, trailers dropped): `downstream` for
   *  the client side (the HCM's http_protocol_options), `upstream` for the backends (the cluster's). */
  trailers?: { downstream?: boolean; upstream?: boolean };
  /** The HTTP connection manager's max_request_headers_kb: a request head (request line, fields, line ends) longer
   *  than this many KiB is answered 431 http1.headers_too_large. Default 60, Envoy's. */
  maxRequestHeadersKb?: number;
  /** common_http_protocol_options.max_headers_count: more request header fields than this is a 431
   *  http1.too_many_headers. Default 100, Envoy's. */
  maxRequestHeadersCount?: number;
  /** Body bytes the plugin may buffer: past it a 413 (request) or 500 (response). Default 1 MiB (Envoy's default). */
  bufferLimitBytes?: number;
  /** Default 0 (ephemeral). Always bound to 127.0.0.1. */
  port?: number;
  /** Default "inference-backends". */
  clusterName?: string;
  /** Access log (`gw req ...`), plugin log (`gw wasm ...`) and error (`gw error ...`) lines. Default: none. */
  log?: (line: string) => void;
}

export interface GatewayStats {
  /** Requests completed (one log line each). */
  requests: number;
  /** Requests answered 5xx, timed out, or reset by the upstream or the gateway. */
  errors: number;
  /** Requests sent to each upstream, by "host:port". */
  byEndpoint: Record<string, number>;
  /** Routing decisions, by reason. */
  routes: Record<string, number>;
}

export interface GatewayHandle {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly host: PluginHost | null;
  readonly healthChecker: HealthChecker;
  stats(): GatewayStats;
  close(): Promise<void>;
}

export async function startGateway(opts: GatewayOptions): Promise<GatewayHandle> {
  if (opts.upstreams.length === 0) throw new Error("the gateway needs at least one upstream");
  const log = opts.log ?? (() => {});
  const clusterName = opts.clusterName ?? DEFAULT_CLUSTER_NAME;
  const healthChecker = new HealthChecker(clusterName, opts.upstreams, opts.healthCheck ?? { intervalMs: 1000, timeoutMs: 1000 });
  const clusters = new ClusterRegistry().add(healthChecker);
  // The stock Envoy build polls each endpoint's metrics with proxy_http_call, one cluster per upstream; the
  // Higress build reads them from the health check, but may make calls too.
  for (const address of opts.upstreams) clusters.add(new HttpCallCluster(metricsClusterName(address), address));

  let host: PluginHost | null = null;
  const p = opts.plugin;
  if (p) {
    host = PluginHost.create({
      wasm: p.wasm,
      flavor: p.flavor,
      pluginConfig: typeof p.config === "string" ? p.config : JSON.stringify(p.config),
      vmConfig: p.vmConfig,
      workers: p.workers ?? 2,
      failurePolicy: p.failurePolicy,
      legacyFailOpen: p.legacyFailOpen,
      allowOnHeadersStopIteration: p.allowOnHeadersStopIteration,
      envoy127BodyOrder: p.envoy127BodyOrder,
      bufferLimitBytes: opts.bufferLimitBytes,
      clusters,
      logLevel: p.logLevel,
      log: (level, message) => log(`gw wasm level=${LOG_LEVEL_NAMES[level] ?? level} ${message}`),
    });
  }

  // Envoy warms a cluster with one round of health checks before it takes traffic.
  healthChecker.start();
  await healthChecker.idle();

  const stats: GatewayStats = { requests: 0, errors: 0, byEndpoint: {}, routes: {} };
  const complete = (r: RequestRecord) => {
    stats.requests++;
    if (r.status >= 500 || r.flags === "UC" || r.flags === "UT" || r.flags === "SI" || r.flags === "GW" || r.flags === "UF") stats.errors++;
    if (r.endpoint) stats.byEndpoint[r.endpoint] = (stats.byEndpoint[r.endpoint] ?? 0) + 1;
    if (r.route) stats.routes[r.route] = (stats.routes[r.route] ?? 0) + 1;
    log(formatRequestLine(r));
  };
  const agent = new Agent({ keepAlive: true });
  const ctx = {
    host,
    router: new Router(healthChecker, p ? p.flavor : null),
    clusterName,
    requestTimeoutMs: opts.requestTimeoutMs ?? 300_000,
    // http_connection_manager.proto stream_idle_timeout: "If not specified, this defaults to 5 minutes."; a route's
    // idle_timeout replaces it once the route is chosen (conn_manager_impl.cc ActiveStream::refreshIdleTimeout).
    streamIdleTimeoutMs: opts.routeIdleTimeoutMs ?? opts.streamIdleTimeoutMs ?? 300_000,
    // http_connection_manager.proto request_timeout: "The default is 0 (disabled)".
    hcmRequestTimeoutMs: opts.hcmRequestTimeoutMs ?? 0,
    // protocol.proto Http1ProtocolOptions.enable_trailers: "By default, the HTTP/1 codec drops proxied trailers."
    trailers: { downstream: opts.trailers?.downstream ?? false, upstream: opts.trailers?.upstream ?? false },
    agent,
    complete,
    internalError: (id: number, where: string, e: unknown) => {
      log(`gw error id=${id} where=${where.replace(/\s/g, "_")} ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`.replace(/\n/g, " | "));
    },
  };

  const connections = new WeakMap<Socket, ConnectionInfo>();
  let nextConnection = 0;
  let nextRequest = 0;
  const workers = host ? host.workers.length : 1;
  // Node's own per-request timers are not Envoy's: its requestTimeout (300 s by default) is off, the HCM's
  // request_timeout being modelled per stream instead; its headersTimeout (60 s by default) is the HCM's
  // request_headers_timeout, off unless set (conn_manager_impl.cc ActiveStream::ActiveStream arms neither when 0).
  const headersTimeoutMs = opts.requestHeadersTimeoutMs ?? 0;
  // Nor is Node's 5 s keepAliveTimeout: conn_manager_impl.cc ConnectionManagerImpl::onIdleTimeout starts the drain
  // sequence, whose drain_timeout (5 s by default) then closes an HTTP/1 connection (onDrainTimeout).
  // protocol.proto idle_timeout: "If not specified, this defaults to 1 hour".
  const connectionIdleMs = opts.connectionIdleTimeoutMs ?? 3_600_000;
  const limits = {
    maxRequestHeadersKb: opts.maxRequestHeadersKb ?? ENVOY_HEADER_LIMITS.maxRequestHeadersKb,
    maxRequestHeadersCount: opts.maxRequestHeadersCount ?? ENVOY_HEADER_LIMITS.maxRequestHeadersCount,
  };
  const server: Server = createServer({
    // Node refuses a head once its URL, names and values reach maxHeaderSize bytes (node_http_parser.cc
    // Parser::TrackHeader): past the limit, as Balsa's whole-head count is then too; a shorter head Balsa still
    // refuses is checked on the request (http1RequestHeadError).
    maxHeaderSize: limits.maxRequestHeadersKb * 1024 + 1,
    noDelay: true,
    keepAliveTimeout: connectionIdleMs === 0 ? 0 : Math.min(connectionIdleMs + 5000, 2_147_483_647),
    requestTimeout: 0,
    headersTimeout: headersTimeoutMs,
    ...(headersTimeoutMs > 0 ? { connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(headersTimeoutMs / 10))) } : {}),
  });
  server.on("connection", (socket: Socket) => {
    const id = nextConnection++;
    connections.set(socket, { id, worker: id % workers });
  });
  // Node keeps the first maxHeadersCount fields (2000 by default) and drops the rest: keep one past the limit.
  server.maxHeadersCount = limits.maxRequestHeadersCount + 1;
  /** The codec's answer to a request refused before any filter saw it, on a stream of its own. */
  const refuse = (socket: Socket, bytesIn: number, refusal: Http1CodecRefusal, protocol = "HTTP/1.1") => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const id = ++nextRequest;
    const conn = connections.get(socket) ?? { id: -1, worker: 0 };
    const info = connectionStreamInfo(clusterName, socket, conn.id, protocol);
    try {
      complete(answerCodecError(host, conn.worker, info, id, socket, bytesIn, refusal));
    } catch (err) {
      ctx.internalError(id, "codec error", err);
      socket.destroy();
    }
  };
  // The request each connection is on, and its response: HTTP/1 runs one at a time.
  const active = new WeakMap<Socket, { request: ProxiedRequest; res: ServerResponse }>();
  // Connections with a refusal answered or waiting: ConnectionManagerImpl::handleCodecError closes them, so the codec
  // reads nothing behind the refused request (Node's parser has read on, pipelined requests included).
  const refused = new WeakSet<Socket>();
  /** refuse, once the response of the request in progress on `socket` (if any) is done: Envoy's codec reads a
   *  pipelined request only then (ServerConnectionImpl::dispatch read-disables the connection meanwhile). */
  const refuseInTurn = (socket: Socket, bytesIn: number, refusal: Http1CodecRefusal, protocol?: string) => {
    refused.add(socket);
    const current = active.get(socket);
    if (current) current.res.once("close", () => refuse(socket, bytesIn, refusal, protocol));
    else refuse(socket, bytesIn, refusal, protocol);
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    const socket = req.socket;
    if (refused.has(socket)) return;
    const head = { method: req.method ?? "", url: req.url ?? "", httpVersion: req.httpVersion, rawHeaders: req.rawHeaders };
    const refusal = http1RequestHeadError(head, limits);
    if (refusal !== null) {
      // codec_impl.cc onHeadersCompleteImpl: any version but 1.1 is taken as HTTP/1.0 (parser_->isHttp11()).
      refuseInTurn(socket, 0, refusal, req.httpVersion === "1.1" ? "HTTP/1.1" : "HTTP/1.0");
      return;
    }
    // The connection manager answers "expect: 100-continue" itself (proxy_100_continue off), once the codec took the
    // head (conn_manager_impl.cc ActiveStream::decodeHeaders), as Node does before its request event.
    if (expectsContinue) res.writeContinue();
    const id = ++nextRequest;
    const conn = connections.get(socket) ?? { id: -1, worker: 0 };
    const request = new ProxiedRequest(ctx, id, conn, req, res);
    active.set(socket, { request, res });
    res.once("close", () => {
      if (active.get(socket)?.request === request) active.delete(socket);
    });
    try {
      request.start();
    } catch (e) {
      ctx.internalError(id, "start", e);
      res.destroy();
    }
  };
  server.on("request", (req, res) => onRequest(req, res, false));
  // Without this listener Node writes "100 Continue" before the request event, also before the codec's refusal.
  server.on("checkContinue", (req, res) => onRequest(req, res, true));
  server.on("clientError", (e: NodeJS.ErrnoException & { rawPacket?: Buffer; reason?: string; bytesParsed?: number }, socket: Socket) => {
    if (!socket.writable) socket.destroy();
    // Node's headersTimeout: conn_manager_impl.cc ActiveStream::onRequestHeaderTimeout's local reply.
    else if (e.code === "ERR_HTTP_REQUEST_TIMEOUT") socket.end(REQUEST_HEADER_TIMEOUT_REPLY);
    else if (refused.has(socket)) {
      // Bytes behind a refused request, which Envoy's codec never reads: the refusal closes the connection.
    } else if (isCodecError(e.code)) {
      const refusal = codecRefusal(e);
      const current = active.get(socket);
      if (current && !current.request.remoteComplete) current.request.codecError(refusal);
      // A pipelined request's bad head, which Node read early, answered in its turn.
      else refuseInTurn(socket, e.rawPacket?.length ?? 0, refusal);
    } else socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    host,
    healthChecker,
    stats: () => ({ ...stats, byEndpoint: { ...stats.byEndpoint }, routes: { ...stats.routes } }),
    close: async () => {
      healthChecker.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
      await healthChecker.idle();
      host?.close();
    },
  };
}
