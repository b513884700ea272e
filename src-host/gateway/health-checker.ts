// Active health checking of the upstream hosts, as Envoy does it for Higress's `store_metrics` check: each host's
// `GET /metrics` is polled and the host's metrics are what Higress's patched HTTP health checker stores
// (higress-group/envoy source/extensions/health_checkers/http/health_checker_impl.cc):
// - every completed probe stores its body, whatever its status (HttpActiveHealthCheckSession::
//   healthCheckResult calls setEndpointMetrics before checking the status), cut at 64 KiB (decodeData keeps
//   StoreMetricsResponseBodyLimit bytes and drains the rest until the end of the response);
// - a probe that times out, is reset or loses its connection stores "" (invalidateProbeResponse), so a Healthy
//   host can report empty metrics until its next completed probe.
// Envoy semantics for the status:
// - a host starts Unhealthy (Envoy's FAILED_ACTIVE_HC on a new host) unless `startHealthy` is set, and at start-up
//   one passing check is enough to make it Healthy;
// - a probe passes on status 200 only (HttpStatusChecker's default expected range is [200, 201));
// - a Healthy host turns Unhealthy after `unhealthyThreshold` consecutive failures (connection error, timeout,
//   another status);
// - an Unhealthy host that was Healthy before needs `healthyThreshold` consecutive successes to come back.
import { request } from "node:http";
import type { Cluster, UpstreamHost } from "../host/cluster.ts";
import { splitAddress } from "../host/split-address.ts";

/** Higress stores at most this many bytes of a health-check body. */
export const METRICS_BODY_LIMIT_BYTES = 65536;

export interface HealthCheckOptions {
  intervalMs: number;
  timeoutMs: number;
  /** Default "/metrics". */
  path?: string;
  /** Consecutive failures that make a Healthy host Unhealthy. Default 2. */
  unhealthyThreshold?: number;
  /** Consecutive successes that make an Unhealthy host Healthy again (after start-up). Default 2. */
  healthyThreshold?: number;
  /** Report hosts Healthy before their first check (default false: Unhealthy until one check passes). */
  startHealthy?: boolean;
}

/** What one check found. */
export interface CheckResult {
  /** The probe passed (status 200). */
  ok: boolean;
  /** The response arrived whole (any status); false on a timeout, reset or connection error. */
  completed: boolean;
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  /** The body cut at METRICS_BODY_LIMIT_BYTES, decoded as UTF-8 ("" when the probe did not complete). */
  body: string;
  error: string | null;
}

export interface HostHealth {
  readonly host: UpstreamHost;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  /** False until the first passing check (start-up: one success suffices). */
  everPassed: boolean;
  checks: number;
  last: CheckResult | null;
}

const decoder = new TextDecoder();

/** One `GET path` against an "ip:port"; never rejects. */
export function checkOnce(address: string, path: string, timeoutMs: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: CheckResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const fail = (status: number, error: string) => done({ ok: false, completed: false, status, body: "", error });
    const { hostname, port } = splitAddress(address);
    const req = request({ host: hostname, port, path, method: "GET", agent: false, headers: { host: address, accept: "text/plain" } });
    const timer = setTimeout(() => fail(0, `timeout after ${timeoutMs} ms`), timeoutMs);
    req.on("error", (e) => fail(0, e.message));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const body = Buffer.alloc(METRICS_BODY_LIMIT_BYTES);
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        // Past the limit the rest is read and dropped: the probe completes at the end of the response.
        const take = Math.min(chunk.length, METRICS_BODY_LIMIT_BYTES - size);
        chunk.copy(body, size, 0, take);
        size += take;
      });
      res.on("end", () => {
        const ok = status === 200;
        done({ ok, completed: true, status, body: decoder.decode(body.subarray(0, size)), error: ok ? null : `status ${status}` });
      });
      res.on("aborted", () => fail(status, "response aborted"));
      res.on("error", (e) => fail(status, e.message));
    });
    req.end();
  });
}

/** The health-checked upstream cluster the gateway routes to and the plugin reads hosts from. */
export class HealthChecker implements Cluster {
  private readonly health: HostHealth[];
  private readonly path: string;
  private readonly unhealthyThreshold: number;
  private readonly healthyThreshold: number;
  // Per host, the check in flight; checks of one host never overlap.
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly name: string,
    addresses: string[],
    readonly options: HealthCheckOptions,
  ) {
    this.path = options.path ?? "/metrics";
    this.unhealthyThreshold = Math.max(1, options.unhealthyThreshold ?? 2);
    this.healthyThreshold = Math.max(1, options.healthyThreshold ?? 2);
    const initial = options.startHealthy ? "Healthy" : "Unhealthy";
    this.health = addresses.map((address) => {
      splitAddress(address);
      return {
        host: { address, healthStatus: initial, metrics: "" },
        consecutiveFailures: 0,
        consecutiveSuccesses: 0,
        everPassed: false,
        checks: 0,
        last: null,
      };
    });
  }

  hosts(): UpstreamHost[] {
    return this.health.map((h) => h.host);
  }

  /** Health bookkeeping of one host, or undefined. */
  status(address: string): HostHealth | undefined {
    return this.health.find((h) => h.host.address === address);
  }

  /** Starts periodic checks (the first round right away). */
  start(): void {
    if (this.timer) return;
    this.tick();
    this.timer = setInterval(() => this.tick(), Math.max(1, this.options.intervalMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Checks every host now (after any check already running for it) and resolves when all are recorded. */
  async checkNow(): Promise<void> {
    await Promise.all(
      this.health.map((h) => {
        const prev = this.running.get(h.host.address) ?? Promise.resolve();
        return this.track(h, prev.then(() => this.checkHost(h)));
      }),
    );
  }

  /** Resolves when no check is in flight. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
  }

  private tick(): void {
    for (const h of this.health) {
      // A slow host is not checked again while its previous check is still running.
      if (!this.running.has(h.host.address)) this.track(h, this.checkHost(h));
    }
  }

  private track(h: HostHealth, p: Promise<void>): Promise<void> {
    const address = h.host.address;
    this.running.set(address, p);
    return p.finally(() => {
      if (this.running.get(address) === p) this.running.delete(address);
    });
  }

  private async checkHost(h: HostHealth): Promise<void> {
    const r = await checkOnce(h.host.address, this.path, this.options.timeoutMs);
    this.record(h, r);
  }

  /** Applies one check result to the host's status. */
  record(h: HostHealth, r: CheckResult): void {
    h.checks++;
    h.last = r;
    // health_checker_impl.cc: healthCheckResult stores every completed body; invalidateProbeResponse clears.
    h.host.metrics = r.completed ? r.body : "";
    if (r.ok) {
      h.consecutiveFailures = 0;
      h.consecutiveSuccesses++;
      if (!h.everPassed || h.consecutiveSuccesses >= this.healthyThreshold) h.host.healthStatus = "Healthy";
      h.everPassed = true;
    } else {
      h.consecutiveSuccesses = 0;
      h.consecutiveFailures++;
      if (h.consecutiveFailures >= this.unhealthyThreshold) h.host.healthStatus = "Unhealthy";
    }
  }
}
