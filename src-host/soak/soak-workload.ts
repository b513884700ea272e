// What the soak sends: streaming multi-turn chats over a few shared system prompts, plus a sprinkle of
// malformed JSON bodies, non-JSON bodies and chats the client abandons mid-stream. Each arm (gateway with
// the plugin, without, direct) draws from its own generator with the same seed, so all arms see the same mix.
import { pseudoText } from "../sim/pseudo-text.ts";
import { SeededRandom } from "../util/seeded-random.ts";

export type RequestKind = "chat" | "abort" | "malformed" | "non-json";
export const REQUEST_KINDS: readonly RequestKind[] = ["chat", "abort", "malformed", "non-json"];

export interface SoakWorkloadSpec {
  model: string;
  /** Token length of each shared system prompt. */
  systemPromptTokens: number[];
  /** Inclusive ranges. */
  turns: [number, number];
  userTokens: [number, number];
  maxTokens: [number, number];
  /** Shares of the odd requests; the rest are chat turns. */
  malformedShare: number;
  nonJsonShare: number;
  abortShare: number;
  /** Chance that a chat turn continues a waiting conversation rather than starting one. */
  continueChance: number;
  /** Conversations waiting for their next turn, at most (older ones are dropped). */
  maxWaiting: number;
}

export const DEFAULT_SOAK_WORKLOAD: Readonly<SoakWorkloadSpec> = Object.freeze({
  model: "sim-model",
  systemPromptTokens: [400, 800, 1200, 1600],
  turns: [2, 6] as [number, number],
  userTokens: [10, 60] as [number, number],
  maxTokens: [8, 24] as [number, number],
  malformedShare: 0.03,
  nonJsonShare: 0.03,
  abortShare: 0.04,
  continueChance: 0.7,
  maxWaiting: 64,
});

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface Conversation {
  readonly id: number;
  readonly messages: ChatMessage[];
  turnsLeft: number;
}

export interface SoakRequest {
  kind: RequestKind;
  method: "POST";
  path: string;
  contentType: string;
  body: string;
  /** The chat this turn belongs to (chat and abort kinds). */
  conversation: Conversation | null;
}

export class SoakWorkload {
  /** Draws the request kinds only, so every arm gets the same sequence of kinds whatever its answers. */
  private readonly kinds: SeededRandom;
  private readonly rng: SeededRandom;
  private readonly systemPrompts: string[];
  private readonly waiting: Conversation[] = [];
  private nextConversation = 0;
  private nextText = 0;

  constructor(
    readonly spec: SoakWorkloadSpec,
    seed: number,
  ) {
    this.kinds = SeededRandom.derive(seed, "soak kinds");
    this.rng = SeededRandom.derive(seed, "soak workload");
    // Shared by every arm (same seed and keys), so the prompts repeat across conversations and arms.
    this.systemPrompts = spec.systemPromptTokens.map((t, i) => `You are assistant ${i}.${pseudoText(seed, `system ${i}`, t).text}`);
  }

  /** Conversations waiting for their next turn. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  next(): SoakRequest {
    const s = this.spec;
    const x = this.kinds.next();
    if (x < s.malformedShare) {
      const full = this.chatBody(this.startConversation().messages);
      return { kind: "malformed", method: "POST", path: "/v1/chat/completions", contentType: "application/json", body: full.slice(0, 1 + this.rng.int(full.length - 1)), conversation: null };
    }
    if (x < s.malformedShare + s.nonJsonShare) {
      return { kind: "non-json", method: "POST", path: "/v1/chat/completions", contentType: "text/plain", body: this.text("plain", this.rng.range(5, 40)), conversation: null };
    }
    const kind: RequestKind = x < s.malformedShare + s.nonJsonShare + s.abortShare ? "abort" : "chat";
    const conversation = this.waiting.length > 0 && this.rng.next() < s.continueChance ? this.waiting.shift()! : this.startConversation();
    conversation.messages.push({ role: "user", content: this.text("user", this.rng.range(s.userTokens[0], s.userTokens[1])) });
    conversation.turnsLeft--;
    return { kind, method: "POST", path: "/v1/chat/completions", contentType: "application/json", body: this.chatBody(conversation.messages), conversation };
  }

  /** A turn was answered: the chat waits for its next turn if it has one. */
  answered(conversation: Conversation, answer: string): void {
    if (conversation.turnsLeft <= 0) return;
    conversation.messages.push({ role: "assistant", content: answer });
    this.waiting.push(conversation);
    if (this.waiting.length > this.spec.maxWaiting) this.waiting.shift();
  }

  private startConversation(): Conversation {
    const s = this.spec;
    const prompt = this.systemPrompts[this.rng.int(this.systemPrompts.length)];
    return { id: this.nextConversation++, messages: [{ role: "system", content: prompt }], turnsLeft: this.rng.range(s.turns[0], s.turns[1]) };
  }

  private chatBody(messages: ChatMessage[]): string {
    const s = this.spec;
    return JSON.stringify({ model: s.model, stream: true, max_tokens: this.rng.range(s.maxTokens[0], s.maxTokens[1]), messages });
  }

  private text(label: string, tokens: number): string {
    return pseudoText(this.rng.int(1 << 30), `${label} ${this.nextText++}`, tokens).text.trimStart();
  }
}
