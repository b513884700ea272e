// The SIMD and scalar builds are the same program: the request extractor and the chunk-hash chain give identical
// canonical streams, statuses and chain hashes on varied bodies (multi-byte UTF-8, escapes, \u surrogates, ill-formed
// UTF-8, bodies of every length, streams cut at a cap), and the built plugins make identical decisions.
import { test } from "node:test";
import assert from "node:assert/strict";
import binaryen from "binaryen";
import { compileAs } from "../../src-host/wasm/compile-as.ts";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { pickerHost } from "../support/picker.ts";
import { chatBody } from "../../src-host/bench/chat-body.ts";

const HARNESS = "tests/guest/prompt-chain-harness.ts";

interface Harness {
  memory: WebAssembly.Memory;
  simd(): number;
  init(streamCap: number): void;
  alloc(size: number): number;
  extract(ptr: number, len: number, maxSteps: number): number;
  streamPtr(): number;
  streamLen(): number;
  extractFlags(): number;
  chainOf(ptr: number, len: number, chunkChars: number): number;
  hashAt(i: number): bigint;
  endAt(i: number): number;
}

async function harness(build: "standalone" | "standalone-simd"): Promise<Harness> {
  const { instance } = await WebAssembly.instantiate(await compileAs(HARNESS, build), {
    env: { abort() { throw new Error("harness aborted"); } },
  });
  return instance.exports as unknown as Harness;
}

interface Outcome {
  status: number;
  flags: number;
  stream: string;
  hashes: string[];
}

/** Extracts and chains `body` (its bytes placed at the very end of a fresh allocation) with one build. */
function run(h: Harness, body: Uint8Array, chunkChars: number): Outcome {
  const ptr = h.alloc(body.length);
  new Uint8Array(h.memory.buffer, ptr, body.length).set(body);
  const status = h.extract(ptr, body.length, 100_000);
  const sp = h.streamPtr();
  const len = h.streamLen();
  const stream = Buffer.from(new Uint8Array(h.memory.buffer, sp, len)).toString("hex");
  const n = h.chainOf(sp, len, chunkChars);
  const hashes: string[] = [];
  for (let i = 0; i < n; i++) hashes.push(`${h.endAt(i)}:${BigInt.asUintN(64, h.hashAt(i)).toString(16)}`);
  // The chain also runs on the raw body: arbitrary bytes, stray continuation bytes, every length.
  const m = h.chainOf(ptr, body.length, chunkChars);
  for (let i = 0; i < m; i++) hashes.push(`raw ${h.endAt(i)}:${BigInt.asUintN(64, h.hashAt(i)).toString(16)}`);
  return { status, flags: h.extractFlags(), stream, hashes };
}

let seed = 0x2545f491;
function random(n: number): number {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed % n;
}

const PIECES = [
  "plain ascii words ", "x", "\"", "\\", "/", "\n", "\t", "\r\n", "\b\f", "\u0000", "\u001a", "\u001b", "\u001f", "\u007f",
  "é", "naïve", "—", "中文", "日本語", "🙂", "𝄞", "\ud800", "\udc00", "\ud83d", "ab\ud83d\ude00cd", "{\"k\": [1, 2]}",
  "0123456789abcdef", "a".repeat(31), "b".repeat(47), "ü".repeat(17), "語".repeat(9),
];

function randomText(maxPieces: number): string {
  let s = "";
  const n = random(maxPieces);
  for (let i = 0; i < n; i++) s += PIECES[random(PIECES.length)];
  return s;
}

function randomBody(): Uint8Array {
  const shape = random(5);
  const messages: unknown[] = [];
  for (let i = random(6); i >= 0; i--) {
    const role = ["system", "user", "assistant", "tool"][random(4)];
    const content = random(4) === 0
      ? [{ type: "text", text: randomText(40) }, { type: "image_url", image_url: { url: randomText(4) } }]
      : randomText(60);
    messages.push(random(5) === 0 ? { content, role } : { role, content, name: random(3) === 0 ? randomText(3) : undefined });
  }
  const model = "m-" + randomText(3);
  let body: object;
  if (shape === 0) body = { model, prompt: randomText(80) };
  else if (shape === 1) body = { model, input: randomText(80), instructions: randomText(20) };
  else if (shape === 2) body = { messages, model, tools: [{ type: "function", function: { name: randomText(2) } }] };
  else if (shape === 3) body = { model, system: randomText(30), messages };
  else body = { model, messages, stream: true, temperature: 0.5 };
  const pretty = random(3) === 0 ? JSON.stringify(body, null, random(3)) : JSON.stringify(body);
  let bytes = new TextEncoder().encode(pretty);
  const damage = random(8);
  if (damage === 0 && bytes.length > 2) {
    // Ill-formed UTF-8 inside the document: bytes a TextEncoder never writes.
    const at = 1 + random(bytes.length - 2);
    const bad = [0x80, 0xbf, 0xc0, 0xc3, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff][random(10)];
    bytes = new Uint8Array([...bytes.subarray(0, at), bad, ...bytes.subarray(at)]);
  } else if (damage === 1 && bytes.length > 1) {
    bytes = bytes.subarray(0, random(bytes.length)); // cut anywhere
  }
  return bytes;
}

test("the SIMD and scalar builds of the extractor and chain agree byte for byte on varied bodies", async () => {
  const simd = await harness("standalone-simd");
  const scalar = await harness("standalone");
  assert.equal(simd.simd(), 1);
  assert.equal(scalar.simd(), 0);
  let compared = 0;
  let withChunks = 0;
  for (const cap of [1 << 20, 333, 64, 17]) {
    simd.init(cap);
    scalar.init(cap);
    for (let i = 0; i < 400; i++) {
      const body = randomBody();
      const chunkChars = [16, 17, 33, 64][random(4)];
      const a = run(simd, body, chunkChars);
      const b = run(scalar, body, chunkChars);
      assert.deepEqual(a, b, `body ${Buffer.from(body).toString("base64")} (cap ${cap}, chunkChars ${chunkChars})`);
      compared++;
      if (a.hashes.length > 0) withChunks++;
    }
  }
  assert.equal(compared, 1600);
  assert.ok(withChunks > 800, `most bodies reach a chunk (${withChunks})`);
});

test("bodies of every length from 0 to 300 bytes, with the string ending at each offset, agree", async () => {
  const simd = await harness("standalone-simd");
  const scalar = await harness("standalone");
  simd.init(1 << 16);
  scalar.init(1 << 16);
  for (let n = 0; n <= 300; n++) {
    const text = "é\\\"x".repeat(n).slice(0, n);
    const body = new TextEncoder().encode(JSON.stringify({ model: "m", prompt: text }));
    assert.deepEqual(run(simd, body, 16), run(scalar, body, 16), `length ${n}`);
  }
});

function usesSimd(wasm: Uint8Array): boolean {
  const mod = binaryen.readBinary(wasm);
  mod.setFeatures(binaryen.Features.All);
  const text = mod.emitText();
  mod.dispose();
  return /\bv128\.load\b/.test(text);
}

test("Chinese chat bodies (blocks of 3-byte characters), whole and with bytes changed, agree", async () => {
  const simd = await harness("standalone-simd");
  const scalar = await harness("standalone");
  simd.init(1 << 20);
  scalar.init(1 << 20);
  const swaps = [0x41, 0x80, 0xbf, 0xc3, 0xe0, 0xe4, 0xed, 0xef, 0xf0, 0xff];
  let compared = 0;
  for (const size of [700, 4096, 16 * 1024]) {
    for (let v = 0; v < 4; v++) {
      const whole = chatBody(size, v, 1 + v, "chinese").bytes;
      for (let k = 0; k < 12; k++) {
        const body = whole.slice();
        for (let c = 0; c < k % 3; c++) body[200 + random(body.length - 400)] = swaps[random(swaps.length)];
        const chunkChars = [16, 64, 512][k % 3];
        assert.deepEqual(run(simd, body, chunkChars), run(scalar, body, chunkChars), `${size} B, variant ${v}, round ${k}`);
        compared++;
      }
    }
  }
  assert.equal(compared, 144);
});

test("build/<flavor>.wasm uses SIMD and build/<flavor>.scalar.wasm does not", () => {
  for (const flavor of ["higress", "envoy"] as const) {
    assert.equal(usesSimd(readBuiltPlugin(flavor)), true, `${flavor}.wasm`);
    assert.equal(usesSimd(readBuiltPlugin(flavor, "scalar")), false, `${flavor}.scalar.wasm`);
  }
});

test("the SIMD and scalar plugins make identical decisions on a multi-turn workload", () => {
  const pods = [
    { address: "10.0.0.1:8000", waiting: 1, kv: 0.2 },
    { address: "10.0.0.2:8000", waiting: 0, kv: 0.5 },
    { address: "10.0.0.3:8000", waiting: 2, kv: 0.1 },
    { address: "10.0.0.4:8000", waiting: 0, kv: 0.3 },
  ];
  const config = { debug: { header: true }, prefix: { chunkChars: 32 } };
  const a = pickerHost({ config, wasm: readBuiltPlugin("higress") });
  const b = pickerHost({ config, wasm: readBuiltPlugin("higress", "scalar") });
  a.setPods(pods);
  b.setPods(pods);
  const conversations: Array<Array<{ role: string; content: string }>> = [];
  for (let c = 0; c < 6; c++) conversations.push([{ role: "system", content: randomText(40) + "中文 🙂 \"q\" \\ " }]);
  let decisions = 0;
  for (let turn = 0; turn < 40; turn++) {
    const conv = conversations[random(conversations.length)];
    conv.push({ role: "user", content: randomText(30) });
    const body = { model: "meta-llama/Llama-3.1-8B-Instruct", messages: conv };
    const sa = a.send(body);
    const sb = b.send(body);
    assert.equal(a.chosen(sa), b.chosen(sb), `turn ${turn}`);
    a.complete(sa);
    b.complete(sb);
    const ha = sa.state.responseHeaders?.get("x-endpoint-picker-debug");
    const hb = sb.state.responseHeaders?.get("x-endpoint-picker-debug");
    assert.ok(ha, "the debug header is there");
    assert.equal(ha, hb, `turn ${turn}`);
    if (a.chosen(sa)) decisions++;
    conv.push({ role: "assistant", content: randomText(30) });
  }
  assert.equal(decisions, 40);
  assert.ok(a.counter("prefix_hits") > 10, "later turns match earlier ones");
  assert.equal(a.counter("prefix_hits"), b.counter("prefix_hits"));
  assert.equal(a.counter("prefix_matched_chars"), b.counter("prefix_matched_chars"));
});
