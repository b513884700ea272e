// Stock Envoy: no host call lists the cluster, so the configured `endpoints` are the host list. One worker
// polls each endpoint's /metrics (metrics-poller.ts) and publishes the parsed result in shared data; every
// worker reads it within the snapshot TTL. The choice reaches Envoy's override_host load-balancing policy
// through the x-gateway-destination-endpoint request header.
import { getSharedData, replaceHeaderValue, SharedValue, Utf8 } from "../abi/host";
import { MapType, Status } from "../abi/types";
import { decodeMetricsRecord, MetricsRecordHeader } from "../endpoints/metrics-record";
import { addressHash } from "../endpoints/endpoint-registry";
import { applyEngineState } from "./endpoint-refresh";
import { PickerState } from "../core/picker-state";
import { OVERRIDE_HEADER } from "../core/override-header";
import { MetricsPoller, metricsKey } from "./metrics-poller";
import { Platform } from "../core/platform";

export class EnvoyPlatform extends Platform {
  private keys: Array<Utf8> = [];
  private slots: Array<i32> = [];
  private fetchedMs: f64 = -1e18;
  private readonly header: MetricsRecordHeader = new MetricsRecordHeader();
  /** One endpoint's record as read from shared data (released once decoded). */
  private readonly published: SharedValue = new SharedValue();
  private poller: MetricsPoller | null = null;

  get name(): string {
    return "envoy";
  }

  configure(state: PickerState): string {
    const endpoints = state.config.endpoints;
    if (endpoints.length == 0) return "endpoints: the stock Envoy build needs at least one endpoint";
    const registry = state.registry;
    registry.beginRefresh();
    for (let i = 0; i < endpoints.length; i++) {
      const addr = String.UTF8.encode(endpoints[i].address);
      const slot = registry.see(changetype<usize>(addr), addr.byteLength, addressHash(changetype<usize>(addr), addr.byteLength));
      if (slot < 0) return "endpoints[" + i.toString() + "]: cannot track endpoint " + endpoints[i].address;
      registry.setHealthy(slot, true);
      this.slots.push(slot);
      this.keys.push(new Utf8(metricsKey(state.config, i)));
    }
    registry.endRefresh(state.evicted);
    this.poller = new MetricsPoller(state);
    return "";
  }

  refresh(state: PickerState, nowMs: f64): bool {
    if (nowMs - this.fetchedMs < <f64>state.config.snapshotTtlMs) return true;
    const registry = state.registry;
    const stale = <f64>state.config.staleAfterMs;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = unchecked(this.slots[i]);
      const m = registry.writableMetrics(slot);
      const published = this.published;
      if (getSharedData(unchecked(this.keys[i]), published) != Status.Ok) {
        // Nothing published yet: the endpoint is usable, without load signals.
        m.reset();
        registry.setHealthy(slot, true);
        continue;
      }
      const ok = decodeMetricsRecord(published.ptr, published.len, m, this.header);
      published.release();
      if (!ok || nowMs - this.header.updatedMs > stale) {
        m.reset();
        registry.setHealthy(slot, !ok || this.header.healthy);
        continue;
      }
      registry.setHealthy(slot, this.header.healthy);
      registry.setUpdatedMs(slot, this.header.updatedMs);
      applyEngineState(state, slot, m, this.header.updatedMs);
    }
    this.fetchedMs = nowMs;
    return true;
  }

  route(state: PickerState, slot: i32): bool {
    const r = state.registry;
    return replaceHeaderValue(MapType.HttpRequestHeaders, OVERRIDE_HEADER, r.addressPtr(slot), r.addressLen(slot)) == Status.Ok;
  }

  tickPeriodMs(state: PickerState): u32 {
    return <u32>state.config.pollIntervalMs;
  }

  onTick(state: PickerState, nowMs: f64): void {
    if (this.poller !== null) this.poller!.onTick(nowMs);
  }

  onHttpCallResponse(state: PickerState, callId: u32, numHeaders: u32, bodySize: u32, nowMs: f64): void {
    if (this.poller !== null) this.poller!.onResponse(callId, numHeaders, bodySize, nowMs);
  }
}
