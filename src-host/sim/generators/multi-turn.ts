// Multi-turn chat: `conversations` open conversations; each turn resends the whole history (system
// prompt, every earlier question and answer) plus a new question. A conversation is busy from a turn's
// send until its answer plus the user's think time; an arrival takes a random ready conversation. A
// conversation that used its turns is replaced by a new one. Answers are deterministic text whose token ids
// the pod emits, so turn N+1 shares its whole token prefix with turn N's prompt and answer.
import { pseudoText, type PseudoText } from "../pseudo-text.ts";
import { Rng, hashString } from "../rng.ts";
import type { MultiTurnSpec } from "../workload.ts";
import type { ChatMessage, RequestSpec, TrafficGenerator } from "./traffic-generator.ts";

interface Conversation {
  id: number;
  rng: Rng;
  turns: number;
  turn: number;
  history: ChatMessage[];
  pendingQuestion: PseudoText | null;
  pendingAnswer: PseudoText | null;
}

export class MultiTurnGenerator implements TrafficGenerator {
  readonly type = "multi-turn";
  private readonly slots: Conversation[] = [];
  private readonly ready: number[] = [];
  private nextConversation = 0;
  private system: PseudoText | null = null;

  constructor(
    private readonly spec: MultiTurnSpec,
    private readonly index: number,
    private readonly seed: number,
    private readonly rng: Rng,
  ) {
    for (let s = 0; s < spec.conversations; s++) {
      this.slots.push(this.newConversation());
      this.ready.push(s);
    }
  }

  get readyCount(): number {
    return this.ready.length;
  }

  systemText(): PseudoText {
    return (this.system ??= pseudoText(this.seed, `t${this.index}/chat-system`, this.spec.systemTokens));
  }

  next(): RequestSpec | null {
    if (this.ready.length === 0) return null;
    const k = this.rng.int(this.ready.length);
    const slot = this.ready[k];
    this.ready[k] = this.ready[this.ready.length - 1];
    this.ready.pop();
    const c = this.slots[slot];
    const [uLo, uHi] = this.spec.userTokens;
    const [aLo, aHi] = this.spec.assistantTokens;
    const key = `t${this.index}/conv/${c.id}/${c.turn}`;
    c.pendingQuestion = pseudoText(this.seed, `${key}/user`, c.rng.range(uLo, uHi));
    c.pendingAnswer = pseudoText(this.seed, `${key}/assistant`, c.rng.range(aLo, aHi));
    const messages: ChatMessage[] = [];
    if (this.spec.systemTokens > 0) messages.push({ role: "system", content: this.systemText().text });
    for (const m of c.history) messages.push(m);
    messages.push({ role: "user", content: c.pendingQuestion.text });
    return {
      generator: this.index, sessionKey: `t${this.index}/conv/${c.id}`, messages,
      maxTokens: c.pendingAnswer.ids.length, outputTokens: c.pendingAnswer.ids, slot,
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
    const rng = new Rng(hashString(`t${this.index}/conv/${id}`, this.seed));
    const [lo, hi] = this.spec.turns;
    return { id, rng, turns: rng.range(lo, hi), turn: 0, history: [], pendingQuestion: null, pendingAnswer: null };
  }
}
