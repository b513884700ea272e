// Sends one soak request over node:http and classifies how it ended. Chats must stream to `data: [DONE]`;
// aborts are cut by the client after the first body bytes; malformed and non-JSON bodies must be answered
// 4xx by a backend (x-backend-id present), never by the gateway. Always resolves, by the timeout at the latest.
import { request, type Agent } from "node:http";
import type { RequestKind, SoakRequest } from "./soak-workload.ts";

export type ErrorClass = "server-error" | "connection" | "timeout" | "truncated" | "unexpected-status" | "no-backend-answer";

export interface RequestOutcome {
  kind: RequestKind;
  /** 0 when no response headers arrived. */
  status: number;
  error: ErrorClass | null;
  /** A short description of the error, for the report. */
  detail: string | null;
  /** Request start to response headers. */
  headersMs: number | null;
  /** Request start to the first response body bytes. */
  firstByteMs: number | null;
  /** The assistant text of a completed chat. */
  answer: string;
}

export interface SendTarget {
  host: string;
  port: number;
  agent: Agent;
}

const MAX_ANSWER_CHARS = 4096;
const MAX_PENDING_SSE_CHARS = 1 << 16;

/** Appends the content deltas of complete SSE events in `buffer`; returns the unparsed tail and whether [DONE] came. */
function readEvents(buffer: string, out: { answer: string; done: boolean }): string {
  let start = 0;
  for (;;) {
    const end = buffer.indexOf("\n\n", start);
    if (end < 0) break;
    const event = buffer.slice(start, end);
    start = end + 2;
    if (!event.startsWith("data: ")) continue;
    const data = event.slice(6);
    if (data === "[DONE]") {
      out.done = true;
      continue;
    }
    try {
      const delta = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content;
      if (typeof delta === "string" && out.answer.length < MAX_ANSWER_CHARS) out.answer += delta;
    } catch {
      // A broken event leaves the answer short; the missing [DONE] or status reports the problem.
    }
  }
  return buffer.slice(start);
}

export function sendSoakRequest(target: SendTarget, r: SoakRequest, timeoutMs: number): Promise<RequestOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const outcome: RequestOutcome = { kind: r.kind, status: 0, error: null, detail: null, headersMs: null, firstByteMs: null, answer: "" };
    let settled = false;
    let aborting = false;
    const finish = (error: ErrorClass | null, detail: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome.error = error;
      outcome.detail = detail;
      resolve(outcome);
    };
    const body = Buffer.from(r.body);
    const req = request({
      agent: target.agent,
      host: target.host,
      port: target.port,
      method: r.method,
      path: r.path,
      headers: { "content-type": r.contentType, "content-length": body.length, accept: "text/event-stream" },
    });
    const timer = setTimeout(() => {
      finish("timeout", `no complete answer within ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on("error", (e) => {
      if (!aborting) finish("connection", e.message);
    });
    req.on("response", (res) => {
      outcome.status = res.statusCode ?? 0;
      outcome.headersMs = performance.now() - started;
      const streaming = r.kind === "chat" || r.kind === "abort";
      const sse = { answer: "", done: false };
      let pending = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        outcome.firstByteMs ??= performance.now() - started;
        if (r.kind === "abort" && outcome.status === 200) {
          aborting = true;
          req.destroy();
          finish(null, null);
          return;
        }
        if (streaming && outcome.status === 200) {
          pending = readEvents(pending + chunk, sse);
          if (pending.length > MAX_PENDING_SSE_CHARS) pending = "";
        }
      });
      res.on("error", () => {}); // the "close" below classifies it
      res.on("close", () => {
        if (settled) return;
        const status = outcome.status;
        if (status >= 500) return finish("server-error", `status ${status}${res.headers["x-backend-id"] ? " from a backend" : " from the gateway"}`);
        if (!res.complete) return finish("truncated", `response cut after ${outcome.firstByteMs === null ? "headers" : "some bytes"} (status ${status})`);
        if (streaming) {
          if (status !== 200) return finish("unexpected-status", `${r.kind}: status ${status}`);
          if (r.kind === "chat" && !sse.done) return finish("truncated", "stream ended without data: [DONE]");
          outcome.answer = sse.answer;
          return finish(null, null);
        }
        // Malformed and non-JSON bodies: the backend, not the gateway, rejects them.
        if (status < 400 || status >= 500) return finish("unexpected-status", `${r.kind}: status ${status}`);
        if (!res.headers["x-backend-id"]) return finish("no-backend-answer", `${r.kind}: status ${status} without x-backend-id`);
        finish(null, null);
      });
      if (!streaming || outcome.status !== 200) res.resume();
    });
    req.end(body);
  });
}
