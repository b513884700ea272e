// Reads the hosts of one cluster from Envoy's admin `GET /clusters?format=json` (envoy source/server/admin/
// clusters_handler.cc ClustersHandler::writeClustersAsJson: an envoy.admin.v3.Clusters message printed by
// MessageUtil::getJsonStringFromMessageOrError, proto field names kept, default values left out):
//   {"cluster_statuses": [{"name": "vllm", "host_statuses": [{"address": {"socket_address": {"address": "10.0.0.7",
//    "port_value": 8000}}, "health_status": {"eds_health_status": "HEALTHY", "failed_active_health_check": true}, ...
// Every host is read with the state Envoy's flags give it (setHealthFlag): Healthy when no flag is set and
// eds_health_status is HEALTHY or absent; Degraded when the only flag says degraded (eds_health_status DEGRADED,
// failed_active_degraded_check); Unhealthy when any failure, exclusion or pending flag is set (failed_active_health_check,
// failed_outlier_check, eds_health_status UNHEALTHY or DRAINING, pending_active_hc, pending_dynamic_removal, ...):
// all of them keep Envoy's own balancer off the host except pending_dynamic_removal (readHealth). Those Envoy also
// leaves out of its host count are marked excluded (excludedAt).
// Addresses are written as Envoy names the host (Address::Ipv4Instance/Ipv6Instance asString: "ip:port",
// "[ipv6]:port"), which is what the override_host policy matches the routing header against. The result lives in
// storage sized at construction; a parse allocates nothing.
import { JsonScanner, JsonToken } from "../json/scanner";
import { MAX_ADDRESS_BYTES, addressHash } from "./endpoint-registry";

const MAX_JSON_DEPTH: i32 = 16;
/** Longest IP text decoded ("[" + IPv6 + "]:65535" must fit MAX_ADDRESS_BYTES). */
const IP_CAP: i32 = 48;

/** A host's state as Envoy's health flags give it (0 is left for "no host"). */
export enum HostState {
  Healthy = 1,
  Degraded = 2,
  Unhealthy = 3,
}

export class AdminClusterHosts {
  readonly capacity: i32;
  /** Hosts of the serving cluster read by the last parse (at most capacity), whatever their health. */
  count: i32 = 0;
  /** Hosts beyond capacity, left out. */
  dropped: i32 = 0;
  private readonly bytes: StaticArray<u8>;
  private readonly lens: StaticArray<i32>;
  private readonly hashes: StaticArray<u64>;
  private readonly states: StaticArray<u8>;
  private readonly excludedFlags: StaticArray<u8>;
  private readonly scanner: JsonScanner = new JsonScanner(MAX_JSON_DEPTH);
  private readonly ip: StaticArray<u8> = new StaticArray<u8>(IP_CAP);
  // The host being read.
  private ipLen: i32 = 0;
  private port: i32 = 0;
  private state: HostState = HostState.Healthy;
  private excluded: bool = false;

  constructor(capacity: i32) {
    const n = max(capacity, 0);
    this.capacity = n;
    this.bytes = new StaticArray<u8>(n * MAX_ADDRESS_BYTES);
    this.lens = new StaticArray<i32>(n);
    this.hashes = new StaticArray<u64>(n);
    this.states = new StaticArray<u8>(n);
    this.excludedFlags = new StaticArray<u8>(n);
  }

  addressPtr(i: i32): usize {
    return changetype<usize>(this.bytes) + <usize>(i * MAX_ADDRESS_BYTES);
  }

  addressLen(i: i32): i32 {
    return unchecked(this.lens[i]);
  }

  addressHashAt(i: i32): u64 {
    return unchecked(this.hashes[i]);
  }

  stateAt(i: i32): HostState {
    return <HostState>unchecked(this.states[i]);
  }

  /** Whether Envoy leaves host i out of its host set's count (upstream_impl.cc excludeBasedOnHealthFlag:
   *  pending_active_hc, excluded_via_immediate_hc_fail, EDS DRAINING); such a host is also Unhealthy here. */
  excludedAt(i: i32): bool {
    return unchecked(this.excludedFlags[i]) != 0;
  }

  /**
   * Reads the admin answer at [ptr, ptr + len) for the cluster named `cluster`. False when it is not such an answer
   * (not JSON, no cluster_statuses array) or names no such cluster: then count is 0 and the caller keeps what it
   * knew. A cluster listed with no host is true with count 0.
   */
  parse(ptr: usize, len: usize, cluster: string): bool {
    this.count = 0;
    this.dropped = 0;
    const sc = this.scanner;
    // Every token takes at least one byte: the budget cannot run out before the input does.
    sc.reset(ptr, len, <i32>min<usize>(len + 16, <usize>i32.MAX_VALUE));
    if (sc.next() != JsonToken.ObjStart) return false;
    let found = false;
    let listed = false;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ObjEnd) break;
      if (t != JsonToken.String) return this.fail();
      const isList = sc.keyIs("cluster_statuses");
      if (sc.next() >= JsonToken.End) return this.fail();
      if (isList && sc.token == JsonToken.ArrStart) {
        listed = true;
        while (true) {
          const e = sc.next();
          if (e == JsonToken.ArrEnd) break;
          if (e == JsonToken.ObjStart) {
            const r = this.readCluster(cluster);
            if (r < 0) return this.fail();
            if (r == 1) found = true;
          } else if (sc.skipValue() >= JsonToken.End) {
            return this.fail();
          }
        }
      } else if (sc.skipValue() >= JsonToken.End) {
        return this.fail();
      }
    }
    if (sc.next() != JsonToken.End || !listed || !found) return this.fail();
    return true;
  }

  private fail(): bool {
    this.count = 0;
    this.dropped = 0;
    return false;
  }

  /** One cluster object (ObjStart just read): 1 when it is `cluster` (its hosts kept), 0 when another, -1 on error. */
  private readCluster(cluster: string): i32 {
    const sc = this.scanner;
    const mark = this.count;
    const droppedMark = this.dropped;
    let named = false;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ObjEnd) break;
      if (t != JsonToken.String) return -1;
      const isName = sc.keyIs("name");
      const isHosts = sc.keyIs("host_statuses");
      if (sc.next() >= JsonToken.End) return -1;
      if (isName) {
        named = sc.stringEquals(cluster);
      } else if (isHosts && sc.token == JsonToken.ArrStart) {
        while (true) {
          const e = sc.next();
          if (e == JsonToken.ArrEnd) break;
          if (e == JsonToken.ObjStart) {
            if (!this.readHost()) return -1;
          } else if (sc.skipValue() >= JsonToken.End) {
            return -1;
          }
        }
        continue;
      }
      if (sc.skipValue() >= JsonToken.End) return -1;
    }
    // Hosts may come before the name (any key order is valid JSON): those of another cluster are dropped at its end.
    if (!named) {
      this.count = mark;
      this.dropped = droppedMark;
      return 0;
    }
    return 1;
  }

  /** One host object (ObjStart just read); keeps it when its address is an IP address and port. False on error. */
  private readHost(): bool {
    const sc = this.scanner;
    this.ipLen = 0;
    this.port = 0;
    this.state = HostState.Healthy;
    this.excluded = false;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ObjEnd) break;
      if (t != JsonToken.String) return false;
      const isAddress = sc.keyIs("address");
      const isHealth = sc.keyIs("health_status");
      if (sc.next() >= JsonToken.End) return false;
      if (isAddress && sc.token == JsonToken.ObjStart) {
        if (!this.readAddress()) return false;
      } else if (isHealth && sc.token == JsonToken.ObjStart) {
        if (!this.readHealth()) return false;
      } else if (sc.skipValue() >= JsonToken.End) {
        return false;
      }
    }
    if (this.ipLen > 0 && this.port > 0) this.keep();
    return true;
  }

  /** {"socket_address": {"address": "...", "port_value": N}}; a pipe or internal address leaves the host unusable. */
  private readAddress(): bool {
    const sc = this.scanner;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ObjEnd) return true;
      if (t != JsonToken.String) return false;
      const isSocket = sc.keyIs("socket_address");
      if (sc.next() >= JsonToken.End) return false;
      if (!isSocket || sc.token != JsonToken.ObjStart) {
        if (sc.skipValue() >= JsonToken.End) return false;
        continue;
      }
      while (true) {
        const u = sc.next();
        if (u == JsonToken.ObjEnd) break;
        if (u != JsonToken.String) return false;
        const isIp = sc.keyIs("address");
        const isPort = sc.keyIs("port_value");
        if (sc.next() >= JsonToken.End) return false;
        if (isIp && sc.token == JsonToken.String) {
          const n = sc.decodeStringTo(changetype<usize>(this.ip), IP_CAP);
          // A longer string is no IP address (and was cut at IP_CAP).
          this.ipLen = sc.end - sc.start <= <usize>IP_CAP && isPlainIp(changetype<usize>(this.ip), n) ? n : 0;
        } else if (isPort && sc.token == JsonToken.Number) {
          const p = sc.numberValue();
          this.port = p >= 1 && p <= 65535 && Math.floor(p) == p ? <i32>p : 0;
        } else if (sc.skipValue() >= JsonToken.End) {
          return false;
        }
      }
    }
    return true; // unreachable: every iteration costs a scanner step
  }

  private readHealth(): bool {
    const sc = this.scanner;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ObjEnd) return true;
      if (t != JsonToken.String) return false;
      const isEds = sc.keyIs("eds_health_status");
      const isDegradedCheck = sc.keyIs("failed_active_degraded_check");
      const isExclusion = sc.keyIs("pending_active_hc") || sc.keyIs("excluded_via_immediate_hc_fail");
      if (sc.next() >= JsonToken.End) return false;
      if (isEds && sc.token == JsonToken.String) {
        if (sc.stringEquals("DEGRADED")) this.worsen(HostState.Degraded);
        else if (!(sc.stringEquals("HEALTHY") || sc.stringEquals("UNKNOWN"))) this.worsen(HostState.Unhealthy);
        // EDS DRAINING: Envoy sets EDS_STATUS_DRAINING, which the admin prints as eds_health_status DRAINING
        // (clusters_handler.cc setHealthFlag); coarseHealth makes it unhealthy and excludeBasedOnHealthFlag leaves it
        // out of the host count (upstream_impl.cc HostImplBase::setEdsHealthFlag, runtime guard
        // exclude_host_in_eds_status_draining, on by default). Envoy before that printed it UNHEALTHY and counted it.
        if (sc.stringEquals("DRAINING")) this.excluded = true;
      } else if (sc.token == JsonToken.True) {
        // failed_active_degraded_check: Envoy uses the host only when the healthy ones are not enough. Envoy's
        // balancer is kept off a host by failed_active_health_check, failed_outlier_check (upstream_impl.h
        // HostImplBase::coarseHealth), pending_active_hc and excluded_via_immediate_hc_fail (upstream_impl.cc
        // excludeBasedOnHealthFlag); active_hc_timeout comes only with failed_active_health_check (health_checker_
        // impl.cc setUnhealthy). pending_dynamic_removal alone is not among them: Envoy keeps a host that left
        // discovery but passes its active checks healthy and balanced to (upstream_impl.cc BaseDynamicClusterImpl::
        // updateDynamicHostList keeps it, flagged, unless ignore_health_on_host_removal; eds.cc
        // EdsClusterImpl::reloadHealthyHostsHelper drops it at its first failed check). It is read as
        // Unhealthy here by choice, and stays so: the flag means EDS no longer lists the pod (Kubernetes takes a
        // terminating pod out of the ready endpoints), so it is on its way out, its prefix cache goes with it, and
        // a long generation routed to it may be cut at termination; naming it would pull sessions onto it that must
        // move again. The host stays a member (its entries kept) should EDS list it again, and requests the plugin
        // leaves to Envoy's balancer still reach it as Envoy decides.
        this.worsen(isDegradedCheck ? HostState.Degraded : HostState.Unhealthy);
        if (isExclusion) this.excluded = true;
      } else if (sc.skipValue() >= JsonToken.End) {
        return false;
      }
    }
    return true; // unreachable
  }

  /** The host's state is at least this bad. */
  private worsen(state: HostState): void {
    if (state > this.state) this.state = state;
  }

  private keep(): void {
    const ipPtr = changetype<usize>(this.ip);
    const v6 = hasColon(ipPtr, this.ipLen);
    const digits = decimalDigits(this.port);
    const total = this.ipLen + (v6 ? 2 : 0) + 1 + digits;
    if (total > MAX_ADDRESS_BYTES) return;
    if (this.count >= this.capacity) {
      this.dropped++;
      return;
    }
    const dst = this.addressPtr(this.count);
    let p = dst;
    if (v6) store<u8>(p++, 0x5b);
    memory.copy(p, ipPtr, <usize>this.ipLen);
    p += <usize>this.ipLen;
    if (v6) store<u8>(p++, 0x5d);
    store<u8>(p++, 0x3a);
    let port = this.port;
    for (let i = digits - 1; i >= 0; i--) {
      store<u8>(p + <usize>i, <u8>(0x30 + port % 10));
      port /= 10;
    }
    const hash = addressHash(dst, <usize>total);
    // The same address twice (in two priorities) is one endpoint.
    for (let i = 0; i < this.count; i++) {
      if (unchecked(this.hashes[i]) == hash && unchecked(this.lens[i]) == total && memory.compare(this.addressPtr(i), dst, <usize>total) == 0) return;
    }
    unchecked((this.lens[this.count] = total));
    unchecked((this.hashes[this.count] = hash));
    unchecked((this.states[this.count] = <u8>this.state));
    unchecked((this.excludedFlags[this.count] = this.excluded ? 1 : 0));
    this.count++;
  }
}

function decimalDigits(n: i32): i32 {
  let d = 1;
  while (n >= 10) {
    n /= 10;
    d++;
  }
  return d;
}

function hasColon(p: usize, n: i32): bool {
  for (let i = 0; i < n; i++) if (load<u8>(p + <usize>i) == 0x3a) return true;
  return false;
}

/** Digits, dots, hex letters and colons only: an IPv4 or IPv6 address as inet_ntop writes it. */
function isPlainIp(p: usize, n: i32): bool {
  if (n <= 0) return false;
  for (let i = 0; i < n; i++) {
    const c = <u32>load<u8>(p + <usize>i);
    const ok = (c >= 0x30 && c <= 0x3a) || c == 0x2e || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
    if (!ok) return false;
  }
  return true;
}
