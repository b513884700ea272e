// Turns an OpenAI-style request body (chat or completions) into what the engine needs, with the
// validation errors vLLM would answer (400 for bad input, 404 for an unknown model).
import { renderChatPrompt, renderCompletionPrompt, segmentsToTokens, TemplateError } from "./chat-template.ts";
import type { Tokenizer } from "./tokenizer.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = status === 404 ? "NotFoundError" : "BadRequestError",
  ) {
    super(message);
  }
}

export type ApiKind = "chat" | "completion";

export interface ParsedRequest {
  kind: ApiKind;
  model: string;
  /** LoRA adapter when `model` names one. */
  lora?: string;
  promptTokens: number[];
  /** The client's max_tokens / max_completion_tokens, if it set one. */
  requestedMaxTokens?: number;
  stream: boolean;
  includeUsage: boolean;
}

export interface ServedModels {
  base: string;
  loraAdapters: readonly string[];
}

function isTokenIdArray(v: unknown): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => Number.isInteger(x) && x >= 0);
}

function completionPromptTokens(prompt: unknown, tokenizer: Tokenizer): number[] {
  if (typeof prompt === "string") return segmentsToTokens(renderCompletionPrompt(prompt), tokenizer);
  if (isTokenIdArray(prompt)) return prompt.slice();
  if (Array.isArray(prompt) && prompt.length === 1) return completionPromptTokens(prompt[0], tokenizer);
  if (Array.isArray(prompt) && prompt.length > 1) {
    throw new ApiError(400, "batched prompts are not supported by this simulated server");
  }
  throw new ApiError(400, "'prompt' must be a string, an array of token ids, or a one-element array of either");
}

export function parseOpenAiRequest(
  kind: ApiKind,
  body: unknown,
  models: ServedModels,
  tokenizer: Tokenizer,
): ParsedRequest {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ApiError(400, "request body must be a JSON object");
  }
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string") throw new ApiError(400, "'model' must be a string");
  const model = b.model;
  let lora: string | undefined;
  if (model !== models.base) {
    if (!models.loraAdapters.includes(model)) throw new ApiError(404, `The model \`${model}\` does not exist.`);
    lora = model;
  }

  let promptTokens: number[];
  try {
    promptTokens =
      kind === "chat"
        ? segmentsToTokens(renderChatPrompt(b.messages, b.tools), tokenizer)
        : completionPromptTokens(b.prompt, tokenizer);
  } catch (err) {
    if (err instanceof TemplateError) throw new ApiError(400, err.message);
    throw err;
  }

  const rawMax = kind === "chat" ? (b.max_completion_tokens ?? b.max_tokens) : b.max_tokens;
  let requestedMaxTokens: number | undefined;
  if (rawMax !== undefined && rawMax !== null) {
    if (typeof rawMax !== "number" || !Number.isInteger(rawMax) || rawMax < 1) {
      throw new ApiError(400, "max_tokens must be a positive integer");
    }
    requestedMaxTokens = rawMax;
  }

  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== "boolean") {
    throw new ApiError(400, "'stream' must be a boolean");
  }
  const stream = b.stream === true;
  const options = b.stream_options as { include_usage?: unknown } | undefined | null;
  if (options !== undefined && options !== null && !stream) {
    throw new ApiError(400, "Stream options can only be defined when `stream=True`.");
  }
  const includeUsage = stream && options?.include_usage === true;
  return { kind, model, lora, promptTokens, requestedMaxTokens, stream, includeUsage };
}
