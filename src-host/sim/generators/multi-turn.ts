// Multi-turn chat: `conversations` open conversations; each turn resends the whole history (system
// prompt, every earlier question and answer) plus a new question. A conversation is busy from a turn's
// send until its answer plus the user's think time; an arrival takes a random ready conversation. A
// conversation that used its turns is replaced by a new one. Answers are deterministic text whose token ids
// the pod emits, so turn N+1 shares its whole token prefix with turn N's prompt and answer.
// Agentic sessions are the same shape: one of `systemPrompts` long tool prompts (Zipf `systemSkew`), a task
// (`firstUserTokens`), then per turn a short tool call (the answer) and its tool output (the next user message).
import { pseudoText, type PseudoText } from "../pseudo-text.ts";
import { SeededRandom, hashString } from "../../util/seeded-random.ts";
import type { MultiTurnSpec } from "../workload.ts";
import { Memo, type ChatMessage, type RequestSpec, type TrafficGenerator } from "./traffic-generator.ts";
import { ZipfPick } from "./zipf-pick.ts";

interface Conversation {
  id: number;
  rng: SeededRandom;
  turns: number;
  turn: number;
  system: number;
  /** The conversation's LoRA adapter (undefined: the base model). */
  lora: string | undefined;
  history: ChatMessage[];
  pendingQuestion: PseudoText | null;
  pendingAnswer: PseudoText | null;
}

export class MultiTurnGenerator implements TrafficGenerator {
  readonly type = "multi-turn";
  private readonly slots: Conversation[] = [];
  private readonly ready: number[] = [];
  private nextConversation = 0;
  private readonly systems = new Memo<PseudoText>(1024);
  private readonly systemPick: ZipfPick;
  private readonly adapterPick: ZipfPick | null;

  constructor(
    private readonly spec: MultiTurnSpec,
    private readonly index: number,
    private readonly seed: number,
    private readonly rng: SeededRandom,
  ) {
    this.systemPick = new ZipfPick(spec.systemPrompts, spec.systemSkew);
    const adapters = spec.adapters ?? 0;
    this.adapterPick = adapters > 0 ? new ZipfPick(adapters, spec.adapterSkew ?? 0) : null;
    for (let s = 0; s < spec.conversations; s++) {
      this.slots.push(this.newConversation());
      this.ready.push(s);
    }
  }

  get readyCount(): number {
    return this.ready.length;
  }

  systemText(system = 0): PseudoText {
    // System prompt 0 keeps the key of the single-prompt shape, so existing workloads replay unchanged.
    const key = system === 0 ? `t${this.index}/chat-system` : `t${this.index}/chat-system/${system}`;
    return this.systems.get(key, () => pseudoText(this.seed, key, this.spec.systemTokens));
  }

  next(): RequestSpec | null {
    if (this.ready.length === 0) return null;
    const k = this.rng.int(this.ready.length);
    const slot = this.ready[k];
    this.ready[k] = this.ready[this.ready.length - 1];
    this.ready.pop();
    const c = this.slots[slot];
    const [uLo, uHi] = c.turn === 0 ? (this.spec.firstUserTokens ?? this.spec.userTokens) : this.spec.userTokens;
    const [aLo, aHi] = this.spec.assistantTokens;
    const key = `t${this.index}/conv/${c.id}/${c.turn}`;
    c.pendingQuestion = pseudoText(this.seed, `${key}/user`, c.rng.range(uLo, uHi));
    c.pendingAnswer = pseudoText(this.seed, `${key}/assistant`, c.rng.range(aLo, aHi));
    const messages: ChatMessage[] = [];
    if (this.spec.systemTokens > 0) messages.push({ role: "system", content: this.systemText(c.system).text });
    for (const m of c.history) messages.push(m);
    messages.push({ role: "user", content: c.pendingQuestion.text });
    return {
      generator: this.index, sessionKey: `t${this.index}/conv/${c.id}`, messages,
      maxTokens: c.pendingAnswer.ids.length, outputTokens: c.pendingAnswer.ids, slot,
      ...(c.lora !== undefined ? { lora: c.lora } : {}),
    };
  }

  complete(spec: RequestSpec, nowMs: number): number {
    const c = this.slots[spec.slot];
    c.history.push({ role: "user", content: c.pendingQuestion!.text }, { role: "assistant", content: c.pendingAnswer!.text });
    c.pendingQuestion = c.pendingAnswer = null;
    c.turn++;
    const [tLo, tHi] = this.spec.thinkTimeS;
    const think = c.rng.uniform(tLo, tHi);
    if (c.turn >= c.turns) this.slots[spec.slot] = this.newConversation();
    return nowMs + think * 1000;
  }

  release(slot: number): void {
    this.ready.push(slot);
  }

  private newConversation(): Conversation {
    const id = this.nextConversation++;
    const rng = new SeededRandom(hashString(`t${this.index}/conv/${id}`, this.seed));
    const [lo, hi] = this.spec.turns;
    const turns = rng.range(lo, hi);
    const system = this.spec.systemPrompts > 1 ? this.systemPick.next(rng) : 0;
    // Drawn from its own stream so that adding adapters leaves every other draw of the workload as it was.
    const lora = this.adapterPick === null ? undefined
      : loraAdapterName(this.adapterPick.next(new SeededRandom(hashString(`t${this.index}/conv/${id}/adapter`, this.seed))));
    return { id, rng, turns, turn: 0, system, lora, history: [], pendingQuestion: null, pendingAnswer: null };
  }
}

/** Name of adapter k (0 is the most popular), as requests send it in `model` and pods report it. */
export function loraAdapterName(k: number): string {
  return `lora-${k}`;
}
