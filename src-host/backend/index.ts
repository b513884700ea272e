// Public surface of the simulated vLLM backend.
export { computeBlockHashes, hashBlock, ROOT_BLOCK_HASH, rootBlockHash } from "./block-hash.ts";
export { renderChatPrompt, renderCompletionPrompt, segmentsToText, segmentsToTokens, type PromptSegment } from "./chat-template.ts";
export {
  DEFAULT_ENGINE_CONFIG, Engine, EngineRequestError, resolveEngineConfig,
  type EngineConfig, type EngineConfigInput, type EngineEvent, type EngineMetrics, type EngineRequest,
  type FinishedEvent, type FirstTokenEvent, type TokenEvent, type Usage,
} from "./engine.ts";
export { RealtimeEngineDriver } from "./engine-driver.ts";
export { fillerOutput } from "./filler-text.ts";
export { formatPromValue, renderVllmMetrics, type MetricsRenderOptions } from "./metrics.ts";
export { PrefixCache } from "./prefix-cache.ts";
export { startBackend, type BackendFault, type BackendHandle, type BackendOptions } from "./server.ts";
export { countTokens, encode, Tokenizer } from "./tokenizer.ts";
