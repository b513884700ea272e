// Request bodies for the fuzzer: well-formed OpenAI chat/completions/responses and Anthropic messages bodies,
// their mutations (truncation, byte damage, wrong field types, duplicate keys, deep nesting, huge strings and
// numbers, escapes, invalid UTF-8), and random JSON values.
import { SeededRandom } from "../util/seeded-random.ts";

const enc = new TextEncoder();

export type BodyKind =
  | "chat" | "completions" | "responses" | "anthropic" | "random-json" | "truncated" | "byte-damage"
  | "wrong-type" | "duplicate-keys" | "deep-nesting" | "long-string" | "long-number" | "escapes"
  | "invalid-utf8" | "random-bytes";

export interface FuzzBody {
  kind: BodyKind;
  path: string;
  bytes: Uint8Array;
}

const MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "qwen2.5-7b", "m", "", "lora-adapter-1", "模型", "a\"b"];
const WORDS = ["alpha", "bravo", "kv", "cache", "prefix", "token", "ünïcödé", "😀", "\\n", "<|im_start|>", "\u0000"];

function words(rng: SeededRandom, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += rng.pick(WORDS) + " ";
  return s;
}

function content(rng: SeededRandom): unknown {
  const r = rng.int(5);
  if (r < 3) return words(rng, rng.size(400));
  if (r === 3) return [{ type: "text", text: words(rng, rng.size(50)) }, { type: "image_url", image_url: { url: "data:," } }];
  return null;
}

function messages(rng: SeededRandom): unknown[] {
  const roles = ["system", "user", "assistant", "tool", "developer", "weird"];
  const out: unknown[] = [];
  const n = rng.size(12);
  for (let i = 0; i < n; i++) {
    const m: Record<string, unknown> = { role: rng.pick(roles), content: content(rng) };
    if (rng.chance(0.1)) m.tool_calls = [{ id: "c" + i, type: "function", function: { name: "f", arguments: "{}" } }];
    if (rng.chance(0.05)) m.name = words(rng, 1);
    out.push(m);
  }
  return out;
}

/** A well-formed body of one of the supported API shapes, and the path it is sent to. */
export function realBody(rng: SeededRandom): { kind: BodyKind; path: string; value: Record<string, unknown> } {
  const model = rng.pick(MODELS);
  switch (rng.int(4)) {
    case 0: {
      const v: Record<string, unknown> = { model, messages: messages(rng), stream: rng.chance(0.5) };
      if (rng.chance(0.2)) v.tools = [{ type: "function", function: { name: "get", parameters: { type: "object" } } }];
      if (rng.chance(0.2)) v.max_tokens = rng.int(4096);
      return { kind: "chat", path: "/v1/chat/completions", value: v };
    }
    case 1: {
      const prompt = rng.chance(0.8) ? words(rng, rng.size(500)) : [rng.int(50000), rng.int(50000), rng.int(50000)];
      return { kind: "completions", path: "/v1/completions", value: { model, prompt, max_tokens: 16 } };
    }
    case 2: {
      const input = rng.chance(0.5) ? words(rng, rng.size(300)) : messages(rng);
      const v: Record<string, unknown> = { model, input };
      if (rng.chance(0.5)) v.instructions = words(rng, rng.size(100));
      return { kind: "responses", path: "/v1/responses", value: v };
    }
    default: {
      const v: Record<string, unknown> = { model, max_tokens: 64, messages: messages(rng) };
      if (rng.chance(0.6)) v.system = rng.chance(0.5) ? words(rng, rng.size(200)) : [{ type: "text", text: words(rng, 20) }];
      return { kind: "anthropic", path: "/v1/messages", value: v };
    }
  }
}

/** A random JSON value (any type at the top level). */
export function randomJson(rng: SeededRandom, depth = 0): unknown {
  const r = rng.int(depth > 4 ? 5 : 8);
  switch (r) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: return rng.pick([0, -1, 1e308, -1e-308, 5e-324, 2 ** 53 + 1, rng.next() * 1e6]);
    case 3: return words(rng, rng.size(20));
    case 4: return rng.int(100);
    case 5: {
      const a: unknown[] = [];
      for (let i = rng.size(8); i > 0; i--) a.push(randomJson(rng, depth + 1));
      return a;
    }
    default: {
      const o: Record<string, unknown> = {};
      const keys = ["model", "messages", "prompt", "input", "system", "instructions", "tools", "content", "role", "x"];
      for (let i = rng.size(8); i > 0; i--) o[rng.pick(keys)] = randomJson(rng, depth + 1);
      return o;
    }
  }
}

const WRONG_VALUES: unknown[] = [null, true, 0, -1.5, "", "text", [], [1, 2], {}, { a: 1 }, [[[]]], [null]];

/** Replaces one field anywhere in the value (top level or inside messages/content) with a wrong type. */
function wrongType(rng: SeededRandom, v: Record<string, unknown>): void {
  const targets: Array<Record<string, unknown>> = [v];
  for (const m of (Array.isArray(v.messages) ? v.messages : Array.isArray(v.input) ? v.input : []) as unknown[]) {
    if (m && typeof m === "object") targets.push(m as Record<string, unknown>);
  }
  const o = rng.pick(targets);
  const keys = [...Object.keys(o), "model", "messages", "content", "role", "system", "prompt", "input"];
  o[rng.pick(keys)] = rng.pick(WRONG_VALUES);
}

function nested(rng: SeededRandom, depth: number): string {
  const open = rng.chance(0.5) ? "[" : '{"a":';
  const close = open === "[" ? "]" : "}";
  return open.repeat(depth) + "1" + (rng.chance(0.8) ? close.repeat(depth) : "");
}

function invalidUtf8(rng: SeededRandom): Uint8Array {
  const bad = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xf0, 0x9f, 0x98]];
  return Uint8Array.from(rng.pick(bad));
}

function splice(a: Uint8Array, at: number, removed: number, insert: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length - removed + insert.length);
  out.set(a.subarray(0, at), 0);
  out.set(insert, at);
  out.set(a.subarray(at + removed), at + insert.length);
  return out;
}

const ESCAPES = ['\\u0000', '\\ud800', '\\udc00\\ud800', '\\uDBFF\\uDFFF', '\\"', '\\\\', '\\/', '\\b\\f\\n\\r\\t', '\\u', '\\x41', '\\uZZZZ', '\\'];

/** One fuzz body. `maxLong` bounds the long-string and long-number cases (bytes). */
export function generateBody(rng: SeededRandom, maxLong = 300_000): FuzzBody {
  const base = realBody(rng);
  const text = () => JSON.stringify(base.value);
  const kind = rng.int(16);
  switch (kind) {
    case 0: case 1: case 2: case 3:
      return { kind: base.kind, path: base.path, bytes: enc.encode(text()) };
    case 4:
      return { kind: "random-json", path: base.path, bytes: enc.encode(JSON.stringify(randomJson(rng)) ?? "null") };
    case 5: {
      const b = enc.encode(text());
      return { kind: "truncated", path: base.path, bytes: b.subarray(0, rng.int(b.length)) };
    }
    case 6: {
      let b: Uint8Array = enc.encode(text());
      for (let i = rng.range(1, 8); i > 0 && b.length > 0; i--) {
        const at = rng.int(b.length);
        const op = rng.int(3);
        if (op === 0) b[at] = rng.u32() & 0xff;
        else if (op === 1) b = splice(b, at, 1, new Uint8Array(0));
        else b = splice(b, at, 0, enc.encode(rng.pick(['"', "{", "}", "[", "]", ",", ":", "\\", "0", "e", "-", " "])));
      }
      return { kind: "byte-damage", path: base.path, bytes: b };
    }
    case 7:
      wrongType(rng, base.value);
      return { kind: "wrong-type", path: base.path, bytes: enc.encode(text()) };
    case 8: {
      // Duplicate keys: JSON.stringify cannot write them, so splice a second copy of a key in by hand.
      const t = text();
      const dup = rng.pick(['"model":"other",', '"model":7,', '"messages":[],', '"messages":"x",', '"prompt":"p",', '"model":"m","model":null,']);
      return { kind: "duplicate-keys", path: base.path, bytes: enc.encode(rng.chance(0.5) ? "{" + dup + t.slice(1) : t.slice(0, -1) + "," + dup.slice(0, -1) + "}") };
    }
    case 9: {
      const depth = rng.pick([10, 63, 64, 65, 200, 1024, 5000, 100_000]);
      const t = text();
      const inner = nested(rng, depth);
      const bytes = rng.chance(0.5) ? enc.encode(inner) : enc.encode(t.slice(0, -1) + ',"deep":' + inner + "}");
      return { kind: "deep-nesting", path: base.path, bytes };
    }
    case 10: {
      const n = rng.size(maxLong);
      const long = rng.pick(["a", "é", "😀", " ", "\\n"]).repeat(Math.max(1, Math.floor(n / 2)));
      const field = rng.pick(["model", "content", "prompt", "system", "x"]);
      const t = text();
      const bytes = field === "content"
        ? enc.encode(JSON.stringify({ model: "m", messages: [{ role: "user", content: long }] }))
        : enc.encode(t.slice(0, -1) + `,"${field}":"${long}"}`);
      return { kind: "long-string", path: base.path, bytes };
    }
    case 11: {
      const digits = "9".repeat(rng.size(Math.min(maxLong, 100_000)) + 1);
      const num = rng.pick([digits, "-" + digits, "0." + digits, "1e" + digits, digits + "e-99999", "1" + digits + ".5E+308", "-0", "01", "1.", ".5", "+1", "NaN", "Infinity"]);
      const t = text();
      const field = rng.pick(["model", "max_tokens", "messages", "x", "stream"]);
      return { kind: "long-number", path: base.path, bytes: enc.encode(t.slice(0, -1) + `,"${field}":${num}}`) };
    }
    case 12: {
      const esc = Array.from({ length: rng.range(1, 20) }, () => rng.pick(ESCAPES)).join("");
      const where = rng.pick(["model", "content", "key"]);
      const body = where === "key"
        ? `{"mo${esc}del":"m","model":"m","messages":[{"role":"user","content":"hi"}]}`
        : where === "model"
          ? `{"model":"${esc}","messages":[{"role":"user","content":"hi"}]}`
          : `{"model":"m","messages":[{"role":"user","content":"x${esc}y"}]}`;
      return { kind: "escapes", path: base.path, bytes: enc.encode(body) };
    }
    case 13: {
      let b: Uint8Array = enc.encode(text());
      for (let i = rng.range(1, 6); i > 0; i--) b = splice(b, rng.int(b.length + 1), 0, invalidUtf8(rng));
      return { kind: "invalid-utf8", path: base.path, bytes: b };
    }
    case 14: {
      // Invalid UTF-8 inside a string value of an otherwise valid body.
      const pre = enc.encode('{"model":"m');
      const mid = invalidUtf8(rng);
      const post = enc.encode('","messages":[{"role":"user","content":"a');
      const end = enc.encode('b"}]}');
      const parts = [pre, rng.chance(0.5) ? mid : new Uint8Array(0), post, invalidUtf8(rng), end];
      const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) { out.set(p, o); o += p.length; }
      return { kind: "invalid-utf8", path: base.path, bytes: out };
    }
    default:
      return { kind: "random-bytes", path: base.path, bytes: rng.bytes(rng.size(4096)) };
  }
}
