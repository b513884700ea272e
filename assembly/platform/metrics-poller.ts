// Stock Envoy build: polls each endpoint's /metrics with proxy_http_call and publishes the parsed result in shared
// data. Only one worker polls an endpoint at a time: the one holding that endpoint's lease (polling-lease.ts,
// polled-endpoint.ts for the names). The endpoints are the configured ones, or those discovery found (setTargets).
import { dispatchHttpCall, getBufferBytes, httpCallResponseStatus, isOk, Returned, setSharedData } from "../abi/host";
import { HeaderMapWriter } from "../abi/header-map";
import { BufferType, Status } from "../abi/types";
import { encodeMetricsRecord } from "../endpoints/metrics-record";
import { PickerState } from "../core/picker-state";
import { ORIGINAL_DST_HOST_HEADER } from "../config/discovery-config";
import { PolledEndpoint } from "./polled-endpoint";

const MAX_BODY: u32 = 262144;
const MAX_LINES: i32 = 20000;
// Envoy's override_host policy routes to the named host whatever its health (load_balancer.cc findHost), so an
// endpoint whose last poll failed is not named again until a poll succeeds: a pod restarting for two seconds
// would otherwise take every request sent to it meanwhile.
const FAILURES_BEFORE_UNHEALTHY: i32 = 1;

export class MetricsPoller {
  private targets: Array<PolledEndpoint>;
  private readonly headers: HeaderMapWriter = new HeaderMapWriter();
  private readonly record: ArrayBuffer = new ArrayBuffer(4096);
  /** The answer being read (released before the callback ends). */
  private readonly response: Returned = new Returned();

  constructor(
    private readonly state: PickerState,
    /** This worker's token (worker-token.ts); 0 (shared data unavailable) polls nothing. */
    private readonly token: u64,
    targets: Array<PolledEndpoint>,
  ) {
    this.targets = targets;
  }

  /** Polls these endpoints from now on (discovery changed them). A call pending for one no longer polled is ignored
   *  when it answers. */
  setTargets(targets: Array<PolledEndpoint>): void {
    this.targets = targets;
  }

  onTick(nowMs: f64): void {
    if (this.token == 0) return;
    const timeout = <u32>this.state.config.pollTimeoutMs;
    const targets = this.targets;
    for (let i = 0; i < targets.length; i++) {
      const e = unchecked(targets[i]);
      if (!e.lease.take(nowMs) || e.pendingCall != 0) continue;
      const h = this.headers.clear().add(":method", "GET").add(":path", e.path).add(":authority", e.authority).add("accept", "text/plain");
      if (e.originalDstHost.length > 0) h.add(ORIGINAL_DST_HOST_HEADER, e.originalDstHost);
      const call = dispatchHttpCall(e.cluster, h, null, timeout);
      if (isOk(call)) e.pendingCall = <u32>call + 1;
      else this.failed(e);
    }
  }

  /** True when the call was one of this poller's. */
  onResponse(callId: u32, numHeaders: u32, bodySize: u32, nowMs: f64): bool {
    let e: PolledEndpoint | null = null;
    const targets = this.targets;
    for (let k = 0; k < targets.length; k++) {
      if (unchecked(targets[k]).pendingCall == callId + 1) {
        e = unchecked(targets[k]);
        break;
      }
    }
    if (e === null) return false;
    const t = e!;
    t.pendingCall = 0;
    // Envoy delivers a failed call with no headers; a timeout or connect failure arrives as the router's
    // local 504/503 reply. Only `:status` carries the HTTP status (proxy_get_status does not).
    const status = numHeaders == 0 ? 0 : httpCallResponseStatus(this.response);
    if (status < 200 || status >= 300) {
      this.failed(t);
      return true;
    }
    const m = t.metrics;
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
      t.cacheSize.fillIn(0, m, !this.state.metricsParser.readWhole);
    }
    t.failures = 0;
    t.lastSuccessMs = nowMs;
    this.publish(t, true);
    return true;
  }

  private failed(e: PolledEndpoint): void {
    this.state.telemetry.add(this.state.telemetry.pollFailures, 1);
    const n = e.failures + 1;
    e.failures = n;
    this.publish(e, n < FAILURES_BEFORE_UNHEALTHY);
  }

  /** Publishes the endpoint's last good metrics, stamped with when they were fetched (not now), so readers
   *  stop trusting them after metrics.staleAfterMs even while polls keep failing. */
  private publish(e: PolledEndpoint, healthy: bool): void {
    // A discovered endpoint's record starts with its owner (polled-endpoint.ts), so that the slot's next member
    // does not read it as its own.
    const out = changetype<usize>(this.record);
    const owner = <i32>e.owner.byteLength;
    memory.copy(out, changetype<usize>(e.owner), <usize>owner);
    const len = encodeMetricsRecord(e.metrics, healthy, e.lastSuccessMs, out + <usize>owner, this.record.byteLength - owner);
    if (len > 0) setSharedData(e.key, out, <usize>(owner + len), 0);
  }
}
