// What the scripted workload allows, computed from its token counts alone: the token hit rate if every turn
// reached the backend holding its conversation (and nothing was evicted), and the hit rate round robin can
// expect when shared system prompts stay cached everywhere and a turn finds its history with chance 1/N. Chat
// template tokens and partial KV blocks are ignored, so both are approximations.
import type { ChatWorkload } from "./chat-workload.ts";

export interface HitRateBounds {
  /** Every turn on its conversation's backend, nothing evicted. */
  affinity: number;
  /** Round robin over `backends`: system prompt always cached, history with probability 1/backends. */
  roundRobin: number;
  /** affinity / roundRobin: the hit-rate ratio the workload allows when no backend evicts anything. */
  ratio: number;
}

export function hitRateBounds(workload: ChatWorkload, backends: number): HitRateBounds {
  let prompt = 0;
  let affinity = 0;
  let roundRobin = 0;
  for (const conv of workload.conversations) {
    const system = workload.spec.systemPromptTokens[conv.systemPrompt];
    let history = 0;
    for (const turn of conv.turns) {
      const user = turn.userTokens;
      prompt += system + history + user;
      affinity += system + history;
      roundRobin += system + history / backends;
      history += user + turn.maxTokens;
    }
  }
  const a = prompt > 0 ? affinity / prompt : 0;
  const r = prompt > 0 ? roundRobin / prompt : 0;
  return { affinity: a, roundRobin: r, ratio: r > 0 ? a / r : 0 };
}

