// Stock Envoy: no host call lists the cluster. The endpoints are the configured `endpoints`, or, with `discovery`,
// the hosts of an Envoy cluster read from Envoy's admin /clusters (endpoint-discovery.ts). One worker polls each
// endpoint's /metrics (metrics-poller.ts) and publishes the parsed result in shared data; every worker reads it within
// the snapshot TTL. The choice reaches Envoy's override_host load-balancing policy through the
// x-gateway-destination-endpoint request header. An endpoint whose polls keep failing is taken for gone and leaves the
// registry until a poll succeeds again (departed-endpoints.ts); a discovered endpoint that leaves the serving cluster
// leaves the registry at once, and everything kept on it is forgotten (PickerState.evictUnseen), while one Envoy
// stops counting healthy (a failed health check, degraded, pending its first check) or pending removal (which Envoy
// still balances to: admin-clusters.ts readHealth) stays, excluded from picks and
// remembered, as the Higress build keeps an unhealthy host (higress-platform.ts applyHost). Healthy hosts too few by
// Envoy's rule while some are degraded: Envoy's balancer would give the degraded ones a share, so it decides
// (balancerDecides, fallback degraded_share; degraded-load.ts). No healthy endpoint: the
// decision falls back (no_healthy_endpoint) and Envoy's own balancer, in panic below its healthy threshold
// (load_balancer_impl.cc LoadBalancerBase::isHostSetInPanic), decides, with nothing forgotten.
import { getSharedData, replaceHeaderValue, SharedValue } from "../abi/host";
import { MapType, Status } from "../abi/types";
import { decodeMetricsRecord, MetricsRecordHeader } from "../endpoints/metrics-record";
import { addressHash } from "../endpoints/endpoint-registry";
import { applyEngineState } from "./endpoint-refresh";
import { PickerState } from "../core/picker-state";
import { OVERRIDE_HEADER } from "../core/override-header";
import { takeWorkerToken } from "../core/worker-token";
import { MetricsPoller } from "./metrics-poller";
import { PolledEndpoint } from "./polled-endpoint";
import { EndpointDiscovery } from "./endpoint-discovery";
import { FREE } from "./member-slots";
import { HostState } from "../endpoints/admin-clusters";
import { departAfterMs, departed } from "./departed-endpoints";
import { Platform } from "../core/platform";
import { envoyDegradedLoad } from "./degraded-load";

export class EnvoyPlatform extends Platform {
  private endpoints: Array<PolledEndpoint> = [];
  /** Per endpoint, its registry slot; -1 while it is taken for gone. */
  private slots: StaticArray<i32> = new StaticArray<i32>(0);
  /** Per endpoint, whether this refresh found it gone (1) or back (2); 0 otherwise. */
  private moves: StaticArray<u8> = new StaticArray<u8>(0);
  private departAfterMs: f64 = 0;
  private fetchedMs: f64 = -1e18;
  private readonly header: MetricsRecordHeader = new MetricsRecordHeader();
  /** One endpoint's record as read from shared data (released once decoded). */
  private readonly published: SharedValue = new SharedValue();
  private poller: MetricsPoller | null = null;
  private discovery: EndpointDiscovery | null = null;
  private token: u64 = 0;
  /** Percent of requests Envoy's own balancer gives the discovered degraded hosts (degraded-load.ts). */
  private degradedLoad: i32 = 0;

  get name(): string {
    return "envoy";
  }

  configure(state: PickerState): string {
    const config = state.config;
    const endpoints = config.endpoints;
    const discovering = config.discovery.enabled;
    if (endpoints.length == 0 && !discovering) return "endpoints: the stock Envoy build needs at least one endpoint, or discovery";
    this.token = takeWorkerToken();
    const capacity = discovering ? config.maxEndpoints : endpoints.length;
    this.slots = new StaticArray<i32>(capacity);
    this.moves = new StaticArray<u8>(capacity);
    const registry = state.registry;
    registry.beginRefresh();
    for (let i = 0; i < endpoints.length; i++) {
      const e = PolledEndpoint.configured(config, i, this.token);
      const addr = e.addressBytes;
      const slot = registry.see(changetype<usize>(addr), addr.byteLength, addressHash(changetype<usize>(addr), addr.byteLength));
      if (slot < 0) return "endpoints[" + i.toString() + "]: cannot track endpoint " + endpoints[i].address;
      registry.setHealthy(slot, true);
      unchecked((this.slots[i] = slot));
      this.endpoints.push(e);
    }
    registry.endRefresh(state.evicted);
    this.departAfterMs = departAfterMs(config.pollIntervalMs, config.pollTimeoutMs);
    this.poller = new MetricsPoller(state, this.token, this.endpoints);
    if (discovering) this.discovery = new EndpointDiscovery(state, this.token);
    return "";
  }

  refresh(state: PickerState, nowMs: f64): bool {
    // Discovering, nothing is known before the first list: the request goes to Envoy's own balancer.
    if (this.discovery !== null && !this.discovery!.known) return false;
    if (nowMs - this.fetchedMs < <f64>state.config.snapshotTtlMs) return true;
    let moved = false;
    const endpoints = this.endpoints;
    for (let i = 0; i < endpoints.length; i++) {
      const move = this.readRecord(state, unchecked(endpoints[i]), unchecked(this.slots[i]), nowMs);
      unchecked((this.moves[i] = move));
      if (move != 0) moved = true;
    }
    if (moved) this.applyMoves(state, nowMs);
    this.fetchedMs = nowMs;
    return true;
  }

  /** Envoy's balancer would give degraded hosts a share of the requests (the healthy ones fall short by its rule):
   *  the plugin names none, since naming only healthy hosts would take that share from the degraded ones and naming
   *  degraded ones would need Envoy's split per request; Envoy's balancer decides. Envoy would route to a degraded
   *  host the plugin named: override_host's load_balancer.cc OverrideHostLoadBalancer findHost checks no health. */
  balancerDecides(): bool {
    return this.degradedLoad > 0;
  }

  /** Reads an endpoint's published record into its slot (-1: the endpoint is gone, nothing is written); returns 1
   *  when the record says it is gone, 2 when it says an endpoint taken for gone is back, else 0. */
  private readRecord(state: PickerState, e: PolledEndpoint, slot: i32, nowMs: f64): u8 {
    const registry = state.registry;
    const published = this.published;
    if (getSharedData(e.key, published) != Status.Ok) return this.unpolled(state, e, slot);
    const header = this.header;
    // A gone endpoint has no slot: its record is read into the parser's scratch, only to see whether it is back.
    const m = slot >= 0 ? registry.writableMetrics(slot) : state.parsedMetrics;
    // A discovered endpoint's slot may hold a previous member's record (a worker that has not yet applied the list
    // polls the member it knows): not this one's, so nothing published yet for it.
    const owner = <usize>e.owner.byteLength;
    const mine = e.owns(published.ptr, published.len);
    const ok = mine && decodeMetricsRecord(published.ptr + owner, published.len - owner, m, header);
    published.release();
    if (!mine) return this.unpolled(state, e, slot);
    const stale = !ok || nowMs - header.updatedMs > <f64>state.config.staleAfterMs;
    if (slot < 0) return ok && header.healthy && !stale ? 2 : 0;
    if (ok && departed(header.healthy, header.updatedMs, nowMs, this.departAfterMs)) return 1;
    // Envoy's health check failing (a discovered member's state) keeps the endpoint out of picks, remembered.
    if (stale) {
      m.reset();
      registry.setHealthy(slot, (!ok || header.healthy) && e.memberHealthy);
      return 0;
    }
    registry.setHealthy(slot, header.healthy && e.memberHealthy);
    registry.setUpdatedMs(slot, header.updatedMs);
    applyEngineState(state, slot, m, header.updatedMs);
    return 0;
  }

  /** Nothing published for the endpoint yet: it is usable, without load signals. */
  private unpolled(state: PickerState, e: PolledEndpoint, slot: i32): u8 {
    if (slot >= 0) {
      state.registry.writableMetrics(slot).reset();
      state.registry.setHealthy(slot, e.memberHealthy);
    }
    return 0;
  }

  /** Evicts the endpoints found gone (forgetting what was kept on them) and takes back those found back. */
  private applyMoves(state: PickerState, nowMs: f64): void {
    const registry = state.registry;
    const endpoints = this.endpoints;
    registry.beginRefresh();
    for (let i = 0; i < endpoints.length; i++) {
      const move = unchecked(this.moves[i]);
      if (move == 1) {
        unchecked((this.slots[i] = -1));
        continue;
      }
      if (move == 0 && unchecked(this.slots[i]) < 0) continue;
      const addr = unchecked(endpoints[i]).addressBytes;
      const ptr = changetype<usize>(addr);
      // Cannot fail: every endpoint had a slot when it came, and none holds more than one.
      unchecked((this.slots[i] = registry.see(ptr, <usize>addr.byteLength, addressHash(ptr, <usize>addr.byteLength))));
    }
    state.evictUnseen();
    // The endpoints back get their record now, as a new slot (see() cleared its metrics and health). Their caches are
    // taken for empty from the poll that found them back: hints published before (shared data outlives the slot)
    // do not count for them.
    for (let i = 0; i < endpoints.length; i++) {
      const slot = unchecked(this.slots[i]);
      if (unchecked(this.moves[i]) != 2 || slot < 0) continue;
      this.readRecord(state, unchecked(endpoints[i]), slot, nowMs);
      state.restarts.emptiedBefore(slot, this.header.updatedMs);
    }
  }

  /**
   * The discovered list changed: members that left are evicted and forgotten, those that joined (a new generation in
   * a slot, even at an address known before) get a registry slot with nothing remembered (their cache taken for empty
   * from now), members whose state changed are kept (one Envoy no longer counts healthy is excluded from picks, its
   * index entries kept), and the poller polls the new list. An endpoint taken for gone by its failed polls stays so
   * until a poll succeeds.
   */
  private applyMembers(state: PickerState, d: EndpointDiscovery, nowMs: f64): void {
    const registry = state.registry;
    const members = d.members;
    const old = this.endpoints;
    const oldSlots = this.slots;
    const next = new Array<PolledEndpoint>();
    const nextSlots = new StaticArray<i32>(oldSlots.length);
    // Per member slot, the old endpoint that is its member (-1: a joiner).
    const from = new StaticArray<i32>(members.used);
    registry.beginRefresh();
    let healthy = 0;
    let degraded = 0;
    let total = 0;
    for (let k = 0; k < members.used; k++) {
      unchecked((from[k] = -1));
      const memberState = members.state(k);
      if (memberState == FREE) continue;
      if (!members.excluded(k)) total++; // Envoy's host count leaves excluded hosts out
      if (memberState == HostState.Healthy) healthy++;
      else if (memberState == HostState.Degraded) degraded++;
      const j = findMember(old, k, members.generation(k), members.addressPtr(k), members.addressLen(k));
      unchecked((from[k] = j));
      if (j < 0) continue;
      const e = unchecked(old[j]);
      e.memberHealthy = members.state(k) == HostState.Healthy;
      let slot = unchecked(oldSlots[j]);
      if (slot >= 0) {
        const ptr = changetype<usize>(e.addressBytes);
        slot = registry.see(ptr, <usize>e.addressBytes.byteLength, addressHash(ptr, <usize>e.addressBytes.byteLength));
      }
      unchecked((nextSlots[next.length] = slot));
      next.push(e);
    }
    // Those that left free their slots first, so that joiners can take them.
    state.evictUnseen();
    for (let k = 0; k < members.used; k++) {
      if (members.state(k) == FREE || unchecked(from[k]) >= 0 || next.length >= nextSlots.length) continue;
      const ptr = members.addressPtr(k);
      const len = <usize>members.addressLen(k);
      const slot = registry.see(ptr, len, addressHash(ptr, len));
      // Cannot fail: the registry holds limits.maxEndpoints endpoints, as many as there are member slots.
      if (slot < 0) continue;
      const e = PolledEndpoint.discovered(state.config, d.slotName, k, members.generation(k), String.UTF8.decodeUnsafe(ptr, len), this.token);
      e.memberHealthy = members.state(k) == HostState.Healthy;
      registry.setHealthy(slot, e.memberHealthy);
      state.restarts.emptiedBefore(slot, nowMs);
      unchecked((nextSlots[next.length] = slot));
      next.push(e);
    }
    this.degradedLoad = envoyDegradedLoad(healthy, degraded, total);
    this.endpoints = next;
    this.slots = nextSlots;
    this.poller!.setTargets(next);
    // The next refresh reads every endpoint's record.
    this.fetchedMs = -1e18;
  }

  route(state: PickerState, slot: i32): bool {
    const r = state.registry;
    return replaceHeaderValue(MapType.HttpRequestHeaders, OVERRIDE_HEADER, r.addressPtr(slot), r.addressLen(slot)) == Status.Ok;
  }

  tickPeriodMs(state: PickerState): u32 {
    return <u32>state.config.pollIntervalMs;
  }

  onTick(state: PickerState, nowMs: f64): void {
    const d = this.discovery;
    if (d !== null) {
      d.onTick(nowMs);
      if (d.readMembers()) this.applyMembers(state, d, nowMs);
    }
    if (this.poller !== null) this.poller!.onTick(nowMs);
  }

  onHttpCallResponse(state: PickerState, callId: u32, numHeaders: u32, bodySize: u32, nowMs: f64): void {
    const d = this.discovery;
    if (d !== null && d.onResponse(callId, numHeaders, bodySize)) {
      if (d.readMembers()) this.applyMembers(state, d, nowMs);
      return;
    }
    if (this.poller !== null) this.poller!.onResponse(callId, numHeaders, bodySize, nowMs);
  }
}

/** The index of the discovered endpoint that is member `generation` of member slot `slot` at that address, or -1.
 *  The address is compared too: two workers that both found no list publish without a cas (cpp-host shared_data.cc
 *  SharedData::set takes a cas of 0 unconditionally), each numbering from generation 1, so a slot and generation may
 *  name another pod in the list that stands. */
function findMember(list: Array<PolledEndpoint>, slot: i32, generation: u32, ptr: usize, len: i32): i32 {
  for (let i = 0; i < list.length; i++) {
    const e = unchecked(list[i]);
    if (e.memberSlot != slot || e.generation != generation) continue;
    const addr = e.addressBytes;
    if (addr.byteLength == len && memory.compare(changetype<usize>(addr), ptr, <usize>len) == 0) return i;
  }
  return -1;
}
