// Higress: proxy_get_upstream_hosts gives the cluster's hosts with their health and the body of the last
// /metrics health check; proxy_set_upstream_override_host routes the request.
import { Returned } from "../abi/host";
import { proxy_get_upstream_hosts, proxy_set_upstream_override_host } from "../abi/higress-imports";
import { OUT_LEN, OUT_PTR, clearOutParams } from "../abi/memory";
import { Status } from "../abi/types";
import { UpstreamHostsParser } from "../endpoints/upstream-hosts";
import { PickerState } from "../core/picker-state";
import { applyEndpointMetrics } from "./endpoint-refresh";
import { Platform } from "../core/platform";
import { RedisTransport } from "../replica/redis-transport";
import { HigressRedisTransport } from "../replica/higress-redis-transport";

const METRICS_CAP: i32 = 65536 + 1024;

export class HigressPlatform extends Platform {
  private parser: UpstreamHostsParser | null = null;
  private fetchedMs: f64 = -1e18;
  /** The host list as the host returned it, released at the end of each refresh. */
  private readonly hosts: Returned = new Returned();

  get name(): string {
    return "higress";
  }

  configure(state: PickerState): string {
    // Hosts beyond maxEndpoints are counted and ignored; parse a few more so they can be counted.
    this.parser = new UpstreamHostsParser(state.config.maxEndpoints, METRICS_CAP);
    return "";
  }

  refresh(state: PickerState, nowMs: f64): bool {
    if (nowMs - this.fetchedMs < <f64>state.config.snapshotTtlMs && state.registry.count > 0) return true;
    clearOutParams();
    if (proxy_get_upstream_hosts(OUT_PTR, OUT_LEN) != Status.Ok) return false;
    const hosts = this.hosts.take();
    const parser = this.parser!;
    const n = parser.parse(hosts.ptr, hosts.len);
    if (n < 0) {
      hosts.release();
      state.telemetry.add(state.telemetry.hostErrors, 1);
      return false;
    }
    // Two passes, so a full registry can take newcomers in the same refresh: first the endpoints it already
    // tracks, then, once the departed ones are evicted, the new ones.
    const registry = state.registry;
    registry.beginRefresh();
    let errors = 0;
    for (let i = 0; i < n; i++) {
      if (parser.hostError(i)) {
        errors++;
        continue;
      }
      const slot = registry.lookup(parser.addressHash(i), parser.addressPtr(i), parser.addressLen(i));
      if (slot >= 0) this.applyHost(state, parser, i, registry.see(parser.addressPtr(i), parser.addressLen(i), parser.addressHash(i)), nowMs);
    }
    state.evictUnseen();
    for (let i = 0; i < n; i++) {
      if (parser.hostError(i) || registry.lookup(parser.addressHash(i), parser.addressPtr(i), parser.addressLen(i)) >= 0) continue;
      const slot = registry.see(parser.addressPtr(i), parser.addressLen(i), parser.addressHash(i));
      if (slot >= 0) this.applyHost(state, parser, i, slot, nowMs);
    }
    hosts.release();
    if (errors > 0) state.telemetry.add(state.telemetry.hostErrors, errors);
    this.fetchedMs = nowMs;
    return true;
  }

  /** Health and (when its text changed) metrics of host i of the answer, kept in `slot`. */
  private applyHost(state: PickerState, parser: UpstreamHostsParser, i: i32, slot: i32, nowMs: f64): void {
    const registry = state.registry;
    registry.setHealthy(slot, parser.healthy(i));
    const fp = parser.metricsFingerprint(i);
    if (fp == registry.fingerprint(slot) && registry.updatedMs(slot) > 0) return;
    registry.setFingerprint(slot, fp);
    const len = parser.decodeMetrics(i);
    applyEndpointMetrics(state, slot, parser.scratchPtr, len, parser.metricsTruncated(i), nowMs);
  }

  redisTransport(): RedisTransport | null {
    return new HigressRedisTransport();
  }

  route(state: PickerState, slot: i32): bool {
    const r = state.registry;
    return proxy_set_upstream_override_host(r.addressPtr(slot), r.addressLen(slot)) == Status.Ok;
  }
}
