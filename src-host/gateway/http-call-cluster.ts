// A single-host cluster the plugin reaches with proxy_http_call: the stock Envoy build polls each endpoint's
// /metrics through one such cluster per upstream, named `metrics-<host:port>` (metricsClusterName).
import { request } from "node:http";
import type { Cluster, HttpCallOutcome, HttpCallRequest, UpstreamHost } from "../host/cluster.ts";
import type { HeaderList } from "../host/header-map.ts";
import { splitAddress } from "../host/split-address.ts";

/** Responses larger than this fail the call (Envoy's async client buffers the whole body). */
const MAX_CALL_RESPONSE_BYTES = 16 * 1024 * 1024;
/** The host enforces the call's own timeout; this only bounds a socket nobody answers (timeout 0 = none). */
const SOCKET_GUARD_MS = 60_000;

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te"]);

export function metricsClusterName(address: string): string {
  return `metrics-${address}`;
}

export class HttpCallCluster implements Cluster {
  private readonly host: UpstreamHost;

  constructor(
    readonly name: string,
    readonly address: string,
  ) {
    splitAddress(address);
    this.host = { address, healthStatus: "Healthy", metrics: "" };
  }

  hosts(): UpstreamHost[] {
    return [this.host];
  }

  /** Reports a failure before response headers as `null`, after them (or a body over the limit) as
   *  "reset": what Envoy's async client sees as a router local reply vs. onFailure (host/http-call.ts). */
  dispatch(call: HttpCallRequest, respond: (res: HttpCallOutcome) => void): void {
    let settled = false;
    const settle = (res: HttpCallOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (res === null || res === "reset") req.destroy();
      respond(res);
    };
    let method = "GET";
    let path = "/";
    let authority = this.address;
    const headers: Array<[string, string]> = [];
    for (const [k, v] of call.headers) {
      const key = k.toLowerCase();
      if (key === ":method") method = v;
      else if (key === ":path") path = v;
      else if (key === ":authority") authority = v;
      else if (!key.startsWith(":") && !HOP_BY_HOP.has(key) && key !== "host" && key !== "content-length") headers.push([key, v]);
    }
    headers.push(["host", authority]);
    if (call.body.length || method !== "GET") headers.push(["content-length", String(call.body.length)]);
    const { hostname, port } = splitAddress(this.address);
    const req = request({ host: hostname, port, method, path, agent: false, headers: headers.flat() });
    const timer = setTimeout(() => settle(null), call.timeoutMs > 0 ? call.timeoutMs + 1000 : SOCKET_GUARD_MS);
    req.on("error", () => settle(null));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_CALL_RESPONSE_BYTES) settle("reset");
        else chunks.push(c);
      });
      res.on("end", () => {
        const out: HeaderList = [[":status", String(res.statusCode ?? 0)]];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          const key = res.rawHeaders[i].toLowerCase();
          if (!HOP_BY_HOP.has(key)) out.push([key, res.rawHeaders[i + 1]]);
        }
        settle({ headers: out, body: new Uint8Array(Buffer.concat(chunks)), trailers: [] });
      });
      res.on("aborted", () => settle("reset"));
      res.on("error", () => settle("reset"));
    });
    req.end(call.body.length ? Buffer.from(call.body) : undefined);
  }
}
