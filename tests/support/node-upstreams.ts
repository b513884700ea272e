// Small node:http upstreams and a client for the gateway tests.
import { createServer, request, type Agent, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface TestUpstream {
  readonly name: string;
  readonly address: string;
  /** Non-/metrics requests this upstream received, in order. */
  readonly seen: SeenRequest[];
  metricsText: string;
  metricsStatus: number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Answers /metrics with `metricsText`, anything else with JSON {upstream, method, path, body} (or `handler`). */
export async function startUpstream(name: string, handler?: Handler): Promise<TestUpstream> {
  const seen: SeenRequest[] = [];
  const up = { metricsText: `# upstream ${name}\nvllm:num_requests_waiting 0\n`, metricsStatus: 200 };
  const server: Server = createServer((req, res) => {
    if (req.url === "/metrics") {
      res.writeHead(up.metricsStatus, { "content-type": "text/plain" });
      res.end(up.metricsText);
      return;
    }
    if (handler) {
      // Streaming handlers get the request as it arrives.
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: "" });
      handler(req, res, "");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const text = JSON.stringify({ upstream: name, method: req.method, path: req.url, body });
      res.writeHead(200, { "content-type": "application/json", "x-upstream": name });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(up, {
    name,
    address,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

/** A "host:port" nothing listens on (a port that was just freed). */
export async function deadAddress(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

export interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

export function send(
  baseUrl: string,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent | false } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(opts.path ?? "/v1/chat/completions", baseUrl);
    const body = opts.body;
    const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
    if (body !== undefined) headers["content-length"] = Buffer.byteLength(body);
    const req = request(url, { method: opts.method ?? (body === undefined ? "GET" : "POST"), headers, agent: opts.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Collects the gateway's log lines and lets a test wait for one. */
export class LogCollector {
  readonly lines: string[] = [];
  private waiters: Array<{ match: (l: string) => boolean; resolve: (l: string) => void }> = [];
  readonly sink = (line: string): void => {
    this.lines.push(line);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(line)) return true;
      w.resolve(line);
      return false;
    });
  };
  requestLines(): string[] {
    return this.lines.filter((l) => l.startsWith("gw req "));
  }
  waitFor(match: (l: string) => boolean): Promise<string> {
    const found = this.lines.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}
