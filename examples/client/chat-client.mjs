// Sends a few chat requests through the gateway: three conversations that each share a long system
// prompt and grow turn by turn, so requests of one conversation should keep landing on one backend.
// Prints which backend served each request (x-backend-id) and the picker's debug header when present.
// Usage: node examples/client/chat-client.mjs [gateway URL]   (default $GATEWAY_URL or http://127.0.0.1:10000)
const gateway = process.argv[2] ?? process.env.GATEWAY_URL ?? "http://127.0.0.1:10000";
const model = process.env.MODEL ?? "sim-model";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForGateway() {
  for (let attempt = 0; attempt < 60; attempt++) {
    try {
      const res = await fetch(`${gateway}/v1/models`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await sleep(1000);
  }
  throw new Error(`gateway ${gateway} did not answer /v1/models within 60 s`);
}

function systemPrompt(topic) {
  const line = `You are an assistant for ${topic}. Answer precisely, cite the relevant section, and keep a neutral tone. `;
  return line.repeat(40);
}

async function chat(messages) {
  const res = await fetch(`${gateway}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages, max_tokens: 32 }),
  });
  const body = await res.json();
  return {
    status: res.status,
    backend: res.headers.get("x-backend-id") ?? "?",
    debug: res.headers.get("x-endpoint-picker-debug"),
    answer: body?.choices?.[0]?.message?.content ?? JSON.stringify(body).slice(0, 120),
  };
}

await waitForGateway();
const topics = ["tax law", "marine biology", "compiler design"];
const conversations = topics.map((topic) => [{ role: "system", content: systemPrompt(topic) }]);
for (let turn = 1; turn <= 4; turn++) {
  for (let c = 0; c < conversations.length; c++) {
    const messages = conversations[c];
    messages.push({ role: "user", content: `Question ${turn} about ${topics[c]}: what comes next?` });
    const r = await chat(messages);
    console.log(`conversation ${c + 1} turn ${turn}: HTTP ${r.status} from ${r.backend}${r.debug ? `  [${r.debug}]` : ""}`);
    messages.push({ role: "assistant", content: r.answer });
  }
}
