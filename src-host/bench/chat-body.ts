// OpenAI chat-completion request bodies of an exact byte size for the benches: a system prompt, a few earlier
// turns and a final question, with the mix real prompts have (mostly ASCII prose, some code with quotes,
// backslashes and newlines that JSON escapes, some multi-byte UTF-8). Variants of one size share everything up
// to the final question, as the turns of one conversation do, so a warm index matches their common prefix.
import { SeededRandom } from "../util/seeded-random.ts";

const WORDS = [
  "the", "model", "request", "token", "cache", "endpoint", "latency", "answer", "question", "context", "window",
  "prefix", "gateway", "queue", "scheduler", "batch", "throughput", "memory", "value", "result", "system", "user",
  "assistant", "function", "return", "error", "retry", "budget", "policy", "config", "metrics", "summary", "data",
];
const SPICE = [
  "\n", "\n\n", "\"quoted\"", "path\\to\\file", "\tindent", "naïve", "café", "über", "—", "中文", "日本語", "🙂",
  "{\"k\": [1, 2, 3]}", "if (a < b) { return x; }", "e.g.", "(see above)", "3.14159", "2024-06-01",
];

// Chinese prose: every character three UTF-8 bytes, the punctuation too (the full-width comma and full stop).
const CHINESE_WORDS = [
  "模型", "请求", "缓存", "端点", "延迟", "回答", "问题", "上下文", "窗口", "前缀", "网关", "队列", "调度器", "批处理",
  "吞吐量", "内存", "结果", "系统", "用户", "助手", "函数", "返回", "错误", "重试", "预算", "策略", "配置", "指标", "，", "。",
];

export type BenchScript = "mixed" | "chinese";

export const BENCH_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

/** Deterministic prose of about `chars` UTF-16 units: mostly ASCII words with some spice, or Chinese without spaces. */
export function prose(seed: number, chars: number, script: BenchScript = "mixed"): string {
  const rng = new SeededRandom(seed);
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const x = rng.u32();
    const word =
      script === "chinese" ? CHINESE_WORDS[(x >>> 8) % CHINESE_WORDS.length] : x % 11 === 0 ? SPICE[(x >>> 8) % SPICE.length] : WORDS[(x >>> 8) % WORDS.length];
    parts.push(word);
    length += word.length + (script === "chinese" ? 0 : 1);
  }
  return parts.join(script === "chinese" ? "" : " ").slice(0, chars);
}

/** ASCII words only (one byte per character, nothing to escape), exactly `n` characters. */
function asciiPadding(n: number): string {
  let out = "";
  for (let i = 0; out.length < n; i++) out += WORDS[(i * 7) % WORDS.length] + " ";
  return out.slice(0, n);
}

const encoder = new TextEncoder();

export interface ChatBody {
  text: string;
  bytes: Uint8Array;
}

/**
 * A chat body of exactly `targetBytes` UTF-8 bytes. The system prompt takes about 40% of it and three earlier
 * turns about 50%; `variant` changes only the final question. `script` "chinese" writes the messages in Chinese
 * (a third of the characters per byte; the final question's padding stays ASCII).
 */
export function chatBody(targetBytes: number, variant: number, seed = 1, script: BenchScript = "mixed"): ChatBody {
  const bytesPerChar = script === "chinese" ? 3 : 1.1;
  // Shrink the shares until the skeleton fits, then pad the final question to the exact size.
  for (let scale = 1; scale > 0.01; scale *= 0.8) {
    const share = (fraction: number) => Math.max(8, Math.floor((targetBytes * fraction * scale) / bytesPerChar));
    const messages: Array<{ role: string; content: string }> = [{ role: "system", content: prose(seed, share(0.4), script) }];
    for (let turn = 0; turn < 3; turn++) {
      messages.push({ role: "user", content: prose(seed * 31 + turn, share(0.05), script) });
      messages.push({ role: "assistant", content: prose(seed * 37 + turn, share(0.11), script) });
    }
    const question = { role: "user", content: `Question ${variant}: ` };
    messages.push(question);
    const request = { model: BENCH_MODEL, messages, stream: true, max_tokens: 512, temperature: 0.7 };
    const missing = targetBytes - encoder.encode(JSON.stringify(request)).length;
    if (missing < 0) continue;
    question.content += asciiPadding(missing);
    const text = JSON.stringify(request);
    const bytes = encoder.encode(text);
    if (bytes.length !== targetBytes) throw new Error(`chat body is ${bytes.length} bytes, wanted ${targetBytes}`);
    return { text, bytes };
  }
  throw new Error(`a chat body cannot be as small as ${targetBytes} bytes`);
}
