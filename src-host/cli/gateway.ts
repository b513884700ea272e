// Runs the local gateway in front of OpenAI-compatible upstreams (the simulated backend or a real vLLM):
//   tsx src-host/cli/gateway.ts --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 \
//     [--plugin build/higress.wasm | --no-plugin] [--flavor higress|envoy] [--plugin-config file.json] \
//     [--workers 2] [--port 8080] [--health-interval-ms 1000] [--health-timeout-ms 1000] \
//     [--request-timeout-ms 300000] [--buffer-limit-bytes 1048576] [--failure-policy FAIL_OPEN] \
//     [--allow-on-headers-stop-iteration true|false] [--quiet]
// Without --plugin/--no-plugin it loads build/<flavor>.wasm. The failure policy defaults to FAIL_OPEN and the
// envoy flavor models Envoy 1.35+ with allow_on_headers_stop_iteration on (false: StopIteration from the headers
// callback becomes StopAllIteration, so the body never reaches the plugin). For the envoy flavor, a JSON object config without
// `endpoints` gets one per upstream: {"address": "<host:port>", "metricsCluster": "metrics-<host:port>"}.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { FailurePolicy } from "../host/abi.ts";
import { startGateway, type GatewayPluginOptions } from "../gateway/gateway.ts";
import { metricsClusterName } from "../gateway/http-call-cluster.ts";
import { builtPluginPath } from "../wasm/built-plugin.ts";

const { values } = parseArgs({
  options: {
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
    "buffer-limit-bytes": { type: "string", default: String(1024 * 1024) },
    "failure-policy": { type: "string", default: "FAIL_OPEN" },
    "allow-on-headers-stop-iteration": { type: "string", default: "true" },
    quiet: { type: "boolean", default: false },
  },
  strict: true,
});

function fail(message: string): never {
  process.stderr.write(`gateway: ${message}\n`);
  process.exit(2);
}

function int(name: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a non-negative integer, got "${v}"`);
  return n;
}

const upstreams = values.upstream ?? [];
if (upstreams.length === 0) fail("give at least one --upstream host:port");
const flavor = values.flavor;
if (flavor !== "higress" && flavor !== "envoy") fail(`--flavor must be higress or envoy, got "${flavor}"`);
const policies = ["FAIL_OPEN", "FAIL_CLOSED", "FAIL_RELOAD"];
if (!policies.includes(values["failure-policy"]!)) fail(`--failure-policy must be one of ${policies.join(", ")}`);

let plugin: GatewayPluginOptions | undefined;
if (!values["no-plugin"]) {
  const wasmPath = values.plugin ?? builtPluginPath(flavor);
  let config: object | string = {};
  if (values["plugin-config"]) {
    const text = readFileSync(values["plugin-config"], "utf8");
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
    wasm: new Uint8Array(readFileSync(wasmPath)),
    flavor,
    config,
    workers: int("workers", values.workers),
    failurePolicy: values["failure-policy"] as FailurePolicy,
    allowOnHeadersStopIteration: values["allow-on-headers-stop-iteration"] !== "false",
  };
}

const quiet = values.quiet;
const gw = await startGateway({
  upstreams,
  plugin,
  port: int("port", values.port),
  healthCheck: { intervalMs: int("health-interval-ms", values["health-interval-ms"]), timeoutMs: int("health-timeout-ms", values["health-timeout-ms"]) },
  requestTimeoutMs: int("request-timeout-ms", values["request-timeout-ms"]),
  bufferLimitBytes: int("buffer-limit-bytes", values["buffer-limit-bytes"]),
  log: (line) => {
    if (!quiet || !line.startsWith("gw req ")) process.stdout.write(line + "\n");
  },
});

const health = gw.healthChecker.hosts().map((h) => `${h.address}=${h.healthStatus}`).join(" ");
process.stdout.write(`gateway listening on ${gw.url} (${plugin ? `${plugin.flavor} plugin, ${gw.host!.workers.length} workers` : "no plugin"}; upstreams ${health})\n`);

const stop = async () => {
  await gw.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
