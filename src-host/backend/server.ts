// A simulated vLLM OpenAI-compatible server on node:http: /v1/chat/completions and /v1/completions
// (streaming and not), /v1/models, /health and /metrics, backed by the Engine on the wall clock.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Engine, EngineRequestError, type EngineConfigInput, type Usage } from "./engine.ts";
import { RealtimeEngineDriver } from "./engine-driver.ts";
import { fillerOutput } from "./filler-text.ts";
import { renderVllmMetrics } from "./metrics.ts";
import { ApiError, parseOpenAiRequest, type ApiKind, type ParsedRequest } from "./openai-request.ts";
import { Tokenizer } from "./tokenizer.ts";

export interface BackendOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Sent as x-backend-id on every response; default "backend-<port>". */
  id?: string;
  /** Served model name; default "sim-model". */
  modelName?: string;
  /** Engine configuration (speed, kvTokens, blockSize, maxNumSeqs, ...). */
  engine?: EngineConfigInput;
  /** Output length when the client sets no max_tokens; such answers finish with "stop". Default 64. */
  defaultMaxTokens?: number;
  /** LoRA adapters served besides the base model; enables vllm:lora_requests_info. */
  loraAdapters?: string[];
  /** max_loras reported in vllm:lora_requests_info; default max(1, loraAdapters.length). */
  maxLoras?: number;
  /** Request bodies above this are answered with 413. Default 16 MiB. */
  maxBodyBytes?: number;
  /**
   * Report usage.prompt_tokens_details.cached_tokens when some prompt tokens were cached, as vLLM does with
   * --enable-prompt-tokens-details. Off by default, as in vLLM.
   */
  enablePromptTokensDetails?: boolean;
  /**
   * End each streamed (chunked) answer with HTTP/1 trailers giving its usage: x-usage-prompt-tokens,
   * x-usage-completion-tokens and x-usage-cached-tokens, announced in a `trailer` response header. vLLM sends none;
   * this is for testing a gateway's trailer path. Off by default.
   */
  usageTrailers?: boolean;
}

/** Makes completion requests fail, for testing how callers handle a broken backend. */
export interface BackendFault {
  /** HTTP status for /v1/* completion requests. */
  status: number;
  message?: string;
}

export interface BackendHandle {
  readonly id: string;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly modelName: string;
  readonly engine: Engine;
  readonly tokenizer: Tokenizer;
  /** null clears the fault. */
  setFault(fault: BackendFault | null): void;
  /** false makes GET /health answer 503. */
  setHealthy(healthy: boolean): void;
  /** The /metrics text as served now. */
  metricsText(): string;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.status, { error: { message: err.message, type: err.type, param: null, code: err.status } });
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new ApiError(413, `request body exceeds ${limit} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * vLLM's UsageInfo. It sets prompt_tokens_details only with --enable-prompt-tokens-details and a nonzero cached
 * count (serving_chat.py, serving_completion.py: `if self.enable_prompt_tokens_details and num_cached_tokens`);
 * a whole response serializes the unset field as null, a stream chunk leaves it out (exclude_unset).
 */
/** The trailers of BackendOptions.usageTrailers. */
export const USAGE_TRAILERS = ["x-usage-prompt-tokens", "x-usage-completion-tokens", "x-usage-cached-tokens"];

function usageJson(u: Usage, tokensDetails: boolean, stream: boolean): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    prompt_tokens: u.promptTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    completion_tokens: u.completionTokens,
  };
  if (tokensDetails && u.cachedTokens > 0) usage.prompt_tokens_details = { cached_tokens: u.cachedTokens };
  else if (!stream) usage.prompt_tokens_details = null;
  return usage;
}

export async function startBackend(options: BackendOptions = {}): Promise<BackendHandle> {
  const modelName = options.modelName ?? "sim-model";
  const loraAdapters = options.loraAdapters ?? [];
  const maxLoras = options.maxLoras ?? Math.max(1, loraAdapters.length);
  const defaultMaxTokens = options.defaultMaxTokens ?? 64;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const tokensDetails = options.enablePromptTokensDetails === true;
  const usageTrailers = options.usageTrailers === true;
  const engine = new Engine(options.engine);
  const driver = new RealtimeEngineDriver(engine);
  const tokenizer = new Tokenizer();
  const startedSeconds = Date.now() / 1000;
  const sockets = new Set<Socket>();
  let fault: BackendFault | null = null;
  let healthy = true;
  let nextRequest = 0;
  let backendId = options.id ?? "";

  const metricsText = (): string =>
    renderVllmMetrics(engine.metrics(), {
      modelName,
      nowSeconds: Date.now() / 1000,
      createdSeconds: startedSeconds,
      lora: loraAdapters.length > 0 ? { maxLoras } : undefined,
    });

  const modelsJson = () => {
    const created = Math.floor(startedSeconds);
    const card = (id: string, root: string, parent: string | null) => ({
      id, object: "model", created, owned_by: "vllm", root, parent, max_model_len: engine.config.maxModelLen, permission: [],
    });
    return { object: "list", data: [card(modelName, modelName, null), ...loraAdapters.map((a) => card(a, a, modelName))] };
  };

  function runCompletion(kind: ApiKind, parsed: ParsedRequest, res: ServerResponse): void {
    const prefix = kind === "chat" ? "chatcmpl" : "cmpl";
    const id = `${prefix}-${backendId}-${nextRequest++}`;
    const created = Math.floor(Date.now() / 1000);
    const promptLen = parsed.promptTokens.length;
    // Without max_tokens vLLM allows the rest of the context; the filler answer then ends with "stop".
    const maxTokens = parsed.requestedMaxTokens ?? engine.config.maxModelLen - promptLen;
    const outputCount = parsed.requestedMaxTokens ?? defaultMaxTokens;
    const output = fillerOutput(Math.max(1, Math.min(outputCount, maxTokens)), promptLen);
    let done = false;

    const chunkBase = (choice: Record<string, unknown>) => ({
      id,
      object: kind === "chat" ? "chat.completion.chunk" : "text_completion",
      created,
      model: parsed.model,
      choices: [choice],
      ...(parsed.includeUsage ? { usage: null } : {}),
    });
    const writeEvent = (payload: unknown) => {
      if (!res.writableEnded && !res.destroyed) res.write(`data: ${JSON.stringify(payload)}\n\n`);
    };

    const request = {
      id,
      promptTokens: parsed.promptTokens,
      maxTokens,
      outputTokens: output.tokenIds,
      streamTokens: parsed.stream,
      lora: parsed.lora,
    };
    try {
      engine.validate(request);
    } catch (err) {
      if (err instanceof EngineRequestError) throw new ApiError(400, err.message);
      throw err;
    }

    res.on("close", () => {
      if (!done) driver.abort(id);
    });
    if (parsed.stream) {
      const trailer = usageTrailers ? { trailer: USAGE_TRAILERS.join(", ") } : {};
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...trailer });
      res.flushHeaders();
    }

    driver.submit(request, (ev) => {
          if (ev.type === "first_token") return;
          if (ev.type === "token") {
            const piece = output.pieces[ev.index];
            if (kind === "chat") {
              if (ev.index === 0) {
                writeEvent(chunkBase({ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }));
              }
              writeEvent(chunkBase({ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }));
            } else {
              writeEvent(chunkBase({ index: 0, text: piece, logprobs: null, finish_reason: null, stop_reason: null }));
            }
            return;
          }
          done = true;
          const text = output.pieces.slice(0, ev.usage.completionTokens).join("");
          if (parsed.stream) {
            writeEvent(
              kind === "chat"
                ? chunkBase({ index: 0, delta: {}, logprobs: null, finish_reason: ev.finishReason, stop_reason: null })
                : chunkBase({ index: 0, text: "", logprobs: null, finish_reason: ev.finishReason, stop_reason: null }),
            );
            if (parsed.includeUsage) {
              writeEvent({
                id, object: kind === "chat" ? "chat.completion.chunk" : "text_completion", created,
                model: parsed.model, choices: [], usage: usageJson(ev.usage, tokensDetails, true),
              });
            }
            if (res.writableEnded) return;
            if (usageTrailers) {
              const u = ev.usage;
              res.addTrailers([[USAGE_TRAILERS[0], String(u.promptTokens)], [USAGE_TRAILERS[1], String(u.completionTokens)], [USAGE_TRAILERS[2], String(u.cachedTokens)]]);
            }
            res.end("data: [DONE]\n\n");
            return;
          }
          const choice =
            kind === "chat"
              ? { index: 0, message: { role: "assistant", content: text, tool_calls: [] }, logprobs: null, finish_reason: ev.finishReason, stop_reason: null }
              : { index: 0, text, logprobs: null, finish_reason: ev.finishReason, stop_reason: null };
          sendJson(res, 200, {
            id, object: kind === "chat" ? "chat.completion" : "text_completion", created, model: parsed.model,
            choices: [choice], usage: usageJson(ev.usage, tokensDetails, false),
          });
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader("x-backend-id", backendId);
    const path = (req.url ?? "/").split("?")[0];
    const method = req.method ?? "GET";
    if (method === "GET" && path === "/health") {
      res.writeHead(healthy ? 200 : 503, { "content-length": 0 });
      res.end();
      return;
    }
    if (method === "GET" && path === "/metrics") {
      const text = metricsText();
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8", "content-length": Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    if (method === "GET" && path === "/v1/models") {
      sendJson(res, 200, modelsJson());
      return;
    }
    const kind: ApiKind | null =
      path === "/v1/chat/completions" ? "chat" : path === "/v1/completions" ? "completion" : null;
    if (kind === null) throw new ApiError(404, `no route for ${method} ${path}`, "NotFoundError");
    if (method !== "POST") throw new ApiError(405, `method ${method} not allowed on ${path}`, "MethodNotAllowed");
    const raw = await readBody(req, maxBodyBytes);
    if (fault !== null) throw new ApiError(fault.status, fault.message ?? "injected fault", "InternalServerError");
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch (err) {
      throw new ApiError(400, `malformed JSON body: ${(err as Error).message}`);
    }
    const parsed = parseOpenAiRequest(kind, body, { base: modelName, loraAdapters }, tokenizer);
    runCompletion(kind, parsed, res);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const apiErr = err instanceof ApiError ? err : new ApiError(500, (err as Error)?.message ?? String(err), "InternalServerError");
      sendError(res, apiErr);
    });
  });
  // Node closes an idle keep-alive connection after 5 s (uvicorn, vLLM's server, too), while the gateway keeps its idle
  // upstream connections, as Envoy does for an hour: a request sent on a connection the backend is closing gets
  // "reset before headers". Deployments raise the backend's keep-alive (uvicorn --timeout-keep-alive); so does this.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("backend did not bind a TCP port");
  const port = address.port;
  if (backendId === "") backendId = `backend-${port}`;

  let closing: Promise<void> | undefined;
  return {
    id: backendId,
    port,
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    modelName,
    engine,
    tokenizer,
    setFault: (f) => {
      fault = f;
    },
    setHealthy: (h) => {
      healthy = h;
    },
    metricsText,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        driver.close();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}
