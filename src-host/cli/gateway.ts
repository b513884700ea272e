// Runs the local gateway in front of OpenAI-compatible upstreams (the simulated backend or a real vLLM):
//   tsx src-host/cli/gateway.ts --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 \
//     [--plugin build/higress.wasm | --no-plugin] [--flavor higress|envoy] [--plugin-config file.json] \
//     [--workers 2] [--port 8080] [--health-interval-ms 1000] [--health-timeout-ms 1000] \
//     [--request-timeout-ms 300000] [--stream-idle-timeout-ms 300000] [--route-idle-timeout-ms MS] \
//     [--hcm-request-timeout-ms 0] [--request-headers-timeout-ms 0] [--connection-idle-timeout-ms 3600000] \
//     [--buffer-limit-bytes 5242880] [--downstream-trailers] [--upstream-trailers] \
//     [--failure-policy FAIL_OPEN] \
//     [--allow-on-headers-stop-iteration true|false] [--envoy127-body-order] [--quiet]
// Without --plugin/--no-plugin it loads build/<flavor>.wasm. The failure policy defaults to FAIL_OPEN and the
// envoy flavor models Envoy 1.35+ with allow_on_headers_stop_iteration on (false: StopIteration from the headers
// callback becomes StopAllIteration, so the body never reaches the plugin). For the envoy flavor, a JSON object config without
// `endpoints` gets one per upstream: {"address": "<host:port>", "metricsCluster": "metrics-<host:port>"}.
import { readFileSync } from "node:fs";
import type { FailurePolicy } from "../host/abi.ts";
import { startGateway, type GatewayPluginOptions } from "../gateway/gateway.ts";
import { ConfigRejectedError } from "../host/plugin-host.ts";
import { splitAddress } from "../host/split-address.ts";
import { metricsClusterName } from "../gateway/http-call-cluster.ts";
import { builtPluginPath } from "../wasm/built-plugin.ts";
import { numberArg, parseCliArgs, usageError } from "../util/cli-args.ts";

const USAGE = `usage: npm run gateway -- --upstream HOST:PORT [--upstream HOST:PORT ...] [options]
  --upstream HOST:PORT                 an OpenAI-compatible upstream; repeat for each (at least one)
  --plugin PATH                        plugin module (default build/<flavor>.wasm)
  --no-plugin                          plain round robin, no plugin
  --flavor higress|envoy               host ABI the plugin runs under (default higress)
  --plugin-config FILE                 plugin configuration, JSON or passed as is (default {}; the envoy flavor
                                       adds an endpoints entry per upstream when the object has none)
  --workers N                          plugin VMs, taking streams in turn, up to 64 (default 2)
  --port N                             listening port on 127.0.0.1, 0 for any free one (default 8080)
  --health-interval-ms MS              upstream health check period (default 1000)
  --health-timeout-ms MS               health check timeout (default 1000)
  --request-timeout-ms MS              route timeout, from when the whole request has passed the plugin until
                                       the response is complete; 0 for no limit, at most 2147483647 (default 300000)
  --stream-idle-timeout-ms MS          stream idle timeout (Envoy's stream_idle_timeout): a request or response
                                       silent this long (held by the plugin, a stalled upload, a silent upstream)
                                       gets 408/504, or is reset once its response started; 0 for no limit, at
                                       most 2147483647 (default 300000)
  --route-idle-timeout-ms MS           the route's idle_timeout: replaces --stream-idle-timeout-ms, 0 turning the
                                       idle timer off (default: not set)
  --hcm-request-timeout-ms MS          Envoy's request_timeout: the whole request must have passed the plugin this
                                       long after it started, or gets 408/504 "request timeout"; stops at the
                                       response's start; 0 for no limit (default 0)
  --request-headers-timeout-ms MS      Envoy's request_headers_timeout: a request's headers must arrive within
                                       this, or 408 and the connection closes; 0 for no limit (default 0)
  --connection-idle-timeout-ms MS      Envoy's connection idle_timeout: a client connection with no request in
                                       flight this long is closed (after the 5 s drain); 0 for no limit
                                       (default 3600000)
  --buffer-limit-bytes N               limit of the body the plugin buffers: past it 413 (request) or 500 (response)
                                       (default 5242880: above the plugin's 4 MiB body limit, as examples/envoy/envoy.yaml sets it)
  --downstream-trailers                HTTP/1 trailers on the client side (the connection manager's
                                       http_protocol_options.enable_trailers): request trailers reach the plugin
                                       and response trailers the client (default off, dropped, Envoy's default)
  --upstream-trailers                  HTTP/1 trailers on the upstream side (the cluster's enable_trailers): request
                                       trailers reach the upstream and its response trailers the plugin (default off)
  --failure-policy P                   FAIL_OPEN, FAIL_CLOSED or FAIL_RELOAD when the plugin fails (default FAIL_OPEN)
  --allow-on-headers-stop-iteration B  envoy flavor: true models Envoy 1.35+; false turns StopIteration from the
                                       headers callback into StopAllIteration (default true)
  --envoy127-body-order                higress flavor: model Higress before 2.2 (its Envoy 1.27), where a body
                                       callback of a buffering filter reads the body without its own chunk
                                       (default: upstream Envoy's order, Higress 2.2 and later)
  --quiet                              no per-request log lines
  -h, --help                           print this text and exit`;

const TOOL = "gateway";
const values = parseCliArgs(TOOL, USAGE, {
  upstream: { type: "string", multiple: true, default: [] },
  plugin: { type: "string" },
  "no-plugin": { type: "boolean", default: false },
  flavor: { type: "string", default: "higress" },
  "plugin-config": { type: "string" },
  workers: { type: "string", default: "2" },
  port: { type: "string", default: "8080" },
  "health-interval-ms": { type: "string", default: "1000" },
  "health-timeout-ms": { type: "string", default: "1000" },
  "request-timeout-ms": { type: "string", default: "300000" },
  "stream-idle-timeout-ms": { type: "string", default: "300000" },
  "route-idle-timeout-ms": { type: "string" },
  "hcm-request-timeout-ms": { type: "string", default: "0" },
  "request-headers-timeout-ms": { type: "string", default: "0" },
  "connection-idle-timeout-ms": { type: "string", default: "3600000" },
  "buffer-limit-bytes": { type: "string", default: String(5 * 1024 * 1024) },
  "downstream-trailers": { type: "boolean", default: false },
  "upstream-trailers": { type: "boolean", default: false },
  "failure-policy": { type: "string", default: "FAIL_OPEN" },
  "allow-on-headers-stop-iteration": { type: "string", default: "true" },
  "envoy127-body-order": { type: "boolean", default: false },
  quiet: { type: "boolean", default: false },
});

function fail(message: string): never {
  usageError(TOOL, message);
}

/** The longest delay setTimeout/setInterval take (2^31 - 1 ms, about 24.8 days). */
const TIMER_MAX_MS = 2_147_483_647;

function int(name: string, v: string, check: { positive?: boolean; max?: number } = {}): number {
  return numberArg(TOOL, name, v, { integer: true, min: 0, ...check });
}

function read(what: string, path: string, hint = ""): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    fail(`cannot read ${what} ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})${hint}`);
  }
}

const upstreams = values.upstream ?? [];
if (upstreams.length === 0) fail("give at least one --upstream host:port");
for (const address of upstreams) {
  try {
    splitAddress(address);
  } catch (e) {
    fail((e as Error).message);
  }
}
if (values["no-plugin"] && (values.plugin !== undefined || values["plugin-config"] !== undefined)) fail("--no-plugin runs without a plugin: drop --plugin and --plugin-config");
const flavor = values.flavor;
if (flavor !== "higress" && flavor !== "envoy") fail(`--flavor must be higress or envoy, got "${flavor}"`);
const policies = ["FAIL_OPEN", "FAIL_CLOSED", "FAIL_RELOAD"];
if (!policies.includes(values["failure-policy"])) fail(`--failure-policy must be one of ${policies.join(", ")}, got "${values["failure-policy"]}"`);
const allowStop = values["allow-on-headers-stop-iteration"];
if (allowStop !== "true" && allowStop !== "false") fail(`--allow-on-headers-stop-iteration must be true or false, got "${allowStop}"`);
const envoy127BodyOrder = values["envoy127-body-order"];
if (envoy127BodyOrder && (values["no-plugin"] || flavor !== "higress")) fail("--envoy127-body-order models Higress before 2.2: it needs the higress flavor and a plugin");
const ports = {
  port: int("port", values.port, { max: 65535 }),
  // health_check.proto: interval and timeout are required and > 0. Node's timers take at most TIMER_MAX_MS: a longer
  // one fires after 1 ms.
  healthIntervalMs: int("health-interval-ms", values["health-interval-ms"], { positive: true, max: TIMER_MAX_MS }),
  healthTimeoutMs: int("health-timeout-ms", values["health-timeout-ms"], { positive: true, max: TIMER_MAX_MS }),
  requestTimeoutMs: int("request-timeout-ms", values["request-timeout-ms"], { max: TIMER_MAX_MS }),
  streamIdleTimeoutMs: int("stream-idle-timeout-ms", values["stream-idle-timeout-ms"], { max: TIMER_MAX_MS }),
  routeIdleTimeoutMs:
    values["route-idle-timeout-ms"] === undefined ? undefined : int("route-idle-timeout-ms", values["route-idle-timeout-ms"], { max: TIMER_MAX_MS }),
  hcmRequestTimeoutMs: int("hcm-request-timeout-ms", values["hcm-request-timeout-ms"], { max: TIMER_MAX_MS }),
  requestHeadersTimeoutMs: int("request-headers-timeout-ms", values["request-headers-timeout-ms"], { max: TIMER_MAX_MS }),
  // Node's keep-alive timer runs this plus the 5 s drain.
  connectionIdleTimeoutMs: int("connection-idle-timeout-ms", values["connection-idle-timeout-ms"], { max: TIMER_MAX_MS - 5000 }),
  bufferLimitBytes: int("buffer-limit-bytes", values["buffer-limit-bytes"]),
};

let plugin: GatewayPluginOptions | undefined;
if (!values["no-plugin"]) {
  const wasmPath = values.plugin ?? builtPluginPath(flavor);
  let config: object | string = {};
  if (values["plugin-config"]) {
    const text = read("--plugin-config", values["plugin-config"]).toString("utf8");
    try {
      config = JSON.parse(text);
    } catch {
      config = text; // passed through as is: the plugin decides whether it is valid
    }
  }
  if (flavor === "envoy" && typeof config === "object" && config !== null && !("endpoints" in config)) {
    config = { ...config, endpoints: upstreams.map((address) => ({ address, metricsCluster: metricsClusterName(address) })) };
  }
  plugin = {
    wasm: new Uint8Array(read(values.plugin ? "--plugin" : "the plugin module", wasmPath, values.plugin ? "" : "; run npm run build, or pass --plugin")),
    flavor,
    config,
    workers: numberArg(TOOL, "workers", values.workers, { integer: true, positive: true, max: 64 }),
    failurePolicy: values["failure-policy"] as FailurePolicy,
    allowOnHeadersStopIteration: allowStop !== "false",
    envoy127BodyOrder,
  };
}

const quiet = values.quiet;
const gw = await startGateway({
  upstreams,
  plugin,
  port: ports.port,
  healthCheck: { intervalMs: ports.healthIntervalMs, timeoutMs: ports.healthTimeoutMs },
  requestTimeoutMs: ports.requestTimeoutMs,
  streamIdleTimeoutMs: ports.streamIdleTimeoutMs,
  routeIdleTimeoutMs: ports.routeIdleTimeoutMs,
  hcmRequestTimeoutMs: ports.hcmRequestTimeoutMs,
  requestHeadersTimeoutMs: ports.requestHeadersTimeoutMs,
  connectionIdleTimeoutMs: ports.connectionIdleTimeoutMs,
  bufferLimitBytes: ports.bufferLimitBytes,
  trailers: { downstream: values["downstream-trailers"], upstream: values["upstream-trailers"] },
  log: (line) => {
    if (!quiet || !line.startsWith("gw req ")) process.stdout.write(line + "\n");
  },
}).catch((e: Error & { code?: string }) => {
  // Start-up problems a user causes (a config the plugin refuses, a bad --upstream, a busy port) are one line.
  if (e instanceof ConfigRejectedError) fail(`${e.message} (the plugin's log line above names the bad fields)`);
  if (e.code === "EADDRINUSE" || e.code === "EACCES") fail(`cannot listen on port ${ports.port} (${e.code})`);
  throw e;
});

const health = gw.healthChecker.hosts().map((h) => `${h.address}=${h.healthStatus}`).join(" ");
process.stdout.write(`gateway listening on ${gw.url} (${plugin ? `${plugin.flavor} plugin${gw.host!.envoy127BodyOrder ? " in Envoy 1.27's body order" : ""}, ${gw.host!.workers.length} workers` : "no plugin"}; upstreams ${health})\n`);

const stop = async () => {
  await gw.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
