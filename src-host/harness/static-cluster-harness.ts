// The plugin over a static cluster, as the bench, the simulator, the fuzzer and the tests run it: a PluginHost
// on a virtual clock whose route cluster lists endpoints with their vLLM /metrics pages, and a request helper
// (plugin-request.ts) that sends a chat request's callbacks through it the way Envoy does.
import { VirtualClock, type Clock } from "../host/clock.ts";
import { ClusterRegistry, StaticCluster, type UpstreamHost } from "../host/cluster.ts";
import type { FilterStream } from "../host/filter-stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import { PluginHost, type PluginHostOptions } from "../host/plugin-host.ts";
import type { Flavor } from "../host/vm.ts";
import { builtPluginModule } from "../wasm/built-plugin.ts";
import { chosenEndpoint, completeStream, requestHeaders, sendRequest, type RequestOptions } from "./plugin-request.ts";
import { vllmPage, type EndpointLoad, type VllmPageOptions } from "./vllm-page.ts";

export const ROUTE_CLUSTER = "backends";
export const PICKER_ROOT_ID = "endpoint_picker";

const enc = new TextEncoder();

export type HarnessOptions<C extends Clock = VirtualClock> = Partial<Omit<PluginHostOptions, "clock">> & {
  /** The route's cluster; pass one to share it between harnesses (gateway replicas). Default: empty "backends". */
  cluster?: StaticCluster;
  /** Default: a new VirtualClock. */
  clock?: C;
};

export interface Endpoint extends EndpointLoad {
  address: string;
  /** Default "Healthy". */
  health?: string;
}

export interface SendOptions extends RequestOptions {
  /** Headers added to (and replacing defaults of the same name in) requestHeaders(). */
  headers?: HeaderList;
  path?: string;
}

/** Each endpoint as the gateway's cluster lists it: address, health and its /metrics page. */
export function upstreamHosts(endpoints: readonly Endpoint[], page: VllmPageOptions = {}): UpstreamHost[] {
  return endpoints.map((e) => ({ address: e.address, healthStatus: e.health ?? "Healthy", metrics: vllmPage(e, page) }));
}

export class StaticClusterHarness<C extends Clock = VirtualClock> {
  readonly clock: C;
  readonly cluster: StaticCluster;
  readonly host: PluginHost;
  readonly flavor: Flavor;

  /** Defaults: the built plugin of `flavor` (higress), root id endpoint_picker, StopIteration allowed (Envoy 1.35+). */
  constructor(options: HarnessOptions<C> = {}) {
    const { cluster, clock, wasm, ...hostOptions } = options;
    this.flavor = options.flavor ?? "higress";
    this.clock = clock ?? (new VirtualClock() as Clock as C);
    this.cluster = cluster ?? new StaticCluster(ROUTE_CLUSTER);
    const clusters = options.clusters ?? new ClusterRegistry();
    clusters.add(this.cluster);
    this.host = PluginHost.create({
      rootId: PICKER_ROOT_ID,
      vmId: PICKER_ROOT_ID,
      allowOnHeadersStopIteration: true,
      ...hostOptions,
      wasm: wasm ?? builtPluginModule(this.flavor),
      flavor: this.flavor,
      clock: this.clock,
      clusters,
    });
  }

  /** Replaces the cluster's endpoints. */
  setEndpoints(endpoints: readonly Endpoint[], page: VllmPageOptions = {}): void {
    this.cluster.hostList = upstreamHosts(endpoints, page);
  }

  /** Sends a request's headers and body (stopping at a local reply); the stream then holds the decision. */
  send(body: Uint8Array | string | object, o: SendOptions = {}): FilterStream {
    const bytes = body instanceof Uint8Array ? body : enc.encode(typeof body === "string" ? body : JSON.stringify(body));
    return this.sendWithHeaders(requestHeaders(bytes.length, o.headers, o.path), bytes, o);
  }

  /** Sends exactly these request headers, then the body. */
  sendWithHeaders(headers: HeaderList, body: Uint8Array, o: Pick<SendOptions, "worker" | "chunks" | "clusterName" | "protocol"> = {}): FilterStream {
    const clusterName = "clusterName" in o ? o.clusterName : this.cluster.name;
    return sendRequest(this.host, headers, body, { worker: o.worker, chunks: o.chunks, clusterName, protocol: o.protocol });
  }

  /** Ends a stream the normal way: response headers, a small body, then on_log/on_done. */
  complete(stream: FilterStream, status = 200): void {
    completeStream(stream, status);
  }

  /** The endpoint the plugin routed to: the Higress override host, or the stock build's header. */
  chosen(stream: FilterStream): string | null {
    return chosenEndpoint(this.host, stream);
  }

  /** One of the plugin's counters or gauges (0 when absent). */
  counter(name: string): number {
    const v = this.host.scrape()[`${this.host.rootId}.${name}`];
    return typeof v === "number" ? v : 0;
  }

  close(): void {
    this.host.close();
  }
}
