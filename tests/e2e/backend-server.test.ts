import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { startBackend, type BackendHandle } from "../../src-host/backend/server.ts";

let backend: BackendHandle;
let client: OpenAI;

before(async () => {
  backend = await startBackend({
    id: "pod-a", modelName: "sim-model", loraAdapters: ["sql-lora"], enablePromptTokensDetails: true,
    engine: { speed: 200, kvTokens: 32768 },
  });
  client = new OpenAI({ baseURL: `${backend.url}/v1`, apiKey: "unused", maxRetries: 0 });
});

after(async () => {
  await backend.close();
});

const SYSTEM = "You are the assistant of a public library. " + "Loans last thirty days and can be renewed twice. ".repeat(20);

/** Polls a condition; the bound only keeps a broken build from hanging, it is not a timing assertion. */
async function eventually(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond());
}

test("non-streaming chat answers with max_tokens filler tokens and full usage", async () => {
  const res = await client.chat.completions.create({
    model: "sim-model", max_tokens: 12, messages: [{ role: "user", content: "How long can I keep a book?" }],
  });
  assert.equal(res.object, "chat.completion");
  assert.equal(res.choices[0].message.role, "assistant");
  assert.equal(res.choices[0].finish_reason, "length");
  assert.equal(res.usage?.completion_tokens, 12);
  assert.equal(res.choices[0].message.content?.trim().split(" ").length, 12, "each filler word is one token");
  assert.ok((res.usage?.prompt_tokens ?? 0) > 0);
  assert.equal(res.usage?.total_tokens, (res.usage?.prompt_tokens ?? 0) + 12);
  // vLLM sets prompt_tokens_details only when some prompt tokens were cached; unset, it serializes as null.
  assert.equal(res.usage?.prompt_tokens_details, null);
});

test("the second turn of a chat sent to the same backend reuses the cached prefix", async () => {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: "Can I renew a book?" },
  ];
  const first = await client.chat.completions.create({ model: "sim-model", max_tokens: 40, messages });
  const p1 = first.usage!.prompt_tokens;
  messages.push({ role: "assistant", content: first.choices[0].message.content ?? "" });
  messages.push({ role: "user", content: "How many times?" });
  const second = await client.chat.completions.create({ model: "sim-model", max_tokens: 5, messages });
  const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
  // The first prompt plus all but the last answer token were in KV; full 16-token blocks are reused.
  assert.ok(cached >= Math.floor((p1 + 40 - 1) / 16) * 16, `cached ${cached}, first prompt ${p1}`);
  assert.ok(cached < second.usage!.prompt_tokens);
});

test("without --enable-prompt-tokens-details a cache hit is not reported in usage, as in vLLM", async () => {
  const plain = await startBackend({ engine: { speed: 200 } });
  try {
    const c = new OpenAI({ baseURL: `${plain.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "system", content: SYSTEM }, { role: "user", content: "Hours?" }];
    await c.chat.completions.create({ model: "sim-model", max_tokens: 2, messages });
    const second = await c.chat.completions.create({ model: "sim-model", max_tokens: 2, messages });
    assert.ok(plain.engine.metrics().prefixCacheHits > 0, "the second request did hit the cache");
    assert.equal(second.usage?.prompt_tokens_details, null);
  } finally {
    await plain.close();
  }
});

test("streaming chat sends role, content deltas, finish reason, usage and [DONE]", async () => {
  const stream = await client.chat.completions.create({
    model: "sim-model", max_completion_tokens: 7, stream: true, stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Tell me about opening hours." }],
  });
  const deltas: string[] = [];
  let role: string | undefined;
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    assert.equal(chunk.object, "chat.completion.chunk");
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    role ??= choice.delta.role;
    if (choice.delta.content) deltas.push(choice.delta.content);
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  assert.equal(role, "assistant");
  assert.equal(deltas.length, 7);
  assert.equal(finish, "length");
  assert.equal(usage?.completion_tokens, 7);
  // Nothing cached: the stream's usage leaves prompt_tokens_details out (vLLM's chunks exclude unset fields).
  assert.ok(usage !== undefined && usage !== null && !("prompt_tokens_details" in usage));
});

test("completions work streaming and not; without max_tokens the answer stops by itself", async () => {
  const plain = await client.completions.create({ model: "sim-model", prompt: "Once upon a time" });
  assert.equal(plain.choices[0].finish_reason, "stop");
  assert.equal(plain.usage?.completion_tokens, 64);
  const ids = await client.completions.create({ model: "sim-model", prompt: [1, 2, 3, 4, 5], max_tokens: 3 });
  assert.equal(ids.usage?.prompt_tokens, 5);
  const stream = await client.completions.create({ model: "sim-model", prompt: "Once", max_tokens: 4, stream: true });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
  assert.equal(text.trim().split(" ").length, 4);
});

test("LoRA adapters are served and reported", async () => {
  const res = await client.chat.completions.create({ model: "sql-lora", max_tokens: 2, messages: [{ role: "user", content: "q" }] });
  assert.equal(res.model, "sql-lora");
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), ["sim-model", "sql-lora"]);
  assert.match(backend.metricsText(), /^vllm:lora_requests_info\{max_lora="1",running_lora_adapters="",waiting_lora_adapters=""\} /m);
});

test("errors: malformed JSON, unknown model, bad max_tokens, unknown route, injected fault", async () => {
  const bad = await fetch(`${backend.url}/v1/chat/completions`, { method: "POST", body: "{nope" });
  assert.equal(bad.status, 400);
  assert.equal(bad.headers.get("x-backend-id"), "pod-a");
  const body = (await bad.json()) as { error: { type: string; code: number; message: string } };
  assert.equal(body.error.type, "BadRequestError");
  assert.equal(body.error.code, 400);

  await assert.rejects(
    client.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "x" }] }),
    (err: unknown) => err instanceof OpenAI.NotFoundError,
  );
  await assert.rejects(
    client.chat.completions.create({ model: "sim-model", max_tokens: 0, messages: [{ role: "user", content: "x" }] }),
    (err: unknown) => err instanceof OpenAI.BadRequestError,
  );
  await assert.rejects(
    client.chat.completions.create({ model: "sim-model", max_tokens: 40_000, messages: [{ role: "user", content: "x" }] }),
    (err: unknown) => err instanceof OpenAI.BadRequestError && /maximum context length/.test(err.message),
  );
  assert.equal((await fetch(`${backend.url}/v2/nothing`)).status, 404);

  backend.setFault({ status: 503 });
  await assert.rejects(
    client.chat.completions.create({ model: "sim-model", messages: [{ role: "user", content: "x" }] }),
    (err: unknown) => err instanceof OpenAI.APIError && err.status === 503,
  );
  backend.setFault(null);
});

test("health, models and metrics endpoints; x-backend-id on every response", async () => {
  const health = await fetch(`${backend.url}/health`);
  assert.equal(health.status, 200);
  assert.equal(health.headers.get("x-backend-id"), "pod-a");
  backend.setHealthy(false);
  assert.equal((await fetch(`${backend.url}/health`)).status, 503);
  backend.setHealthy(true);

  const metrics = await fetch(`${backend.url}/metrics`);
  assert.equal(metrics.status, 200);
  assert.match(metrics.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await metrics.text();
  assert.match(text, /^vllm:num_requests_waiting\{engine="0",model_name="sim-model"\} 0\.0$/m);
  const hits = Number(text.match(/^vllm:prefix_cache_hits_total\{engine="0",model_name="sim-model"\} (\S+)$/m)?.[1]);
  assert.equal(hits, backend.engine.metrics().prefixCacheHits);
  assert.ok(hits > 0, "earlier tests produced cache hits");
});

test("a client that goes away mid-stream frees its sequence and KV blocks", async () => {
  // Speed 1: the 5000-token answer would take half a minute, so only the abort can end it.
  const slow = await startBackend({ engine: { speed: 1 } });
  try {
    const slowClient = new OpenAI({ baseURL: `${slow.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const controller = new AbortController();
    const stream = await slowClient.chat.completions.create(
      { model: "sim-model", max_tokens: 5000, stream: true, messages: [{ role: "user", content: "Write a long story." }] },
      { signal: controller.signal },
    );
    let chunks = 0;
    try {
      for await (const _ of stream) {
        if (++chunks === 3) controller.abort();
      }
    } catch {
      // an aborted stream may end or throw, depending on timing
    }
    assert.ok(chunks >= 3);
    await eventually(() => slow.engine.numRunning === 0);
    assert.equal(slow.engine.kvUsage(), 0);
    assert.equal(slow.engine.metrics().requestSuccess.abort, 1);
    assert.ok(slow.engine.metrics().generationTokensTotal < 5000);
  } finally {
    await slow.close();
  }
});
