// What every traffic generator provides: the next request for an arrival, and completion feedback (a
// multi-turn conversation can only send turn N+1 after turn N's answer and the user's think time).

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface RequestSpec {
  /** Index of the generator in the workload's traffic list. */
  generator: number;
  /** Group, conversation or document the request belongs to (the session for consistent hashing). */
  sessionKey: string;
  messages: ChatMessage[];
  maxTokens: number;
  /** Token ids the pod "answers" (their text is what the next turn resends); absent: the pod invents them. */
  outputTokens?: readonly number[];
  /** The LoRA adapter the request names as its `model`; absent: the workload's base model. */
  lora?: string;
  /** Generator-private handle (multi-turn: the conversation slot). */
  slot: number;
}

export interface TrafficGenerator {
  readonly type: string;
  /** The request for an arrival at `nowMs`, or null when the generator has nothing ready to send. */
  next(nowMs: number): RequestSpec | null;
  /** A request ended (answered or failed). Returns when the generator has a new request ready, or null. */
  complete(spec: RequestSpec, nowMs: number): number | null;
  /** Marks the slot returned by complete() ready again (called at the time complete() named). */
  release(slot: number): void;
}

/** A bounded memo: the oldest entry goes first when full. */
export class Memo<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string, make: () => V): V {
    let v = this.map.get(key);
    if (v === undefined) {
      v = make();
      if (this.map.size >= this.capacity) this.map.delete(this.map.keys().next().value as string);
      this.map.set(key, v);
    }
    return v;
  }
}
