// Stock Envoy build: polls each configured endpoint's /metrics with proxy_http_call and publishes the parsed
// result in shared data. Only one worker polls an endpoint at a time: it holds that endpoint's lease in shared data,
// renewed with compare-and-swap on every tick, so a worker whose VM dies hands the job over when the lease expires.
//
// Leases and records are per endpoint and per way of polling it (endpointKey), not per configuration: Envoy runs the
// root contexts of several configurations in one VM (filters with the same vm_config share it; a replaced
// configuration's root context ticks on until its last stream ends: cpp-host wasm.cc WasmBase::startShutdown), and
// shared data is one map per vm_id (cpp-host shared_data.cc). With one lease per configuration, whichever root held
// it kept renewing it and the other configuration's endpoints were never polled.
import {
  dispatchHttpCall, getBufferBytes, getSharedData, httpCallResponseStatus, isOk, Returned, setSharedData, SharedValue, Utf8,
} from "../abi/host";
import { HeaderMapWriter } from "../abi/header-map";
import { BufferType, Status } from "../abi/types";
import { EndpointMetrics } from "../endpoints/endpoint-metrics";
import { encodeMetricsRecord, METRICS_RECORD_VERSION } from "../endpoints/metrics-record";
import { PickerState } from "../core/picker-state";
import { takeWorkerToken } from "../core/worker-token";
import { KnownCacheSizes } from "../core/known-cache-sizes";
import { hashNameString } from "../endpoints/name-hash";
import { PickerConfig } from "../config/picker-config";

const MAX_BODY: u32 = 262144;
const MAX_LINES: i32 = 20000;
// Envoy's override_host policy routes to the named host whatever its health (load_balancer.cc findHost), so an
// endpoint whose last poll failed is not named again until a poll succeeds: a pod restarting for two seconds
// would otherwise take every request sent to it meanwhile.
const FAILURES_BEFORE_UNHEALTHY: i32 = 1;

function field(s: string): string {
  return s.length.toString() + ":" + s;
}

/**
 * The shared-data name of configuration endpoint i, polled as that configuration polls it: two configurations that
 * poll an endpoint alike share its lease and record; ones that differ (cluster, path, authority, target metric,
 * interval, timeout) poll it each their own way. So do builds whose records differ (METRICS_RECORD_VERSION): an
 * older build loaded beside this one (its root contexts live until their last streams end, and shared data is one
 * map per vm_id: cpp-host shared_data.cc) reads none of this build's records, nor this build any of its.
 */
export function endpointKey(config: PickerConfig, i: i32): string {
  const e = config.endpoints[i];
  const how = field(e.metricsCluster) + field(metricsPathOf(config, i)) + field(authorityOf(config, i)) +
    field(config.targetMetric) + field(config.pollIntervalMs.toString()) + field(config.pollTimeoutMs.toString());
  return "endpoint_picker/endpoint/v" + METRICS_RECORD_VERSION.toString() + "/" + hashNameString(how).toString(16) +
    "/" + e.address;
}

/** Where endpoint i's record is published, and where its polling lease is held, under its endpointKey. */
const RECORD_SUFFIX = "/metrics";
const LEASE_SUFFIX = "/poller";

export function metricsKey(config: PickerConfig, i: i32): string {
  return endpointKey(config, i) + RECORD_SUFFIX;
}

function metricsPathOf(config: PickerConfig, i: i32): string {
  const e = config.endpoints[i];
  return e.metricsPath.length > 0 ? e.metricsPath : config.metricsPath;
}

function authorityOf(config: PickerConfig, i: i32): string {
  const e = config.endpoints[i];
  return e.authority.length > 0 ? e.authority : e.address;
}

export class MetricsPoller {
  private readonly token: u64;
  private readonly keys: Array<Utf8> = [];
  private readonly leaseKeys: Array<Utf8> = [];
  private readonly clusters: Array<Utf8> = [];
  private readonly paths: Array<string> = [];
  private readonly authorities: Array<string> = [];
  /** Per endpoint, its pending call's id + 1, or 0. (Ids step by 4 from 4 and wrap to 0 after 2^30 calls: cpp-host
   *  wasm.h nextHttpCallId. Id 0 must not read as "no call", or its answer goes to the first endpoint without one.) */
  private readonly pendingCall: StaticArray<u32>;
  private readonly failures: StaticArray<i32>;
  private readonly lastSuccessMs: StaticArray<f64>;
  private readonly metrics: Array<EndpointMetrics> = [];
  /** Per endpoint, the KV cache size its last page that had one reported (for pages cut before it). */
  private readonly cacheSizes: KnownCacheSizes;
  private readonly headers: HeaderMapWriter = new HeaderMapWriter();
  private readonly record: ArrayBuffer = new ArrayBuffer(4096);
  private readonly leaseValue: usize = memory.data(16);
  /** The lease as read from shared data, and the answer being read (each released before the callback ends). */
  private readonly leaseRead: SharedValue = new SharedValue();
  private readonly response: Returned = new Returned();
  /** How long a lease lasts past its last renewal. */
  private readonly leaseMs: f64;

  constructor(private readonly state: PickerState) {
    const config = state.config;
    this.leaseMs = 3 * <f64>config.pollIntervalMs;
    const endpoints = state.config.endpoints;
    this.pendingCall = new StaticArray<u32>(endpoints.length);
    this.failures = new StaticArray<i32>(endpoints.length);
    this.lastSuccessMs = new StaticArray<f64>(endpoints.length);
    this.cacheSizes = new KnownCacheSizes(endpoints.length);
    for (let i = 0; i < endpoints.length; i++) {
      const e = endpoints[i];
      const key = endpointKey(config, i);
      this.keys.push(new Utf8(key + RECORD_SUFFIX));
      this.leaseKeys.push(new Utf8(key + LEASE_SUFFIX));
      this.clusters.push(new Utf8(e.metricsCluster));
      this.paths.push(metricsPathOf(config, i));
      this.authorities.push(authorityOf(config, i));
      this.metrics.push(new EndpointMetrics());
    }
    this.token = takeWorkerToken();
  }

  /** Takes or renews endpoint i's polling lease; true when this worker polls it. */
  private lead(i: i32, nowMs: f64): bool {
    let cas: u32 = 0;
    const lease = this.leaseRead;
    if (getSharedData(unchecked(this.leaseKeys[i]), lease) == Status.Ok) {
      const ok = lease.len >= 16;
      const owner = ok ? load<u64>(lease.ptr) : 0;
      const expires = ok ? load<f64>(lease.ptr, 8) : 0;
      cas = lease.cas;
      lease.release();
      // Another worker's lease stands until it expires, unless it ends further ahead than a renewal sets it: the
      // wall clock (proxy_get_current_time_nanoseconds) stepped back since it was written, and a holder that died
      // then would keep it for as long as the step. (Every holder of this key renews alike: endpointKey.)
      if (owner != this.token && expires > nowMs && expires - nowMs <= this.leaseMs) return false;
    }
    store<u64>(this.leaseValue, this.token);
    store<f64>(this.leaseValue, nowMs + this.leaseMs, 8);
    return setSharedData(unchecked(this.leaseKeys[i]), this.leaseValue, 16, cas) == Status.Ok;
  }

  onTick(nowMs: f64): void {
    if (this.token == 0) return;
    const timeout = <u32>this.state.config.pollTimeoutMs;
    for (let i = 0; i < this.keys.length; i++) {
      if (!this.lead(i, nowMs) || unchecked(this.pendingCall[i]) != 0) continue;
      this.headers.clear().add(":method", "GET").add(":path", this.paths[i]).add(":authority", this.authorities[i]).add("accept", "text/plain");
      const call = dispatchHttpCall(this.clusters[i], this.headers, null, timeout);
      if (isOk(call)) unchecked((this.pendingCall[i] = <u32>call + 1));
      else this.failed(i);
    }
  }

  onResponse(callId: u32, numHeaders: u32, bodySize: u32, nowMs: f64): void {
    let i = -1;
    for (let k = 0; k < this.keys.length; k++) {
      if (unchecked(this.pendingCall[k]) == callId + 1) {
        i = k;
        break;
      }
    }
    if (i < 0) return;
    unchecked((this.pendingCall[i] = 0));
    // Envoy delivers a failed call with no headers; a timeout or connect failure arrives as the router's
    // local 504/503 reply. Only `:status` carries the HTTP status (proxy_get_status does not).
    const status = numHeaders == 0 ? 0 : httpCallResponseStatus(this.response);
    if (status < 200 || status >= 300) {
      this.failed(i);
      return;
    }
    const m = this.metrics[i];
    const take = min<u32>(bodySize, MAX_BODY);
    let parsed = false;
    const body = this.response;
    if (take > 0 && getBufferBytes(BufferType.HttpCallResponseBody, 0, take, body) == Status.Ok) {
      const target = this.state.targetMetric;
      parsed = this.state.metricsParser.parseWithTarget(body.ptr, body.len, bodySize > take, m, MAX_LINES, changetype<usize>(target), <usize>target.byteLength);
      body.release();
    }
    if (!parsed) {
      this.state.telemetry.add(this.state.telemetry.metricsParseErrors, 1);
      m.reset();
    } else {
      // vLLM writes cache_config_info last: a page longer than MAX_BODY or MAX_LINES lost it, and without the size the readers'
      // index share fell back to the default and their cache horizon started over at every such page.
      this.cacheSizes.fillIn(i, m, !this.state.metricsParser.readWhole);
    }
    unchecked((this.failures[i] = 0));
    unchecked((this.lastSuccessMs[i] = nowMs));
    this.publish(i, true);
  }

  private failed(i: i32): void {
    this.state.telemetry.add(this.state.telemetry.pollFailures, 1);
    const n = unchecked(this.failures[i]) + 1;
    unchecked((this.failures[i] = n));
    this.publish(i, n < FAILURES_BEFORE_UNHEALTHY);
  }

  /** Publishes endpoint i's last good metrics, stamped with when they were fetched (not now), so readers
   *  stop trusting them after metrics.staleAfterMs even while polls keep failing. */
  private publish(i: i32, healthy: bool): void {
    const len = encodeMetricsRecord(this.metrics[i], healthy, unchecked(this.lastSuccessMs[i]), changetype<usize>(this.record), this.record.byteLength);
    if (len > 0) setSharedData(this.keys[i], changetype<usize>(this.record), <usize>len, 0);
  }
}
