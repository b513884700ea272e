// Stock Envoy build with `discovery`: the endpoints are the hosts Envoy itself keeps for discovery.servingCluster
// (EDS, or STRICT_DNS on a headless Service), read from Envoy's admin `GET /clusters?format=json` through
// discovery.cluster, a cluster whose endpoint is the admin listener (admin-clusters.ts reads the answer). One worker
// polls (the holder of the lease, polling-lease.ts) and publishes the list in shared data; every worker reads it at
// its tick. The holder keeps each member in a stable slot (member-slots.ts), starting from the list as published, so
// a holder that takes over continues it. A failed poll (no answer, a status other than 2xx, a body over
// discovery.maxBodyBytes, an answer that does not list the serving cluster) is counted and changes nothing: the last
// list published stays. An answer that came but cannot be read (over maxBodyBytes, not JSON, not a /clusters answer
// or without the serving cluster: a wrong discovery.path or servingCluster, or an admin that answers text) is also
// counted apart and logged once per run of such answers, since waiting does not mend it.
import { dispatchHttpCall, getBufferBytes, getSharedData, httpCallResponseStatus, isOk, log, Returned, setSharedData, SharedValue, Utf8 } from "../abi/host";
import { HeaderMapWriter } from "../abi/header-map";
import { BufferType, LogLevel, Status } from "../abi/types";
import { AdminClusterHosts } from "../endpoints/admin-clusters";
import { hashNameString } from "../endpoints/name-hash";
import { PickerState } from "../core/picker-state";
import { PickerConfig } from "../config/picker-config";
import { PollingLease } from "./polling-lease";
import { leaseMsOf } from "./polled-endpoint";
import { keyField } from "./key-field";
import { MEMBERS_VERSION, MemberSlots, memberListBytes } from "./member-slots";

/** The shared-data name of the list, per way of discovering it (configurations that discover alike share it). */
export function discoveryKey(config: PickerConfig): string {
  const d = config.discovery;
  const how = keyField(d.cluster) + keyField(d.path) + keyField(d.servingCluster) + keyField(d.intervalMs.toString()) +
    keyField(d.timeoutMs.toString()) + keyField(d.maxBodyBytes.toString()) + keyField(config.maxEndpoints.toString()) +
    keyField(config.pollIntervalMs.toString());
  return "endpoint_picker/discovery/v" + MEMBERS_VERSION.toString() + "/" + hashNameString(how).toString(16);
}

export class EndpointDiscovery {
  private readonly hosts: AdminClusterHosts;
  private readonly lease: PollingLease;
  private readonly membersKey: Utf8;
  private readonly cluster: Utf8;
  private readonly headers: HeaderMapWriter = new HeaderMapWriter();
  private readonly response: Returned = new Returned();
  private readonly read: SharedValue = new SharedValue();
  /** Polls every this many ticks (discovery.intervalMs in whole metrics.pollIntervalMs, at least one). */
  private readonly everyTicks: i32;
  private ticks: i32 = 0;
  private pendingCall: u32 = 0;
  /** The last answer could not be read (a warning was logged for it). */
  private unreadable: bool = false;
  /** The list being made by the holder (from the one published), and its bytes. */
  private readonly next: MemberSlots;
  private readonly out: StaticArray<u8>;
  /** The list as last read (its bytes; lastLen -1: never read) and its members. */
  private readonly last: StaticArray<u8>;
  private lastLen: i32 = -1;
  readonly members: MemberSlots;
  /** The start of every discovered endpoint's shared-data name: this list's, so two lists never share a slot's. */
  readonly slotName: string;

  constructor(
    private readonly state: PickerState,
    private readonly token: u64,
  ) {
    const config = state.config;
    const n = config.maxEndpoints;
    // Twice the slots, so that members listed after as many joiners keep theirs.
    this.hosts = new AdminClusterHosts(2 * n);
    const key = discoveryKey(config);
    this.membersKey = new Utf8(key + "/members");
    this.slotName = hashNameString(key).toString(16);
    this.lease = new PollingLease(new Utf8(key + "/poller"), leaseMsOf(config), token);
    this.cluster = new Utf8(config.discovery.cluster);
    const interval = max<i32>(config.pollIntervalMs, 1);
    this.everyTicks = max<i32>(1, (config.discovery.intervalMs + interval - 1) / interval);
    this.next = new MemberSlots(n, 2 * n);
    this.members = new MemberSlots(n);
    const bytes = memberListBytes(n);
    this.out = new StaticArray<u8>(bytes);
    this.last = new StaticArray<u8>(bytes);
    // The first tick polls.
    this.ticks = this.everyTicks - 1;
  }

  /** A list was read: the endpoints are known (possibly none). */
  get known(): bool {
    return this.lastLen >= 0;
  }

  onTick(nowMs: f64): void {
    if (this.token == 0) return;
    // The lease is renewed every tick, so that it stays with one worker between polls.
    if (!this.lease.take(nowMs)) return;
    this.ticks++;
    if (this.ticks < this.everyTicks || this.pendingCall != 0) return;
    this.ticks = 0;
    const d = this.state.config.discovery;
    const h = this.headers.clear().add(":method", "GET").add(":path", d.path).add(":authority", d.cluster).add("accept", "application/json");
    const call = dispatchHttpCall(this.cluster, h, null, <u32>d.timeoutMs);
    if (isOk(call)) this.pendingCall = <u32>call + 1;
    else this.failed();
  }

  /** True when the call was the discovery poll's. */
  onResponse(callId: u32, numHeaders: u32, bodySize: u32): bool {
    if (this.pendingCall == 0 || this.pendingCall != callId + 1) return false;
    this.pendingCall = 0;
    const status = numHeaders == 0 ? 0 : httpCallResponseStatus(this.response);
    const d = this.state.config.discovery;
    if (status < 200 || status >= 300 || bodySize == 0) {
      this.failed();
      return true;
    }
    if (bodySize > <u32>d.maxBodyBytes) {
      if (this.refusedFirstOfRun()) this.warnUnreadable("is over discovery.maxBodyBytes (" + bodySize.toString() + " bytes)");
      return true;
    }
    const body = this.response;
    if (getBufferBytes(BufferType.HttpCallResponseBody, 0, bodySize, body) != Status.Ok) {
      this.failed();
      return true;
    }
    const hosts = this.hosts;
    const ok = body.len == <usize>bodySize && hosts.parse(body.ptr, body.len, d.servingCluster);
    body.release();
    if (!ok) {
      if (this.refusedFirstOfRun()) this.warnUnreadable("is not an admin /clusters JSON answer listing cluster " + d.servingCluster);
      return true;
    }
    this.unreadable = false;
    this.publish();
    return true;
  }

  private failed(): void {
    this.state.telemetry.add(this.state.telemetry.discoveryFailures, 1);
  }

  /** A failed poll whose answer came but cannot be read: counted apart. True at the first of a run, the one to log
   *  (the caller builds the warning's text only then). */
  private refusedFirstOfRun(): bool {
    this.failed();
    this.state.telemetry.add(this.state.telemetry.discoveryUnreadableAnswers, 1);
    if (this.unreadable) return false;
    this.unreadable = true;
    return true;
  }

  private warnUnreadable(why: string): void {
    const d = this.state.config.discovery;
    log(LogLevel.Warn, "endpoint-picker: discovery: the answer of cluster " + d.cluster + " to GET " + d.path + " " + why + "; keeping the last list");
  }

  /** Assigns the hosts read to slots, from the list as published, and publishes the result unless another worker
   *  published in between (compare-and-swap: the next poll starts again from its list). */
  private publish(): void {
    const next = this.next;
    const v = this.read;
    let cas: u32 = 0;
    if (getSharedData(this.membersKey, v) == Status.Ok) {
      cas = v.cas;
      if (!next.decode(v.ptr, v.len)) next.clear();
      v.release();
    } else {
      next.clear();
    }
    const dropped = next.assign(this.hosts) + this.hosts.dropped;
    if (dropped > 0) this.state.telemetry.add(this.state.telemetry.discoveryDroppedEndpoints, dropped);
    const out = changetype<usize>(this.out);
    const len = next.encode(out);
    setSharedData(this.membersKey, out, <usize>len, cas);
  }

  /** Reads the published list; true when it differs from the one last read (members then holds it). */
  readMembers(): bool {
    const v = this.read;
    if (getSharedData(this.membersKey, v) != Status.Ok) return false;
    const len = <i32>v.len;
    const last = changetype<usize>(this.last);
    const same = len == this.lastLen && memory.compare(v.ptr, last, <usize>len) == 0;
    const fits = !same && len <= this.last.length && this.members.decode(v.ptr, v.len);
    if (fits) memory.copy(last, v.ptr, <usize>len);
    v.release();
    if (!fits) return false;
    this.lastLen = len;
    return true;
  }
}
