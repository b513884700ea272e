// One gateway worker for the benches: a PluginHost with a single VM, the bench endpoints in a static cluster,
// and a virtual clock that moves only when the bench moves it; plus every plugin callback Envoy runs for one
// request through it (context create, request headers, body, response headers, log, done, delete).
import type { VirtualClock } from "../host/clock.ts";
import { StaticCluster } from "../host/cluster.ts";
import type { FilterStream } from "../host/filter-stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { ImportBuilder } from "../host/vm.ts";
import { PICKER_ROOT_ID, StaticClusterHarness } from "../harness/static-cluster-harness.ts";
import { BENCH_CLUSTER, benchEndpoints } from "./bench-endpoints.ts";


// A streamed chat answer's headers; the response body callbacks are pass-through and scale with the answer,
// not the prompt, so a request here ends with its response headers.
const RESPONSE_HEADERS: HeaderList = [
  [":status", "200"],
  ["content-type", "text/event-stream"],
];

export interface BenchGatewayOptions {
  /** Endpoints in the cluster (default 8). */
  endpoints?: number;
  /** Imports beyond the gateway's (the profiling build's stage marks). */
  extraImports?: ImportBuilder[];
}

export class BenchGateway {
  readonly harness: StaticClusterHarness;
  readonly clock: VirtualClock;
  readonly cluster: StaticCluster;
  readonly host: PluginHost;
  /** Warnings and errors the plugin logged, newest last (kept short). */
  readonly warnings: string[] = [];
  private readonly headersByLength = new Map<number, HeaderList>();

  /** Host calls the module made, by import name, when constructed with countHostCalls. */
  readonly hostCalls = new Map<string, number>();

  constructor(
    wasm: Uint8Array | WebAssembly.Module,
    pluginConfig: string,
    readonly rootId = PICKER_ROOT_ID,
    countHostCalls = false,
    options: BenchGatewayOptions = {},
  ) {
    const hostCalls = this.hostCalls;
    this.harness = new StaticClusterHarness({
      wasm,
      flavor: "higress",
      rootId,
      vmId: rootId,
      pluginConfig,
      bufferLimitBytes: 8 * 1024 * 1024,
      cluster: new StaticCluster(BENCH_CLUSTER, benchEndpoints(options.endpoints ?? 8)),
      extraImports: options.extraImports,
      log: (level, message) => {
        if (level < 3) return;
        this.warnings.push(message);
        if (this.warnings.length > 20) this.warnings.shift();
      },
      // The fault-injection hook sees every host call before it runs; it only counts here.
      fault: countHostCalls
        ? (name) => {
            hostCalls.set(name, (hostCalls.get(name) ?? 0) + 1);
            return undefined;
          }
        : undefined,
    });
    this.clock = this.harness.clock;
    this.cluster = this.harness.cluster;
    this.host = this.harness.host;
  }

  /** Runs one request's callbacks; returns the finished stream (its override host is the decision). */
  request(body: Uint8Array): FilterStream {
    const stream = this.harness.sendWithHeaders(this.requestHeaders(body.length), body, { worker: 0 });
    stream.encodeHeaders(RESPONSE_HEADERS, false);
    stream.finish();
    return stream;
  }

  /** Linear memory of the worker's VM, in bytes. */
  memoryBytes(): number {
    return this.host.workers[0].vm.linearMemoryBytes();
  }

  counter(name: string): number {
    return this.harness.counter(name);
  }

  private requestHeaders(length: number): HeaderList {
    let headers = this.headersByLength.get(length);
    if (!headers) {
      headers = [
        [":method", "POST"],
        [":path", "/v1/chat/completions"],
        [":authority", "gateway.example.com"],
        [":scheme", "https"],
        ["content-type", "application/json"],
        ["accept", "text/event-stream"],
        ["authorization", "Bearer sk-bench-0000000000000000"],
        ["user-agent", "OpenAI/Python 1.40.0"],
        ["x-request-id", "6f1c2a9e-1d2b-4c3d-9e8f-0a1b2c3d4e5f"],
        ["content-length", String(length)],
      ];
      this.headersByLength.set(length, headers);
    }
    return headers;
  }
}
