// Plays a scripted chat workload against an OpenAI-compatible endpoint with the official `openai` client,
// streaming: every turn resends the whole history plus the new question; the streamed answer joins the
// history. Measures, client-side, the time to the first content chunk of every request.
import OpenAI from "openai";
import { agentFetch, sessionAgent } from "./agent-fetch.ts";
import type { ChatWorkload, ScriptedConversation } from "./chat-workload.ts";

/** "session": one keep-alive connection per conversation; "pooled": the client's shared connection pool. */
export type ConnectionMode = "session" | "pooled";

export interface RequestSample {
  conversation: number;
  turn: number;
  /** Milliseconds after the run started. */
  startMs: number;
  /** Request start to the first non-empty content chunk; null when none arrived. */
  ttftMs: number | null;
  durationMs: number;
  outputTokens: number;
  /** x-backend-id of the answering backend. */
  backend: string | null;
  /** The picker's x-endpoint-picker-debug response header, when its debug.header option is on. */
  pickerDebug: string | null;
  error: string | null;
}

export interface RunProgress {
  done: number;
  errors: number;
  inFlight: number;
  total: number;
  elapsedMs: number;
}

export interface ConversationRunOptions {
  baseURL: string;
  model: string;
  connections: ConnectionMode;
  onRequestDone?: (sample: RequestSample, progress: RunProgress) => void;
}

export interface ConversationRunResult {
  samples: RequestSample[];
  wallMs: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export async function runConversations(workload: ChatWorkload, opts: ConversationRunOptions): Promise<ConversationRunResult> {
  const samples: RequestSample[] = [];
  const progress: RunProgress = { done: 0, errors: 0, inFlight: 0, total: workload.totalRequests, elapsedMs: 0 };
  const t0 = performance.now();
  const pooled = new OpenAI({ baseURL: opts.baseURL, apiKey: "demo", maxRetries: 0 });

  async function play(conv: ScriptedConversation): Promise<void> {
    await sleep(conv.startMs - (performance.now() - t0));
    const agent = opts.connections === "session" ? sessionAgent() : null;
    const client = agent ? new OpenAI({ baseURL: opts.baseURL, apiKey: "demo", maxRetries: 0, fetch: agentFetch(agent) }) : pooled;
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "system", content: workload.systemPrompts[conv.systemPrompt] }];
    try {
      for (let t = 0; t < conv.turns.length; t++) {
        const turn = conv.turns[t];
        await sleep(turn.thinkMs);
        messages.push({ role: "user", content: turn.user });
        const sample: RequestSample = {
          conversation: conv.id, turn: t, startMs: performance.now() - t0, ttftMs: null, durationMs: 0,
          outputTokens: 0, backend: null, pickerDebug: null, error: null,
        };
        progress.inFlight++;
        const started = performance.now();
        let answer = "";
        try {
          const { data: stream, response } = await client.chat.completions
            .create({
              model: opts.model, messages, max_tokens: turn.maxTokens, stream: true,
              stream_options: { include_usage: true },
            })
            .withResponse();
          sample.backend = response.headers.get("x-backend-id");
          sample.pickerDebug = response.headers.get("x-endpoint-picker-debug");
          let chunks = 0;
          let usageTokens: number | null = null;
          for await (const chunk of stream) {
            if (chunk.usage) usageTokens = chunk.usage.completion_tokens;
            const piece = chunk.choices[0]?.delta?.content;
            if (!piece) continue;
            if (sample.ttftMs === null) sample.ttftMs = performance.now() - started;
            answer += piece;
            chunks++;
          }
          sample.outputTokens = usageTokens ?? chunks;
          if (sample.ttftMs === null) sample.error = "no content streamed";
        } catch (e) {
          sample.error = e instanceof Error ? e.message : String(e);
        }
        sample.durationMs = performance.now() - started;
        progress.inFlight--;
        progress.done++;
        if (sample.error !== null) progress.errors++;
        progress.elapsedMs = performance.now() - t0;
        samples.push(sample);
        opts.onRequestDone?.(sample, progress);
        // A conversation cannot go on without its answer.
        if (sample.error !== null) return;
        messages.push({ role: "assistant", content: answer });
      }
    } finally {
      agent?.destroy();
    }
  }

  await Promise.all(workload.conversations.map(play));
  return { samples, wallMs: performance.now() - t0 };
}
