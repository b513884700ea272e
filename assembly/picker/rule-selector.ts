// Chooses the configuration of a request from Higress's `_rules_`, as Higress's wasm-go RuleMatcher does: rules
// in order, first match wins, each rule matched by its one kind (route, route and service, domain, service,
// route prefix). Patterns are encoded once; a request costs one host read per name the rules need (two when the
// path asked first has none, name-property.ts) and no allocation.
import { getHeaderValueRaw, Returned, Utf8 } from "../abi/host";
import { MapType } from "../abi/types";
import { ConfigRule, RuleKind } from "../config/config-rule";
import { NameProperty } from "./name-property";

const AUTHORITY = new Utf8(":authority");

/** How a `_match_domain_` entry compares with the host. */
enum DomainMatch {
  Exact = 0,
  /** `*.example.com`: the host ends with `.example.com`. */
  Suffix = 1,
  /** `www.*`: the host starts with `www.`. */
  Prefix = 2,
}

function bytesEqual(a: usize, aLen: usize, b: ArrayBuffer): bool {
  return aLen == <usize>b.byteLength && memory.compare(a, changetype<usize>(b), aLen) == 0;
}

function startsWith(a: usize, aLen: usize, b: ArrayBuffer): bool {
  const n = <usize>b.byteLength;
  return aLen >= n && memory.compare(a, changetype<usize>(b), n) == 0;
}

function endsWith(a: usize, aLen: usize, b: ArrayBuffer): bool {
  const n = <usize>b.byteLength;
  return aLen >= n && memory.compare(a + aLen - n, changetype<usize>(b), n) == 0;
}

/** Length of the host without its port (Envoy's rule: the last ':' not inside an IPv6 literal's brackets). */
export function hostLengthWithoutPort(ptr: usize, len: usize): usize {
  let colon: isize = -1;
  let bracket: isize = -1;
  for (let i: usize = 0; i < len; i++) {
    const c = load<u8>(ptr + i);
    if (c == 0x3a) colon = <isize>i;
    else if (c == 0x5d) bracket = <isize>i;
  }
  if (colon >= 0 && bracket < colon) return <usize>colon;
  return len;
}

class DomainPattern {
  readonly kind: i32;
  readonly text: ArrayBuffer;
  constructor(pattern: string) {
    // Higress's HostMatcher: a leading '*' makes a suffix match, else a trailing '*' a prefix match.
    if (pattern.startsWith("*")) {
      this.kind = DomainMatch.Suffix;
      this.text = String.UTF8.encode(pattern.substring(1));
    } else if (pattern.endsWith("*")) {
      this.kind = DomainMatch.Prefix;
      this.text = String.UTF8.encode(pattern.substring(0, pattern.length - 1));
    } else {
      this.kind = DomainMatch.Exact;
      this.text = String.UTF8.encode(pattern);
    }
  }

  matches(host: usize, len: usize): bool {
    if (this.kind == DomainMatch.Suffix) return endsWith(host, len, this.text);
    if (this.kind == DomainMatch.Prefix) return startsWith(host, len, this.text);
    return bytesEqual(host, len, this.text);
  }
}

class ServicePattern {
  /** The whole entry (`fqdn` or `fqdn:port`). */
  readonly whole: ArrayBuffer;
  /** Split at the last ':' when there is one. */
  fqdn: ArrayBuffer | null = null;
  port: ArrayBuffer | null = null;
  constructor(service: string) {
    this.whole = String.UTF8.encode(service);
    const colon = service.lastIndexOf(":");
    if (colon >= 0) {
      this.fqdn = String.UTF8.encode(service.substring(0, colon));
      this.port = String.UTF8.encode(service.substring(colon + 1));
    }
  }
}

/** A `cluster_name` split as Envoy/Istio name service clusters: `outbound|<port>|<subset>|<fqdn>`. */
class ClusterName {
  ptr: usize = 0;
  len: usize = 0;
  /** Exactly four '|'-separated parts. */
  isService: bool = false;
  portPtr: usize = 0;
  portLen: usize = 0;
  fqdnPtr: usize = 0;
  fqdnLen: usize = 0;

  set(ptr: usize, len: usize): void {
    this.ptr = ptr;
    this.len = len;
    let bars = 0;
    let first: usize = 0;
    let second: usize = 0;
    let third: usize = 0;
    for (let i: usize = 0; i < len; i++) {
      if (load<u8>(ptr + i) != 0x7c) continue;
      bars++;
      if (bars == 1) first = i;
      else if (bars == 2) second = i;
      else if (bars == 3) third = i;
    }
    this.isService = bars == 3;
    if (!this.isService) return;
    this.portPtr = ptr + first + 1;
    this.portLen = second - first - 1;
    this.fqdnPtr = ptr + third + 1;
    this.fqdnLen = len - third - 1;
  }

  /** Higress's serviceMatch (`fqdn:port` or `fqdn`); a cluster not named that way must equal the entry. */
  matches(s: ServicePattern): bool {
    if (!this.isService) return bytesEqual(this.ptr, this.len, s.whole);
    const fqdn = s.fqdn;
    const port = s.port;
    if (fqdn !== null && port !== null) {
      if (bytesEqual(this.fqdnPtr, this.fqdnLen, fqdn) && bytesEqual(this.portPtr, this.portLen, port)) return true;
    }
    return bytesEqual(this.fqdnPtr, this.fqdnLen, s.whole);
  }
}

class RulePatterns {
  readonly kind: i32;
  readonly routes: Array<ArrayBuffer> = [];
  readonly routePrefixes: Array<ArrayBuffer> = [];
  readonly domains: Array<DomainPattern> = [];
  readonly services: Array<ServicePattern> = [];

  constructor(rule: ConfigRule) {
    this.kind = rule.kind;
    for (let i = 0; i < rule.routes.length; i++) this.routes.push(String.UTF8.encode(rule.routes[i]));
    for (let i = 0; i < rule.routePrefixes.length; i++) this.routePrefixes.push(String.UTF8.encode(rule.routePrefixes[i]));
    for (let i = 0; i < rule.domains.length; i++) this.domains.push(new DomainPattern(rule.domains[i]));
    for (let i = 0; i < rule.services.length; i++) this.services.push(new ServicePattern(rule.services[i]));
  }
}

export class RuleSelector {
  private readonly rules: Array<RulePatterns> = [];
  private readonly cluster: ClusterName = new ClusterName();
  // The request's route name, `:authority` and cluster name while select() reads them.
  private readonly routeName: Returned = new Returned();
  private readonly authority: Returned = new Returned();
  private readonly clusterName: Returned = new Returned();
  private readonly routeNameProperty: NameProperty = new NameProperty("route_name");
  private readonly clusterNameProperty: NameProperty = new NameProperty("cluster_name");
  private readonly readsRoute: bool;
  private readonly readsAuthority: bool;
  private readonly readsCluster: bool;

  constructor(rules: Array<ConfigRule>) {
    let route = false;
    let authority = false;
    let cluster = false;
    for (let i = 0; i < rules.length; i++) {
      const p = new RulePatterns(rules[i]);
      this.rules.push(p);
      const k = p.kind;
      if (k == RuleKind.Route || k == RuleKind.RouteAndService || k == RuleKind.RoutePrefix) route = true;
      if (k == RuleKind.RouteAndService || k == RuleKind.Service) cluster = true;
      if (k == RuleKind.Domain) authority = true;
    }
    this.readsRoute = route;
    this.readsAuthority = authority;
    this.readsCluster = cluster;
  }

  /** The index of the first rule the current request matches, or -1. Reads only what the rules need. */
  select(): i32 {
    const route = this.routeName;
    const host = this.authority;
    const cluster = this.clusterName;
    if (this.readsRoute) this.routeNameProperty.read(route);
    if (this.readsAuthority) getHeaderValueRaw(MapType.HttpRequestHeaders, AUTHORITY, host);
    if (this.readsCluster) this.clusterNameProperty.read(cluster);
    const index = this.match(route.ptr, route.len, host.ptr, host.len, cluster.ptr, cluster.len);
    route.release();
    host.release();
    cluster.release();
    return index;
  }

  /** The first rule matching a request with these route name, `:authority` and cluster name bytes, or -1. */
  match(routePtr: usize, routeLen: usize, hostPtr: usize, hostLen: usize, clusterPtr: usize, clusterLen: usize): i32 {
    const bareHostLen = hostLengthWithoutPort(hostPtr, hostLen);
    this.cluster.set(clusterPtr, clusterLen);
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i];
      const k = r.kind;
      let hit = false;
      if (k == RuleKind.Route) hit = anyEqual(r.routes, routePtr, routeLen);
      else if (k == RuleKind.RouteAndService) hit = anyEqual(r.routes, routePtr, routeLen) && this.serviceMatches(r);
      else if (k == RuleKind.Domain) hit = anyDomain(r.domains, hostPtr, bareHostLen);
      else if (k == RuleKind.Service) hit = this.serviceMatches(r);
      else if (k == RuleKind.RoutePrefix) hit = anyPrefix(r.routePrefixes, routePtr, routeLen);
      if (hit) return i;
    }
    return -1;
  }

  private serviceMatches(r: RulePatterns): bool {
    if (this.cluster.len == 0) return false;
    for (let i = 0; i < r.services.length; i++) if (this.cluster.matches(r.services[i])) return true;
    return false;
  }
}

function anyEqual(list: Array<ArrayBuffer>, ptr: usize, len: usize): bool {
  if (len == 0) return false;
  for (let i = 0; i < list.length; i++) if (bytesEqual(ptr, len, list[i])) return true;
  return false;
}

function anyPrefix(list: Array<ArrayBuffer>, ptr: usize, len: usize): bool {
  if (len == 0) return false;
  for (let i = 0; i < list.length; i++) if (startsWith(ptr, len, list[i])) return true;
  return false;
}

function anyDomain(list: Array<DomainPattern>, ptr: usize, len: usize): bool {
  for (let i = 0; i < list.length; i++) if (list[i].matches(ptr, len)) return true;
  return false;
}
