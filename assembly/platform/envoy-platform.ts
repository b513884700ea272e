// Stock Envoy: no host call lists the cluster, so the configured `endpoints` are the host list. One worker
// polls each endpoint's /metrics (metrics-poller.ts) and publishes the parsed result in shared data; every
// worker reads it within the snapshot TTL. The choice reaches Envoy's override_host load-balancing policy
// through the x-gateway-destination-endpoint request header. An endpoint whose polls keep failing is taken for gone
// and leaves the registry until a poll succeeds again (departed-endpoints.ts).
import { getSharedData, replaceHeaderValue, SharedValue, Utf8 } from "../abi/host";
import { MapType, Status } from "../abi/types";
import { decodeMetricsRecord, MetricsRecordHeader } from "../endpoints/metrics-record";
import { addressHash } from "../endpoints/endpoint-registry";
import { applyEngineState } from "./endpoint-refresh";
import { PickerState } from "../core/picker-state";
import { OVERRIDE_HEADER } from "../core/override-header";
import { MetricsPoller, metricsKey } from "./metrics-poller";
import { departAfterMs, departed } from "./departed-endpoints";
import { Platform } from "../core/platform";

export class EnvoyPlatform extends Platform {
  private keys: Array<Utf8> = [];
  private addresses: Array<ArrayBuffer> = [];
  /** Per configured endpoint, its registry slot; -1 while it is taken for gone. */
  private slots: Array<i32> = [];
  /** Per configured endpoint, whether this refresh found it gone (1) or back (2); 0 otherwise. */
  private moves: StaticArray<u8> = new StaticArray<u8>(0);
  private departAfterMs: f64 = 0;
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
      this.addresses.push(addr);
      this.keys.push(new Utf8(metricsKey(state.config, i)));
    }
    registry.endRefresh(state.evicted);
    this.moves = new StaticArray<u8>(endpoints.length);
    this.departAfterMs = departAfterMs(state.config.pollIntervalMs, state.config.pollTimeoutMs);
    this.poller = new MetricsPoller(state);
    return "";
  }

  refresh(state: PickerState, nowMs: f64): bool {
    if (nowMs - this.fetchedMs < <f64>state.config.snapshotTtlMs) return true;
    let moved = false;
    for (let i = 0; i < this.slots.length; i++) {
      const move = this.readRecord(state, i, unchecked(this.slots[i]), nowMs);
      unchecked((this.moves[i] = move));
      if (move != 0) moved = true;
    }
    if (moved) this.applyMoves(state, nowMs);
    this.fetchedMs = nowMs;
    return true;
  }

  /** Reads endpoint i's published record into its slot (-1: the endpoint is gone, nothing is written); returns 1
   *  when the record says it is gone, 2 when it says an endpoint taken for gone is back, else 0. */
  private readRecord(state: PickerState, i: i32, slot: i32, nowMs: f64): u8 {
    const registry = state.registry;
    const published = this.published;
    if (getSharedData(unchecked(this.keys[i]), published) != Status.Ok) {
      // Nothing published yet: the endpoint is usable, without load signals.
      if (slot >= 0) {
        registry.writableMetrics(slot).reset();
        registry.setHealthy(slot, true);
      }
      return 0;
    }
    const header = this.header;
    // A gone endpoint has no slot: its record is read into the parser's scratch, only to see whether it is back.
    const m = slot >= 0 ? registry.writableMetrics(slot) : state.parsedMetrics;
    const ok = decodeMetricsRecord(published.ptr, published.len, m, header);
    published.release();
    const stale = !ok || nowMs - header.updatedMs > <f64>state.config.staleAfterMs;
    if (slot < 0) return ok && header.healthy && !stale ? 2 : 0;
    if (ok && departed(header.healthy, header.updatedMs, nowMs, this.departAfterMs)) return 1;
    if (stale) {
      m.reset();
      registry.setHealthy(slot, !ok || header.healthy);
      return 0;
    }
    registry.setHealthy(slot, header.healthy);
    registry.setUpdatedMs(slot, header.updatedMs);
    applyEngineState(state, slot, m, header.updatedMs);
    return 0;
  }

  /** Evicts the endpoints found gone (forgetting what was kept on them) and takes back those found back. */
  private applyMoves(state: PickerState, nowMs: f64): void {
    const registry = state.registry;
    registry.beginRefresh();
    for (let i = 0; i < this.slots.length; i++) {
      const move = unchecked(this.moves[i]);
      if (move == 1) {
        unchecked((this.slots[i] = -1));
        continue;
      }
      if (move == 0 && unchecked(this.slots[i]) < 0) continue;
      const addr = unchecked(this.addresses[i]);
      const ptr = changetype<usize>(addr);
      // Cannot fail: every configured endpoint had a slot at configure time, and none holds more than one.
      unchecked((this.slots[i] = registry.see(ptr, <usize>addr.byteLength, addressHash(ptr, <usize>addr.byteLength))));
    }
    state.evictUnseen();
    // The endpoints back get their record now, as a new slot (see() cleared its metrics and health). Their caches are
    // taken for empty from the poll that found them back: hints published before (shared data outlives the slot)
    // do not count for them.
    for (let i = 0; i < this.slots.length; i++) {
      const slot = unchecked(this.slots[i]);
      if (unchecked(this.moves[i]) != 2 || slot < 0) continue;
      this.readRecord(state, i, slot, nowMs);
      state.restarts.emptiedBefore(slot, this.header.updatedMs);
    }
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
