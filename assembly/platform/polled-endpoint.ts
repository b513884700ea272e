// One endpoint whose /metrics the stock build polls: where its page comes from, the shared-data names of its record
// and polling lease, and the poller's state for it. A configured endpoint is polled through its own metricsCluster;
// a discovered one through discovery.metricsCluster, an ORIGINAL_DST cluster that takes the upstream host from the
// call's x-envoy-original-dst-host header (original_dst_cluster.cc OriginalDstCluster::LoadBalancer::
// requestOverrideHost; a proxy_http_call's headers reach it as the async client's router's downstream headers:
// async_client_impl.cc AsyncStreamImpl::sendHeaders hands them to router_.decodeHeaders).
//
// Leases and records are per endpoint and per way of polling it (endpointKey), not per configuration: Envoy runs the
// root contexts of several configurations in one VM (filters with the same vm_config share it; a replaced
// configuration's root context ticks on until its last stream ends: cpp-host wasm.cc WasmBase::startShutdown), and
// shared data is one map per vm_id (cpp-host shared_data.cc). With one lease per configuration, whichever root held
// it kept renewing it and the other configuration's endpoints were never polled. A discovered endpoint is named by its
// member slot (member-slots.ts), not its address, so that pods coming and going at new addresses add no names; its
// record starts with its owner (generation, address), which a reader checks against the member it knows.
import { Utf8 } from "../abi/host";
import { EndpointMetrics } from "../endpoints/endpoint-metrics";
import { METRICS_RECORD_VERSION } from "../endpoints/metrics-record";
import { hashNameString } from "../endpoints/name-hash";
import { KnownCacheSizes } from "../core/known-cache-sizes";
import { PickerConfig } from "../config/picker-config";
import { PollingLease } from "./polling-lease";
import { keyField } from "./key-field";

/** Where an endpoint's record is published, and where its polling lease is held, under its endpointKey. */
const RECORD_SUFFIX = "/metrics";
const LEASE_SUFFIX = "/poller";

/**
 * The shared-data name of an endpoint (`name`: its address, or a discovered one's slot), polled as its configuration
 * polls it: two configurations that poll an endpoint
 * alike share its lease and record; ones that differ (cluster, path, authority, target metric, interval, timeout, the
 * original-destination header) poll it each their own way. So do builds whose records differ (METRICS_RECORD_VERSION):
 * an older build loaded beside this one (its root contexts live until their last streams end, and shared data is one
 * map per vm_id: cpp-host shared_data.cc) reads none of this build's records, nor this build any of its.
 */
export function pollKey(config: PickerConfig, name: string, cluster: string, path: string, authority: string, originalDst: bool): string {
  let how = keyField(cluster) + keyField(path) + keyField(authority) + keyField(config.targetMetric) +
    keyField(config.pollIntervalMs.toString()) + keyField(config.pollTimeoutMs.toString());
  if (originalDst) how += "dst";
  return "endpoint_picker/endpoint/v" + METRICS_RECORD_VERSION.toString() + "/" + hashNameString(how).toString(16) + "/" + name;
}

/** The shared-data name of configuration endpoint i (pollKey). */
export function endpointKey(config: PickerConfig, i: i32): string {
  const e = config.endpoints[i];
  return pollKey(config, e.address, e.metricsCluster, metricsPathOf(config, i), authorityOf(config, i), false);
}

function metricsPathOf(config: PickerConfig, i: i32): string {
  const e = config.endpoints[i];
  return e.metricsPath.length > 0 ? e.metricsPath : config.metricsPath;
}

function authorityOf(config: PickerConfig, i: i32): string {
  const e = config.endpoints[i];
  return e.authority.length > 0 ? e.authority : e.address;
}

export class PolledEndpoint {
  /** As Envoy names the host ("ip:port"), UTF-8: what the routing header says and the registry keys. */
  readonly addressBytes: ArrayBuffer;
  readonly cluster: Utf8;
  /** Where the record is published. */
  readonly key: Utf8;
  readonly lease: PollingLease;
  /** Per endpoint, its pending call's id + 1, or 0. (Ids step by 4 from 4 and wrap to 0 after 2^30 calls: cpp-host
   *  wasm.h nextHttpCallId. Id 0 must not read as "no call", or its answer goes to the first endpoint without one.) */
  pendingCall: u32 = 0;
  failures: i32 = 0;
  lastSuccessMs: f64 = 0;
  /** A discovered endpoint's slot in the member list and its join generation (-1 and 0: a configured one). */
  memberSlot: i32 = -1;
  generation: u32 = 0;
  /** Whether Envoy counts a discovered endpoint healthy (member-slots.ts state); a configured one always is. */
  memberHealthy: bool = true;
  /** What a discovered endpoint's record starts with (empty for a configured one): u32 generation, u8 address
   *  length, the address. */
  owner: ArrayBuffer = new ArrayBuffer(0);
  readonly metrics: EndpointMetrics = new EndpointMetrics();
  /** The KV cache size its last page that had one reported (for pages cut before it). */
  readonly cacheSize: KnownCacheSizes = new KnownCacheSizes(1);

  private constructor(
    readonly address: string,
    cluster: string,
    readonly path: string,
    readonly authority: string,
    /** Set on the call as x-envoy-original-dst-host (a discovered endpoint), else "". */
    readonly originalDstHost: string,
    baseKey: string,
    leaseMs: f64,
    token: u64,
  ) {
    this.addressBytes = String.UTF8.encode(address);
    this.cluster = new Utf8(cluster);
    this.key = new Utf8(baseKey + RECORD_SUFFIX);
    this.lease = new PollingLease(new Utf8(baseKey + LEASE_SUFFIX), leaseMs, token);
  }

  /** Configuration endpoint i. */
  static configured(config: PickerConfig, i: i32, token: u64): PolledEndpoint {
    const e = config.endpoints[i];
    return new PolledEndpoint(e.address, e.metricsCluster, metricsPathOf(config, i), authorityOf(config, i), "", endpointKey(config, i), leaseMsOf(config), token);
  }

  /** The member of discovery.servingCluster in `slot` of the list named `listName` (EndpointDiscovery.slotName),
   *  joined as `generation`, polled through discovery.metricsCluster. */
  static discovered(config: PickerConfig, listName: string, slot: i32, generation: u32, address: string, token: u64): PolledEndpoint {
    const cluster = config.discovery.metricsCluster;
    const path = config.metricsPath;
    const name = listName + "/slot" + slot.toString();
    const e = new PolledEndpoint(address, cluster, path, address, address, pollKey(config, name, cluster, path, "", true), leaseMsOf(config), token);
    e.memberSlot = slot;
    e.generation = generation;
    const n = e.addressBytes.byteLength;
    const owner = new ArrayBuffer(5 + n);
    store<u32>(changetype<usize>(owner), generation);
    store<u8>(changetype<usize>(owner), <u8>n, 4);
    memory.copy(changetype<usize>(owner) + 5, changetype<usize>(e.addressBytes), <usize>n);
    e.owner = owner;
    return e;
  }

  /** Whether the record at ptr (len bytes) is this endpoint's: it starts with its owner. */
  owns(ptr: usize, len: usize): bool {
    const n = <usize>this.owner.byteLength;
    return len >= n && memory.compare(ptr, changetype<usize>(this.owner), n) == 0;
  }
}

/** How long a polling lease lasts past its last renewal. */
export function leaseMsOf(config: PickerConfig): f64 {
  return 3 * <f64>config.pollIntervalMs;
}
