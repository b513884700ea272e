// End to end: a backend killed while chats are running is routed around. Requests in flight on it when it dies
// may fail; once the plugin knows (Higress: the gateway's health check marked it Unhealthy; stock Envoy: the
// plugin's own /metrics poll failed and its snapshot expired, since override_host routes to a named host
// whatever its health) no client request fails and none reaches it.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import OpenAI from "openai";
import { startDemoCluster, type DemoCluster } from "../../src-host/demo/demo-cluster.ts";
import { pseudoText } from "../../src-host/sim/pseudo-text.ts";
import type { Flavor } from "../../src-host/host/vm.ts";

const MODEL = "sim-model";
const clusters: DemoCluster[] = [];
after(async () => {
  for (const c of clusters) await c.close();
});

/** Polls a condition; the bound only keeps a broken build from hanging, it is not a timing assertion. */
async function eventually(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond());
}

for (const flavor of ["higress", "envoy"] as const satisfies readonly Flavor[]) {
  test(`${flavor}: a killed backend is routed around once the health check notices`, async () => {
    const cluster = await startDemoCluster({
      backends: 3,
      engine: { speed: 50, kvTokens: 65_536 },
      modelName: MODEL,
      plugin: { wasm: readBuiltPlugin(flavor), flavor, workers: 2 },
      healthIntervalMs: 50,
    });
    clusters.push(cluster);
    const client = new OpenAI({ baseURL: `${cluster.gateway.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const conversations = Array.from({ length: 9 }, (_, c) => [
      { role: "system" as const, content: pseudoText(5, `failover ${c}`, 800).text },
    ] as OpenAI.Chat.ChatCompletionMessageParam[]);
    const turn = async (c: number, question: string) => {
      const messages = [...conversations[c], { role: "user" as const, content: question }];
      const { data: stream, response } = await client.chat.completions
        .create({ model: MODEL, max_tokens: 20, stream: true, messages })
        .withResponse();
      let answer = "";
      for await (const chunk of stream) answer += chunk.choices[0]?.delta?.content ?? "";
      conversations[c] = [...messages, { role: "assistant", content: answer }];
      return response.headers.get("x-backend-id")!;
    };

    const firstTurn = await Promise.all(conversations.map((_, c) => turn(c, "first question")));
    const victim = cluster.backends.find((b) => firstTurn.includes(b.id))!;
    const victimAddress = `127.0.0.1:${victim.port}`;
    const health = () => cluster.gateway.healthChecker.hosts().find((h) => h.address === victimAddress)!.healthStatus;
    assert.equal(health(), "Healthy");

    // Kill it while a round of turns is in flight: those may fail, they are not counted.
    const stat = (name: string) => Number(cluster.gateway.host!.scrape()[`endpoint_picker.${name}`] ?? 0);
    const pollFailuresBefore = stat("poll_failures");
    const inFlight = Promise.allSettled(conversations.map((_, c) => turn(c, "second question")));
    await victim.close();
    await inFlight;
    await eventually(() => health() === "Unhealthy");
    if (flavor === "envoy") {
      await eventually(() => stat("poll_failures") > pollFailuresBefore);
      // Each worker re-reads the shared poll results once its snapshot (metrics.snapshotTtlMs, 250 ms) expires.
      await new Promise((r) => setTimeout(r, 300));
    }

    // Every conversation, including those whose history lives on the dead backend, keeps being answered.
    const served: string[] = [];
    for (let round = 0; round < 3; round++) {
      const results = await Promise.allSettled(conversations.map((_, c) => turn(c, `question ${round} after the kill`)));
      for (const r of results) {
        assert.equal(r.status, "fulfilled", r.status === "rejected" ? String(r.reason) : "");
        if (r.status === "fulfilled") served.push(r.value);
      }
    }
    assert.equal(served.length, 27);
    const live = new Set(cluster.backends.filter((b) => b !== victim).map((b) => b.id));
    for (const id of served) assert.ok(live.has(id), `${id} is a live backend (killed: ${victim.id})`);
  });
}
