// The demo's scripted chat workload: conversations that share a few long system prompts and grow turn by
// turn. Everything but the assistant answers (which the backends produce) is decided up front from a seed, so
// the picker run and the round-robin run replay exactly the same requests at the same offsets.
import { pseudoText } from "../sim/pseudo-text.ts";
import { SeededRandom } from "../util/seeded-random.ts";

export interface ChatWorkloadSpec {
  seed: number;
  conversations: number;
  /** Token length of each shared system prompt (one prompt per entry). */
  systemPromptTokens: number[];
  /** Inclusive ranges. */
  turns: [number, number];
  userTokens: [number, number];
  answerTokens: [number, number];
  /** Pause between an answer and the next question, in modelled seconds (divided by the speed factor). */
  thinkSeconds: [number, number];
  /** Conversations start uniformly within this many modelled seconds. */
  rampSeconds: number;
}

export interface ScriptedTurn {
  user: string;
  userTokens: number;
  maxTokens: number;
  /** Wall milliseconds to wait after the previous answer (0 for the first turn). */
  thinkMs: number;
}

export interface ScriptedConversation {
  id: number;
  systemPrompt: number;
  /** Wall milliseconds after the run starts. */
  startMs: number;
  turns: ScriptedTurn[];
}

export interface ChatWorkload {
  spec: ChatWorkloadSpec;
  speed: number;
  systemPrompts: string[];
  conversations: ScriptedConversation[];
  totalRequests: number;
}

/**
 * 40 conversations of 4–7 turns over 3 system prompts of 500–1200 tokens, answers of 200–400 tokens, users
 * thinking 6–20 s between turns. The shape of ordinary chat traffic: after a few turns the conversation's own
 * history outweighs the shared system prompt, which is what makes routing by prefix pay off.
 */
export const DEFAULT_WORKLOAD: Readonly<ChatWorkloadSpec> = Object.freeze({
  seed: 7,
  conversations: 40,
  systemPromptTokens: [500, 800, 1200],
  turns: [4, 7] as [number, number],
  userTokens: [40, 200] as [number, number],
  answerTokens: [200, 400] as [number, number],
  thinkSeconds: [6, 20] as [number, number],
  rampSeconds: 30,
});

/** A few seconds' worth of traffic, for tests. */
export const QUICK_WORKLOAD: Readonly<ChatWorkloadSpec> = Object.freeze({
  seed: 7,
  conversations: 6,
  systemPromptTokens: [400, 700],
  turns: [2, 3] as [number, number],
  userTokens: [20, 60] as [number, number],
  answerTokens: [8, 24] as [number, number],
  thinkSeconds: [0.5, 2] as [number, number],
  rampSeconds: 2,
});

export function buildChatWorkload(spec: ChatWorkloadSpec, speed: number): ChatWorkload {
  if (!(speed > 0)) throw new RangeError("speed must be positive");
  if (!Number.isInteger(spec.conversations) || spec.conversations < 1) throw new RangeError("conversations must be a positive integer");
  if (spec.systemPromptTokens.length === 0) throw new RangeError("at least one system prompt is needed");
  const systemPrompts = spec.systemPromptTokens.map((tokens, i) => pseudoText(spec.seed, `system/${i}`, tokens).text);
  const conversations: ScriptedConversation[] = [];
  let totalRequests = 0;
  for (let id = 0; id < spec.conversations; id++) {
    const rng = SeededRandom.derive(spec.seed, `conversation/${id}`);
    const systemPrompt = rng.int(systemPrompts.length);
    const startMs = (rng.uniform(0, spec.rampSeconds) * 1000) / speed;
    const count = rng.range(spec.turns[0], spec.turns[1]);
    const turns: ScriptedTurn[] = [];
    for (let t = 0; t < count; t++) {
      const userTokens = rng.range(spec.userTokens[0], spec.userTokens[1]);
      turns.push({
        user: pseudoText(spec.seed, `conversation/${id}/turn/${t}`, userTokens).text,
        userTokens,
        maxTokens: rng.range(spec.answerTokens[0], spec.answerTokens[1]),
        thinkMs: t === 0 ? 0 : (rng.uniform(spec.thinkSeconds[0], spec.thinkSeconds[1]) * 1000) / speed,
      });
    }
    totalRequests += count;
    conversations.push({ id, systemPrompt, startMs, turns });
  }
  return { spec, speed, systemPrompts, conversations, totalRequests };
}
