// Runs one simulated vLLM backend: tsx src-host/backend/cli.ts --port 8001 --speed 10 --kv-tokens 65536
import { parseArgs } from "node:util";
import { startBackend } from "./server.ts";

const USAGE = `usage: tsx src-host/backend/cli.ts [options]
  --port N              listen port (default 8000; 0 = any free port)
  --host ADDR           listen address (default 127.0.0.1; 0.0.0.0 in containers)
  --id NAME             x-backend-id header value (default backend-<port>)
  --model NAME          served model name (default sim-model)
  --speed X             run X times faster than the modelled GPU (default 1)
  --kv-tokens N         KV cache capacity in tokens (default 65536)
  --block-size N        tokens per KV block (default 16)
  --max-num-seqs N      batch size limit (default 64)
  --max-batch-tokens N  per-step token budget (default 2048)
  --max-model-len N     longest prompt + output (default 32768, capped by the KV capacity)
  --prefill-tps N       prefill tokens per second (default 8000)
  --max-tokens N        answer length when the client sets no max_tokens (default 64)
  --lora a,b            LoRA adapter names to serve
  --max-loras N         max_lora reported in vllm:lora_requests_info`;

function num(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) {
    console.error(`--${name} must be a number, got ${v}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    port: { type: "string" }, host: { type: "string" }, id: { type: "string" }, model: { type: "string" },
    speed: { type: "string" }, "kv-tokens": { type: "string" }, "block-size": { type: "string" },
    "max-num-seqs": { type: "string" }, "max-batch-tokens": { type: "string" }, "max-model-len": { type: "string" },
    "prefill-tps": { type: "string" }, "max-tokens": { type: "string" }, lora: { type: "string" },
    "max-loras": { type: "string" }, help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const backend = await startBackend({
  port: num("port", values.port) ?? 8000,
  host: values.host,
  id: values.id,
  modelName: values.model,
  defaultMaxTokens: num("max-tokens", values["max-tokens"]),
  loraAdapters: values.lora ? values.lora.split(",").filter((s) => s.length > 0) : undefined,
  maxLoras: num("max-loras", values["max-loras"]),
  engine: {
    speed: num("speed", values.speed),
    kvTokens: num("kv-tokens", values["kv-tokens"]) ?? 65536,
    blockSize: num("block-size", values["block-size"]),
    maxNumSeqs: num("max-num-seqs", values["max-num-seqs"]),
    maxBatchTokens: num("max-batch-tokens", values["max-batch-tokens"]),
    maxModelLen: num("max-model-len", values["max-model-len"]),
    prefillTokensPerSec: num("prefill-tps", values["prefill-tps"]),
  },
});
const c = backend.engine.config;
console.log(
  `${backend.id} serving ${backend.modelName} on ${backend.url} ` +
    `(speed ${c.speed}, ${c.numGpuBlocks} KV blocks of ${c.blockSize} tokens, max_num_seqs ${c.maxNumSeqs})`,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void backend.close().then(() => process.exit(0));
  });
}
