// End to end: the official openai client, streaming and not, through the local gateway running the real
// picker build (both flavors: Higress, and stock Envoy with allow_on_headers_stop_iteration) to simulated vLLM
// backends. The answering backend is read from the x-backend-id response header.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import OpenAI from "openai";
import { agentFetch, sessionAgent } from "../../src-host/demo/agent-fetch.ts";
import { startDemoCluster, type DemoCluster } from "../../src-host/demo/demo-cluster.ts";
import { parseRequestLine } from "../../src-host/gateway/request-log.ts";
import { pseudoText } from "../../src-host/sim/pseudo-text.ts";
import type { Flavor } from "../../src-host/host/vm.ts";

const MODEL = "sim-model";

interface Fixture {
  cluster: DemoCluster;
  client: OpenAI;
  logs: string[];
  ids: Set<string>;
}

const clusters: DemoCluster[] = [];
after(async () => {
  for (const c of clusters) await c.close();
});

async function fixture(flavor: Flavor): Promise<Fixture> {
  const logs: string[] = [];
  const cluster = await startDemoCluster({
    backends: 3,
    engine: { speed: 50, kvTokens: 65_536 },
    modelName: MODEL,
    plugin: { wasm: readBuiltPlugin(flavor), flavor, workers: 2 },
    healthIntervalMs: 200,
    log: (line) => logs.push(line),
  });
  clusters.push(cluster);
  const client = new OpenAI({ baseURL: `${cluster.gateway.url}/v1`, apiKey: "unused", maxRetries: 0 });
  return { cluster, client, logs, ids: new Set(cluster.backends.map((b) => b.id)) };
}

function counter(cluster: DemoCluster, name: string): number {
  const v = cluster.gateway.host!.scrape()[`endpoint_picker.${name}`];
  return typeof v === "number" ? v : 0;
}

/** A system prompt of `tokens` words, different for every key. */
const systemPrompt = (key: string, tokens = 1500) => pseudoText(11, key, tokens).text;

for (const flavor of ["higress", "envoy"] as const) {
  describe(`${flavor} build`, () => {
    let f: Fixture;

    test("non-streaming chat through the gateway is answered by one of the backends", async () => {
      f = await fixture(flavor);
      const { data, response } = await f.client.chat.completions
        .create({ model: MODEL, max_tokens: 9, messages: [{ role: "system", content: systemPrompt("plain") }, { role: "user", content: "hello" }] })
        .withResponse();
      assert.equal(data.object, "chat.completion");
      assert.equal(data.usage?.completion_tokens, 9);
      assert.equal(data.choices[0].message.content?.trim().split(" ").length, 9);
      assert.ok(f.ids.has(response.headers.get("x-backend-id") ?? ""), `x-backend-id ${response.headers.get("x-backend-id")}`);
      assert.equal(counter(f.cluster, "decisions"), 1, "the picker decided");
      assert.deepEqual(f.cluster.gateway.stats().routes, { override: 1 });
    });

    test("streaming chat: role, one delta per token, usage, [DONE]", async () => {
      const { data: stream, response } = await f.client.chat.completions
        .create({
          model: MODEL, max_tokens: 12, stream: true, stream_options: { include_usage: true },
          messages: [{ role: "system", content: systemPrompt("stream") }, { role: "user", content: "tell me more" }],
        })
        .withResponse();
      assert.ok(f.ids.has(response.headers.get("x-backend-id") ?? ""));
      let deltas = 0;
      let role: string | undefined;
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        role ??= chunk.choices[0]?.delta?.role;
        if (chunk.choices[0]?.delta?.content) deltas++;
      }
      assert.equal(role, "assistant");
      assert.equal(deltas, 12);
      assert.equal(usage?.completion_tokens, 12);
    });

    test("the second turn of every chat reaches the backend that served its first turn", async () => {
      const before = counter(f.cluster, "prefix_hits");
      const conversations = 6;
      const first: string[] = [];
      const histories: OpenAI.Chat.ChatCompletionMessageParam[][] = [];
      // Each conversation keeps its own connection, as a chat frontend does; connections alternate workers.
      const agents = Array.from({ length: conversations }, () => sessionAgent());
      const clients = agents.map((a) => new OpenAI({ baseURL: `${f.cluster.gateway.url}/v1`, apiKey: "unused", maxRetries: 0, fetch: agentFetch(a) }));
      try {
        for (let c = 0; c < conversations; c++) {
          const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
            { role: "system", content: systemPrompt(`conversation ${c}`) },
            { role: "user", content: `first question of conversation ${c}` },
          ];
          const { data, response } = await clients[c].chat.completions.create({ model: MODEL, max_tokens: 30, messages }).withResponse();
          first.push(response.headers.get("x-backend-id")!);
          messages.push({ role: "assistant", content: data.choices[0].message.content ?? "" });
          histories.push(messages);
        }
        assert.ok(new Set(first).size > 1, `first turns spread over backends: ${first}`);
        for (let c = 0; c < conversations; c++) {
          histories[c].push({ role: "user", content: "and a follow-up" });
          const stream = await clients[c].chat.completions
            .create({ model: MODEL, max_tokens: 5, stream: true, messages: histories[c] })
            .withResponse();
          for await (const _ of stream.data);
          assert.equal(stream.response.headers.get("x-backend-id"), first[c], `conversation ${c}`);
        }
      } finally {
        for (const a of agents) a.destroy();
      }
      assert.ok(counter(f.cluster, "prefix_hits") - before >= conversations, "the follow-ups matched the index");
    });

    test("a malformed body fails open: a backend answers 400 and the plugin counts invalid_json", async () => {
      const before = counter(f.cluster, "fallback.invalid_json");
      const res = await fetch(`${f.cluster.gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"model": "sim-model", "messages": [{"role": "user", "content": "unterminated',
      });
      assert.equal(res.status, 400);
      assert.ok(f.ids.has(res.headers.get("x-backend-id") ?? ""), "the 400 comes from a backend, not the gateway");
      const body = (await res.json()) as { error: { message: string } };
      assert.match(body.error.message, /malformed JSON/);
      assert.equal(counter(f.cluster, "fallback.invalid_json"), before + 1);
      const line = f.logs.map(parseRequestLine).filter((r) => r !== null).at(-1)!;
      assert.equal(line.fallback, "invalid_json");
      assert.equal(line.status, "400");
      assert.equal(line.route, "fallback:no-override");
    });
  });
}
