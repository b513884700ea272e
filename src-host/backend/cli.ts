// Runs one simulated vLLM backend: tsx src-host/backend/cli.ts --port 8001 --speed 10 --kv-tokens 65536
import { numberArg, parseCliArgs, usageError } from "../util/cli-args.ts";
import { DEFAULT_ENGINE_CONFIG } from "./engine.ts";
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
  --attention-ms-per-m-pairs X
                        prefill attention cost, ms per 10^6 (query, context) token pairs (default: the rate
                        --prefill-tps implies for an 8B model, 4.7 at 8000; 0 = free)
  --decode-ms-per-k-context X
                        decode KV-read cost, ms per 1000 context tokens of each decoding sequence per step
                        (default 0.052, an 8B model's 128 KiB per token at 2.5 TB/s; 0 = free)
  --max-tokens N        answer length when the client sets no max_tokens (default 64)
  --lora a,b            LoRA adapter names to serve
  --max-loras N         max_lora reported in vllm:lora_requests_info
  --enable-prompt-tokens-details
                        report usage.prompt_tokens_details.cached_tokens (off by default, as in vLLM)
  -h, --help            print this text and exit`;

const TOOL = "backend";
const values = parseCliArgs(TOOL, USAGE, {
  port: { type: "string", default: "8000" },
  host: { type: "string" },
  id: { type: "string" },
  model: { type: "string" },
  speed: { type: "string" },
  "kv-tokens": { type: "string", default: "65536" },
  "block-size": { type: "string" },
  "max-num-seqs": { type: "string" },
  "max-batch-tokens": { type: "string" },
  "max-model-len": { type: "string" },
  "prefill-tps": { type: "string" },
  "attention-ms-per-m-pairs": { type: "string" },
  "decode-ms-per-k-context": { type: "string" },
  "max-tokens": { type: "string" },
  lora: { type: "string" },
  "max-loras": { type: "string" },
  "enable-prompt-tokens-details": { type: "boolean" },
});

type Flag = "speed" | "kv-tokens" | "block-size" | "max-num-seqs" | "max-batch-tokens" | "max-model-len" | "prefill-tps" | "max-tokens" | "max-loras";
/** A flag's value, which must be > 0 (and whole unless `fractional`), or undefined when it is absent. */
function positive(flag: Flag, fractional = false): number | undefined {
  const text = values[flag];
  return text === undefined ? undefined : numberArg(TOOL, flag, text, { positive: true, integer: !fractional });
}
/** A flag's value, which must be a number >= 0, or undefined when it is absent. */
function nonNegative(flag: "attention-ms-per-m-pairs" | "decode-ms-per-k-context"): number | undefined {
  const text = values[flag];
  return text === undefined ? undefined : numberArg(TOOL, flag, text, { min: 0 });
}

const port = numberArg(TOOL, "port", values.port, { integer: true, min: 0, max: 65535 });
const engine = {
  speed: positive("speed", true),
  kvTokens: positive("kv-tokens")!,
  blockSize: positive("block-size"),
  maxNumSeqs: positive("max-num-seqs"),
  maxBatchTokens: positive("max-batch-tokens"),
  maxModelLen: positive("max-model-len"),
  prefillTokensPerSec: positive("prefill-tps", true),
  attentionMsPerMTokenPairs: nonNegative("attention-ms-per-m-pairs"),
  decodeMsPerKContextTokens: nonNegative("decode-ms-per-k-context"),
};
if (engine.kvTokens < (engine.blockSize ?? DEFAULT_ENGINE_CONFIG.blockSize)) usageError(TOOL, `--kv-tokens (${engine.kvTokens}) must hold at least one block of --block-size tokens`);

const backend = await startBackend({
  port,
  host: values.host,
  id: values.id,
  modelName: values.model,
  defaultMaxTokens: positive("max-tokens"),
  loraAdapters: values.lora ? values.lora.split(",").filter((s) => s.length > 0) : undefined,
  maxLoras: positive("max-loras"),
  enablePromptTokensDetails: values["enable-prompt-tokens-details"] === true,
  engine,
}).catch((e: NodeJS.ErrnoException) => {
  // A busy port or an address that is not this machine's is the user's to fix: one line.
  if (e.code === "EADDRINUSE" || e.code === "EACCES" || e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND" || e.code === "EAI_AGAIN") {
    usageError(TOOL, `cannot listen on ${values.host ?? "127.0.0.1"}:${port} (${e.code})`);
  }
  throw e;
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
