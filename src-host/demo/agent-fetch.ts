// A WHATWG fetch over node:http with a caller-chosen Agent. Node's global fetch (undici) spreads requests
// over a shared connection pool; a chat frontend that keeps one connection per user session is modelled
// by giving each conversation its own keep-alive agent with a single socket.
import { Agent, request } from "node:http";
import { Readable } from "node:stream";

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** One keep-alive connection, reused for every request of the session. */
export function sessionAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1 });
}

async function bodyBytes(body: RequestInit["body"]): Promise<Buffer | null> {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body as BodyInit).arrayBuffer());
}

/** fetch for http:// URLs through `agent`; the response body streams as it arrives. */
export function agentFetch(agent: Agent): Fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "http:") throw new TypeError(`agentFetch supports http:// only, got ${url.protocol}`);
    const headers = new Headers(init.headers);
    const body = await bodyBytes(init.body);
    if (body !== null) headers.set("content-length", String(body.length));
    const signal = init.signal ?? null;
    signal?.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: init.method ?? "GET",
          headers: Object.fromEntries(headers),
        },
        (res) => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const item of v) out.append(k, item);
            else if (v !== undefined) out.set(k, v);
          }
          const status = res.statusCode ?? 0;
          const nullBody = status === 204 || status === 304 || init.method === "HEAD";
          if (nullBody) res.resume();
          resolve(
            new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
              status,
              statusText: res.statusMessage,
              headers: out,
            }),
          );
        },
      );
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("close", () => signal?.removeEventListener("abort", onAbort));
      req.on("error", reject);
      req.end(body ?? undefined);
    });
  };
}
