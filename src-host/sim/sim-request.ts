// One request as the simulator carries it: the OpenAI chat body the gateway sees (text) and the token ids
// and KV block hashes the pods see (the chat template over the same messages).
import { computeBlockHashes, rootBlockHash } from "../backend/block-hash.ts";
import { renderChatPrompt, segmentsToTokens } from "../backend/chat-template.ts";
import type { Tokenizer } from "../backend/tokenizer.ts";
import type { ChatMessage, RequestSpec } from "./generators/traffic-generator.ts";

const enc = new TextEncoder();

export class SimRequest {
  readonly promptTokens: number[];
  readonly blockHashes: number[];
  private bodyText: string | null = null;
  private bodyUtf8: Uint8Array | null = null;

  constructor(
    readonly id: number,
    readonly spec: RequestSpec,
    readonly model: string,
    /** Virtual time the client sent it (ms). */
    readonly arrivalMs: number,
    tokenizer: Tokenizer,
    blockTokens: number,
    /** How long the arrival it fills waited in the backlog for a ready session before it was sent (ms). */
    readonly backlogMs = 0,
  ) {
    this.promptTokens = segmentsToTokens(renderChatPrompt(spec.messages), tokenizer);
    // An adapter's blocks chain from a root keyed by its name, as vLLM keys them: no KV is shared across adapters.
    this.blockHashes = spec.lora === undefined
      ? computeBlockHashes(this.promptTokens, blockTokens)
      : computeBlockHashes(this.promptTokens, blockTokens, [], this.promptTokens.length, rootBlockHash(spec.lora));
  }

  /** The LoRA adapter the request names (undefined: the base model). */
  get lora(): string | undefined {
    return this.spec.lora;
  }

  get messages(): ChatMessage[] {
    return this.spec.messages;
  }

  get sessionKey(): string {
    return this.spec.sessionKey;
  }

  get maxTokens(): number {
    return this.spec.maxTokens;
  }

  /** `{"model", "messages", "max_tokens", "stream": true}` as the client sends it. */
  get body(): string {
    return (this.bodyText ??= chatRequestBody(this.model, this.spec.messages, this.spec.maxTokens));
  }

  get bodyBytes(): Uint8Array {
    return (this.bodyUtf8 ??= enc.encode(this.body));
  }
}

export function chatRequestBody(model: string, messages: readonly ChatMessage[], maxTokens: number): string {
  return JSON.stringify({ model, messages, max_tokens: maxTokens, stream: true });
}
