// A ChatML-like chat template (the Qwen family uses this shape): every message becomes
// <|im_start|>role\n...<|im_end|>\n, tools are described in the system section at the start, and the
// prompt ends with <|im_start|>assistant\n. Markers are kept as separate segments so that they become
// single special token ids while message text is tokenized as plain text.
import { specialTokenId, type SpecialToken, type Tokenizer } from "./tokenizer.ts";

export type PromptSegment = { special: SpecialToken } | { text: string };

export class TemplateError extends Error {}

interface ToolCall {
  function?: { name?: unknown; arguments?: unknown };
}

const TOOLS_PREAMBLE =
  "# Tools\n\nYou can call the functions described below. Each line between <tools> and </tools> is one " +
  "function signature in JSON.\n<tools>\n";
const TOOLS_POSTAMBLE =
  "\n</tools>\n\nTo call a function, answer with a JSON object {\"name\": ..., \"arguments\": ...} between " +
  "<tool_call> and </tool_call>.";

/** Flattens OpenAI content (string, null, or an array of parts) to text. */
export function contentToText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new TemplateError("message content must be a string, null or an array of parts");
  const pieces: string[] = [];
  for (const part of content) {
    if (part === null || typeof part !== "object") throw new TemplateError("content part must be an object");
    const p = part as Record<string, unknown>;
    switch (p.type) {
      case "text":
        if (typeof p.text !== "string") throw new TemplateError("text part needs a string 'text'");
        pieces.push(p.text);
        break;
      case "image_url": {
        const image = p.image_url as { url?: unknown } | string | undefined;
        const url = typeof image === "string" ? image : image?.url;
        pieces.push(`<image url="${typeof url === "string" ? url : ""}">`);
        break;
      }
      case "input_audio":
        pieces.push("<audio>");
        break;
      default:
        throw new TemplateError(`unsupported content part type: ${String(p.type)}`);
    }
  }
  return pieces.join("\n");
}

function toolCallsText(calls: unknown): string {
  if (!Array.isArray(calls)) return "";
  let out = "";
  for (const call of calls as ToolCall[]) {
    const fn = call?.function;
    const name = typeof fn?.name === "string" ? fn.name : "";
    let args: unknown = fn?.arguments ?? {};
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        // keep the raw string: the model saw exactly what the client sent
      }
    }
    out += `\n<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  }
  return out;
}

function pushMessage(out: PromptSegment[], role: string, text: string): void {
  out.push({ special: "<|im_start|>" }, { text: `${role}\n` });
  if (text.length > 0) out.push({ text });
  out.push({ special: "<|im_end|>" }, { text: "\n" });
}

/** Renders chat messages (and optional tools) into prompt segments ending with the assistant prefix. */
export function renderChatPrompt(messages: unknown, tools?: unknown): PromptSegment[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new TemplateError("'messages' must be a non-empty array");
  }
  if (tools !== undefined && tools !== null && !Array.isArray(tools)) {
    throw new TemplateError("'tools' must be an array");
  }
  const out: PromptSegment[] = [];
  let first = 0;
  const hasTools = Array.isArray(tools) && tools.length > 0;
  if (hasTools) {
    const head = messages[0] as Record<string, unknown> | null;
    let system = "";
    if (head !== null && typeof head === "object" && head.role === "system") {
      system = contentToText(head.content) + "\n\n";
      first = 1;
    }
    const signatures = (tools as unknown[]).map((t) => JSON.stringify(t)).join("\n");
    pushMessage(out, "system", system + TOOLS_PREAMBLE + signatures + TOOLS_POSTAMBLE);
  }
  for (let i = first; i < messages.length; i++) {
    const m = messages[i] as Record<string, unknown> | null;
    if (m === null || typeof m !== "object" || typeof m.role !== "string") {
      throw new TemplateError(`messages[${i}] needs a string 'role'`);
    }
    let text = contentToText(m.content);
    if (m.role === "assistant") text += toolCallsText(m.tool_calls);
    if (m.role === "tool") {
      pushMessage(out, "user", `<tool_response>\n${text}\n</tool_response>`);
      continue;
    }
    pushMessage(out, m.role, text);
  }
  out.push({ special: "<|im_start|>" }, { text: "assistant\n" });
  return out;
}

/** The prompt of /v1/completions is used as is. */
export function renderCompletionPrompt(prompt: string): PromptSegment[] {
  return [{ text: prompt }];
}

export function segmentsToText(segments: readonly PromptSegment[]): string {
  let s = "";
  for (const seg of segments) s += "special" in seg ? seg.special : seg.text;
  return s;
}

export function segmentsToTokens(segments: readonly PromptSegment[], tokenizer: Tokenizer): number[] {
  const ids: number[] = [];
  for (const seg of segments) {
    if ("special" in seg) {
      ids.push(specialTokenId(seg.special));
    } else {
      const part = tokenizer.encode(seg.text);
      for (let i = 0; i < part.length; i++) ids.push(part[i]);
    }
  }
  return ids;
}
