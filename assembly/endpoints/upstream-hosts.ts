// Reads the answer of Higress's proxy_get_upstream_hosts: a serialized header map of
// ["ip:port", {"health_status":"Healthy","metrics":"<Prometheus text, JSON-escaped>"}] pairs.
// One host's bad metadata marks that host only; a malformed map fails the whole answer. No allocation per call:
// per-host results live in arrays sized at construction and point into the caller's input buffer.
import { HeaderMapReader } from "../abi/header-map";
import { JsonScanner, JsonToken } from "../json/scanner";
import { decodeJsonString, decodedBytes, stoppedAtCap } from "../json/string-decoder";
import { xxh64 } from "../prefix/xxh64";
import { equalsExactly } from "../text/ascii";
import { addressHash } from "./endpoint-registry";

/** Envoy health status names, as Higress reports them. */
export enum HostHealth {
  Unknown = 0,
  Healthy = 1,
  Unhealthy = 2,
  Degraded = 3,
  Timeout = 4,
  Draining = 5,
}

/** Higress cuts the health-check body it keeps at this many bytes. */
export const GATEWAY_METRICS_CUT: i32 = 65536;
/** Default scratch size: the gateway's cut plus room for U+FFFD replacing a cut multi-byte character. */
export const DEFAULT_METRICS_CAP: i32 = GATEWAY_METRICS_CUT + 64;

// Tokens one host's JSON may cost; the expected object takes 6, the rest is room for fields added later.
const STEPS_PER_HOST: i32 = 256;
const MAX_JSON_DEPTH: i32 = 16;
// Longest health status name decoded (Unhealthy = 9 bytes).
const HEALTH_NAME_CAP: i32 = 16;

// Only "Healthy" hosts are candidates, exactly as Higress's own ai-load-balancer decides (alibaba/higress
// plugins/wasm-go/extensions/ai-load-balancer: endpoint_metrics, prefix_cache and global_least_request
// lb_policy.go keep a host iff gjson's unescaped health_status == "Healthy", case-sensitive). Degraded,
// unhealthy, timed-out, draining and unknown hosts are left to the gateway's own load balancer.
function isUsable(health: i32): bool {
  return health == HostHealth.Healthy;
}

function healthFromName(p: usize, n: i32): i32 {
  if (equalsExactly(p, <usize>n, "Healthy")) return HostHealth.Healthy;
  if (equalsExactly(p, <usize>n, "Unhealthy")) return HostHealth.Unhealthy;
  if (equalsExactly(p, <usize>n, "Degraded")) return HostHealth.Degraded;
  if (equalsExactly(p, <usize>n, "Timeout")) return HostHealth.Timeout;
  if (equalsExactly(p, <usize>n, "Draining")) return HostHealth.Draining;
  return HostHealth.Unknown;
}

// An address is printable ASCII without blanks ("10.0.0.1:8000", "[fd00::1]:8000").
function isPlausibleAddress(p: usize, n: usize): bool {
  if (n == 0) return false;
  for (let i: usize = 0; i < n; i++) {
    const c = <u32>load<u8>(p + i);
    if (c - 0x21 > 0x7e - 0x21) return false;
  }
  return true;
}

export class UpstreamHostsParser {
  readonly maxHosts: i32;
  readonly metricsCap: i32;
  /** decodeMetrics() writes here (metricsCap bytes, owned by the parser). */
  readonly scratchPtr: usize;
  /** Hosts read by the last parse() (those with hostError included). */
  count: i32 = 0;
  /** Hosts of the last parse() beyond maxHosts, not read. */
  overflow: i32 = 0;
  /** Hosts of the last parse() with hostError set. */
  errors: i32 = 0;

  private readonly scratch: StaticArray<u8>;
  private readonly healthName: StaticArray<u8> = new StaticArray<u8>(HEALTH_NAME_CAP);
  private readonly reader: HeaderMapReader = new HeaderMapReader();
  private readonly scanner: JsonScanner = new JsonScanner(MAX_JSON_DEPTH);

  private readonly addressPtrs: StaticArray<usize>;
  private readonly addressLens: StaticArray<i32>;
  private readonly addressHashes: StaticArray<u64>;
  private readonly healths: StaticArray<i32>;
  private readonly hostErrors: StaticArray<bool>;
  private readonly metricsStarts: StaticArray<usize>;
  private readonly metricsEnds: StaticArray<usize>;
  private readonly metricsPresent: StaticArray<bool>;
  private readonly fingerprints: StaticArray<u64>;
  private readonly truncatedFlags: StaticArray<bool>;

  // Duplicate detection: open addressing over host indexes (entry = index + 1), valid where stamp == parseStamp.
  private readonly dupTable: StaticArray<i32>;
  private readonly dupStamps: StaticArray<u32>;
  private readonly dupMask: i32;
  private parseStamp: u32 = 0;

  constructor(maxHosts: i32, metricsCap: i32 = DEFAULT_METRICS_CAP) {
    const n = max(maxHosts, 0);
    this.maxHosts = n;
    const cap = max(metricsCap, 0);
    this.metricsCap = cap;
    const scratch = new StaticArray<u8>(cap);
    this.scratch = scratch;
    this.scratchPtr = changetype<usize>(scratch);
    this.addressPtrs = new StaticArray<usize>(n);
    this.addressLens = new StaticArray<i32>(n);
    this.addressHashes = new StaticArray<u64>(n);
    this.healths = new StaticArray<i32>(n);
    this.hostErrors = new StaticArray<bool>(n);
    this.metricsStarts = new StaticArray<usize>(n);
    this.metricsEnds = new StaticArray<usize>(n);
    this.metricsPresent = new StaticArray<bool>(n);
    this.fingerprints = new StaticArray<u64>(n);
    this.truncatedFlags = new StaticArray<bool>(n);
    let size = 8;
    while (size < n * 2) size <<= 1;
    this.dupTable = new StaticArray<i32>(size);
    this.dupStamps = new StaticArray<u32>(size);
    this.dupMask = size - 1;
  }

  /**
   * Reads the serialized map at [ptr, ptr + len). Returns the number of hosts read (at most maxHosts), or -1 when
   * the map itself is malformed (then count is 0). Results point into the input and stay valid while it lives.
   */
  parse(ptr: usize, len: usize): i32 {
    this.count = 0;
    this.overflow = 0;
    this.errors = 0;
    const reader = this.reader;
    if (len != 0 && ptr == 0) return -1;
    if (!reader.reset(ptr, len)) return -1;
    this.nextStamp();
    let n = 0;
    let overflow = 0;
    // reader.count <= len / 8, so this loop is bounded by the input.
    while (reader.next()) {
      if (n >= this.maxHosts) {
        overflow++;
        continue;
      }
      this.readHost(n, reader.keyPtr, reader.keyLen, reader.valuePtr, reader.valueLen);
      n++;
    }
    if (n + overflow != reader.count) return -1; // a pair ran past the end
    this.count = n;
    this.overflow = overflow;
    return n;
  }

  addressPtr(i: i32): usize {
    return this.valid(i) ? unchecked(this.addressPtrs[i]) : 0;
  }

  addressLen(i: i32): i32 {
    return this.valid(i) ? unchecked(this.addressLens[i]) : 0;
  }

  /** addressHash() of the address bytes (the registry's key). */
  addressHash(i: i32): u64 {
    return this.valid(i) ? unchecked(this.addressHashes[i]) : 0;
  }

  /** The host's HostHealth. */
  health(i: i32): i32 {
    return this.valid(i) ? unchecked(this.healths[i]) : HostHealth.Unknown;
  }

  /** "Healthy" (as Higress's ai-load-balancer requires), and its metadata was readable. */
  healthy(i: i32): bool {
    return this.valid(i) && !unchecked(this.hostErrors[i]) && isUsable(unchecked(this.healths[i]));
  }

  /** The host's metadata was unusable (bad address, bad JSON, duplicate address): callers skip it. */
  hostError(i: i32): bool {
    return !this.valid(i) || unchecked(this.hostErrors[i]);
  }

  /** The host's JSON had a "metrics" string (possibly empty). */
  hasMetrics(i: i32): bool {
    return this.valid(i) && !unchecked(this.hostErrors[i]) && unchecked(this.metricsPresent[i]);
  }

  /** The raw, still escaped, metrics string content. */
  metricsRawPtr(i: i32): usize {
    return this.hasMetrics(i) ? unchecked(this.metricsStarts[i]) : 0;
  }

  metricsRawLen(i: i32): i32 {
    return this.hasMetrics(i) ? <i32>(unchecked(this.metricsEnds[i]) - unchecked(this.metricsStarts[i])) : 0;
  }

  /** XXH64 of the raw metrics string bytes: equal text gives an equal fingerprint without unescaping. */
  metricsFingerprint(i: i32): u64 {
    return this.valid(i) ? unchecked(this.fingerprints[i]) : 0;
  }

  /** Unescapes host i's metrics into scratchPtr and returns the byte length (0 without metrics). */
  decodeMetrics(i: i32): i32 {
    if (!this.hasMetrics(i)) return 0;
    const r = decodeJsonString(
      unchecked(this.metricsStarts[i]),
      unchecked(this.metricsEnds[i]),
      this.scratchPtr,
      this.metricsCap,
      0,
    );
    const n = decodedBytes(r);
    // The gateway may have cut a multi-byte character, which then decodes one or two bytes shorter or longer.
    unchecked((this.truncatedFlags[i] = stoppedAtCap(r) || n >= GATEWAY_METRICS_CUT - 3));
    return n;
  }

  /**
   * After decodeMetrics(i): the text is (probably) cut, by the gateway or by metricsCap, so its last line may be
   * partial. A complete page of exactly that size is misread as cut, which only drops a last line without '\n'.
   */
  metricsTruncated(i: i32): bool {
    return this.valid(i) && unchecked(this.truncatedFlags[i]);
  }

  // @ts-ignore: decorator
  @inline
  private valid(i: i32): bool {
    return <u32>i < <u32>this.count;
  }

  private nextStamp(): void {
    this.parseStamp++;
    if (this.parseStamp == 0) {
      const stamps = this.dupStamps;
      for (let b = 0; b < stamps.length; b++) unchecked((stamps[b] = 0));
      this.parseStamp = 1;
    }
  }

  // Records host i's address; false if an earlier host has the same address.
  private claimAddress(i: i32, p: usize, n: usize, hash: u64): bool {
    const mask = this.dupMask;
    let b = <i32>(hash ^ (hash >> 29)) & mask;
    // At most maxHosts entries in a table of at least 2 * maxHosts buckets: a free bucket ends every probe.
    while (unchecked(this.dupStamps[b]) == this.parseStamp) {
      const other = unchecked(this.dupTable[b]) - 1;
      if (
        unchecked(this.addressHashes[other]) == hash &&
        <usize>unchecked(this.addressLens[other]) == n &&
        memory.compare(unchecked(this.addressPtrs[other]), p, n) == 0
      ) {
        return false;
      }
      b = (b + 1) & mask;
    }
    unchecked((this.dupStamps[b] = this.parseStamp));
    unchecked((this.dupTable[b] = i + 1));
    return true;
  }

  private readHost(i: i32, keyPtr: usize, keyLen: usize, valuePtr: usize, valueLen: usize): void {
    unchecked((this.addressPtrs[i] = keyPtr));
    unchecked((this.addressLens[i] = <i32>keyLen));
    unchecked((this.healths[i] = HostHealth.Unknown));
    unchecked((this.metricsStarts[i] = 0));
    unchecked((this.metricsEnds[i] = 0));
    unchecked((this.metricsPresent[i] = false));
    unchecked((this.fingerprints[i] = 0));
    unchecked((this.truncatedFlags[i] = false));
    let ok = isPlausibleAddress(keyPtr, keyLen);
    const hash = ok ? addressHash(keyPtr, keyLen) : 0;
    unchecked((this.addressHashes[i] = hash));
    // The first occurrence of an address owns it, whatever its metadata.
    if (ok) ok = this.claimAddress(i, keyPtr, keyLen, hash);
    if (ok) ok = this.readMetadata(i, valuePtr, valueLen);
    unchecked((this.hostErrors[i] = !ok));
    if (!ok) {
      unchecked((this.metricsPresent[i] = false));
      this.errors++;
    }
  }

  // Reads {"health_status": string|null, "metrics": string|null, ...}; other keys are skipped, the last of
  // repeated keys wins. False on anything else.
  private readMetadata(i: i32, p: usize, n: usize): bool {
    const sc = this.scanner;
    sc.reset(p, n, STEPS_PER_HOST);
    if (sc.next() != JsonToken.ObjStart) return false;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ObjEnd) break;
      if (t != JsonToken.String) return false;
      if (sc.keyIs("health_status")) {
        const v = sc.next();
        if (v == JsonToken.String) {
          unchecked((this.healths[i] = this.readHealth(sc.start, sc.end)));
        } else if (v == JsonToken.Null) {
          unchecked((this.healths[i] = HostHealth.Unknown));
        } else {
          return false;
        }
      } else if (sc.keyIs("metrics")) {
        const v = sc.next();
        if (v == JsonToken.String) {
          unchecked((this.metricsStarts[i] = sc.start));
          unchecked((this.metricsEnds[i] = sc.end));
          unchecked((this.metricsPresent[i] = true));
        } else if (v == JsonToken.Null) {
          unchecked((this.metricsPresent[i] = false));
        } else {
          return false;
        }
      } else {
        sc.next();
        const r = sc.skipValue();
        if (r >= JsonToken.End) return false;
      }
    }
    if (sc.next() != JsonToken.End) return false;
    if (unchecked(this.metricsPresent[i])) {
      const start = unchecked(this.metricsStarts[i]);
      unchecked((this.fingerprints[i] = xxh64(start, unchecked(this.metricsEnds[i]) - start, 0)));
    }
    return true;
  }

  private readHealth(start: usize, end: usize): i32 {
    if (end - start > <usize>HEALTH_NAME_CAP * 6) return HostHealth.Unknown;
    const buf = changetype<usize>(this.healthName);
    const r = decodeJsonString(start, end, buf, HEALTH_NAME_CAP, 0);
    if (stoppedAtCap(r)) return HostHealth.Unknown;
    return healthFromName(buf, r);
  }
}
