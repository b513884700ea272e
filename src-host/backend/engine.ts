// A vLLM-like continuous-batching engine on an explicit clock (milliseconds). It never reads a clock or
// sets a timer itself: live code drives it from real time (engine-driver.ts), the cluster simulator from
// virtual time. Given the same calls it produces the same events.
//
// Model (vLLM v1 scheduler, simplified):
// - Each step first gives every running request its next tokens (1 when decoding, a prefill chunk
//   otherwise) within a token budget, then admits waiting requests FCFS while sequences and budget last and
//   the free KV blocks hold a request's whole sequence (not just its first chunk). Admission reuses cached
//   prefix blocks, so only uncached prompt tokens are computed.
// - When a running request needs a block and none is free, the most recently admitted running request
//   is preempted (blocks released, recomputed later). A request alone always fits (maxModelLen check),
//   so the engine cannot deadlock.
// - Step duration = (stepOverheadMs + decodePerSeqMs * decoding sequences + prefill tokens /
//   prefillTokensPerSec + attentionMsPerMTokenPairs * prefill attention pairs / 1e6 + decodeMsPerKContextTokens *
//   decoding sequences' context tokens / 1000) / speed. A prefill chunk of n tokens atop c computed ones attends
//   n * (c + (n + 1) / 2) (query, context) pairs (compute-bound, like the linear layers); a decode step reads the KV
//   of every decoding sequence's whole context (memory-bound, like the weight read the overhead stands for). So a
//   long uncached context is slow to prefill and a long cached one is worth keeping. Full blocks are cached as they
//   are scheduled (vLLM allocate_slots); the other effects of a step (tokens, finishing) land at its end.
// - With maxLoras set, a batch holds at most maxLoras distinct LoRA adapters (a waiting request with another one is
//   passed over for the step), and a step whose batch uses an adapter the engine does not keep loaded (the
//   maxCpuLoras most recently used) takes loraLoadMs longer per adapter it loads.
import { computeBlockHashes, hashBlock, rootBlockHash } from "./block-hash.ts";
import { Histogram, TTFT_BUCKETS_SECONDS, type HistogramSnapshot } from "./histogram.ts";
import { PrefixCache } from "./prefix-cache.ts";
import { RequestQueue } from "./request-queue.ts";

export interface EngineConfig {
  /** Tokens per KV block. */
  blockSize: number;
  /** KV capacity in blocks (vLLM num_gpu_blocks). */
  numGpuBlocks: number;
  /** Most sequences in one batch (vLLM max_num_seqs). */
  maxNumSeqs: number;
  /** Token budget of one step; long prompts are prefilled in chunks (vLLM max_num_batched_tokens). */
  maxBatchTokens: number;
  /** Longest prompt + max_tokens accepted (vLLM max_model_len); at most the KV capacity. */
  maxModelLen: number;
  /** Prefill throughput for uncached prompt tokens. */
  prefillTokensPerSec: number;
  /** Fixed cost of every step (one forward pass). */
  stepOverheadMs: number;
  /** Added step cost per decoding sequence in the batch. */
  decodePerSeqMs: number;
  /**
   * Prefill attention: ms per 10^6 (query token, context token) pairs, summed over the step's prefill chunks as
   * n * (tokens computed before the chunk + (n + 1) / 2). Unset: derived from prefillTokensPerSec (see
   * attentionCostFor). 0: attention is free (the cost model before this term).
   */
  attentionMsPerMTokenPairs: number;
  /**
   * Decode KV read: ms per 1000 context tokens of each decoding sequence, per step. Unset: derived from
   * stepOverheadMs (see kvReadCostFor). 0: KV reads are free.
   */
  decodeMsPerKContextTokens: number;
  /** Divides every duration: 10 runs ten times faster than the modelled GPU. */
  speed: number;
  /** Seeds the pseudo token ids generated when a request does not supply its output tokens. */
  seed: number;
  /**
   * Most distinct LoRA adapters in one batch (vLLM max_loras); 0: adapters are only labels (no limit, no load).
   * A waiting request whose adapter would exceed it is skipped for the step, as vLLM's scheduler does.
   */
  maxLoras: number;
  /** Adapters kept loaded, least recently used out (vLLM max_cpu_loras); 0: maxLoras. */
  maxCpuLoras: number;
  /** Time to load an adapter that is not kept loaded, added to the step whose batch first uses it. */
  loraLoadMs: number;
}

export type EngineConfigInput = Partial<EngineConfig> & {
  /** KV capacity in tokens; sets numGpuBlocks = floor(kvTokens / blockSize) unless numGpuBlocks is given. */
  kvTokens?: number;
};

// Unset, the two context costs are derived from the GPU speed the configuration already gives, with Llama-3-8B's
// shape (the 8B dense model that 8000 prefill tokens/s and a 6 ms step suggest), so a faster GPU is faster at both.
// Attention: a layer's linear layers cost 2 * 53,248 * 4096 FLOPs per token (q/k/v/o 4096 x (4096 + 2 * 1024 + 4096)
// plus MLP 3 x 4096 x 14,336 weights), its attention 4 * 4096 FLOPs per (query, context) pair (QK^T and AV, 32 heads
// x 128 dims); at the same achieved FLOP rate (8000 tokens/s is 112 TFLOP/s) a token's attention over 26,624 context
// tokens costs as much as its linear layers. KV read: a token's KV is 8 KV heads x 128 dims x 2 (K, V) x 32 layers x
// 2 bytes = 128 KiB; a decode step reads 7.5e9 x 2 bytes = 15.0 GB of weights, which the step overhead stands for
// (6 ms is 2.5 TB/s of HBM), so reading 114,516 tokens' KV costs one step overhead.
const ATTENTION_BREAK_EVEN_CONTEXT_TOKENS = 26_624;
const KV_TOKENS_PER_WEIGHT_READ = 114_516;

/** Prefill attention cost (ms per 10^6 token pairs) at the FLOP rate that `prefillTokensPerSec` implies. */
export function attentionCostFor(prefillTokensPerSec: number): number {
  return (1000 / prefillTokensPerSec) * (1e6 / ATTENTION_BREAK_EVEN_CONTEXT_TOKENS);
}

/** Decode KV-read cost (ms per 1000 context tokens) at the bandwidth that a step overhead of `stepOverheadMs` implies. */
export function kvReadCostFor(stepOverheadMs: number): number {
  return (stepOverheadMs * 1000) / KV_TOKENS_PER_WEIGHT_READ;
}

export const DEFAULT_ENGINE_CONFIG: Readonly<EngineConfig> = Object.freeze({
  blockSize: 16,
  numGpuBlocks: 4096,
  maxNumSeqs: 64,
  maxBatchTokens: 2048,
  maxModelLen: 32768,
  prefillTokensPerSec: 8000,
  stepOverheadMs: 6,
  decodePerSeqMs: 0.2,
  attentionMsPerMTokenPairs: attentionCostFor(8000),
  decodeMsPerKContextTokens: kvReadCostFor(6),
  speed: 1,
  seed: 0,
  maxLoras: 0,
  maxCpuLoras: 0,
  loraLoadMs: 0,
});

export function resolveEngineConfig(input: EngineConfigInput = {}): EngineConfig {
  const blockSize = input.blockSize ?? DEFAULT_ENGINE_CONFIG.blockSize;
  const numGpuBlocks =
    input.numGpuBlocks ??
    (input.kvTokens !== undefined ? Math.floor(input.kvTokens / blockSize) : DEFAULT_ENGINE_CONFIG.numGpuBlocks);
  const capacity = numGpuBlocks * blockSize;
  const config: EngineConfig = {
    ...DEFAULT_ENGINE_CONFIG,
    ...stripUndefined(input),
    blockSize,
    numGpuBlocks,
    maxModelLen: Math.min(input.maxModelLen ?? DEFAULT_ENGINE_CONFIG.maxModelLen, capacity),
  };
  config.attentionMsPerMTokenPairs = input.attentionMsPerMTokenPairs ?? attentionCostFor(config.prefillTokensPerSec);
  config.decodeMsPerKContextTokens = input.decodeMsPerKContextTokens ?? kvReadCostFor(config.stepOverheadMs);
  const positive: (keyof EngineConfig)[] = [
    "blockSize", "numGpuBlocks", "maxNumSeqs", "maxBatchTokens", "maxModelLen", "prefillTokensPerSec", "speed",
  ];
  for (const key of positive) {
    if (!(config[key] > 0) || !Number.isFinite(config[key])) throw new RangeError(`engine config ${key} must be > 0`);
  }
  for (const key of ["stepOverheadMs", "decodePerSeqMs", "attentionMsPerMTokenPairs", "decodeMsPerKContextTokens", "maxLoras", "maxCpuLoras", "loraLoadMs"] as const) {
    if (!(config[key] >= 0) || !Number.isFinite(config[key])) throw new RangeError(`engine config ${key} must be >= 0`);
  }
  if (config.maxCpuLoras === 0) config.maxCpuLoras = config.maxLoras;
  if (config.maxCpuLoras < config.maxLoras) throw new RangeError("engine config maxCpuLoras must be >= maxLoras");
  for (const key of ["blockSize", "numGpuBlocks", "maxNumSeqs", "maxBatchTokens", "maxModelLen", "maxLoras", "maxCpuLoras"] as const) {
    if (!Number.isInteger(config[key])) throw new RangeError(`engine config ${key} must be an integer`);
  }
  return config;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && k !== "kvTokens") (out as Record<string, unknown>)[k] = v;
  return out;
}

export type RequestId = string | number;

export interface EngineRequest {
  id: RequestId;
  promptTokens: ArrayLike<number>;
  /** Output tokens to generate at most (finish reason "length" when reached). */
  maxTokens: number;
  /**
   * Token ids the model "generates", in order. When shorter than maxTokens the request stops after them
   * (finish reason "stop"). Absent: deterministic pseudo ids. Real ids let a later turn that resends the
   * answer hit the blocks the answer filled, as in vLLM.
   */
  outputTokens?: ArrayLike<number>;
  /**
   * Precomputed computeBlockHashes(promptTokens, blockSize), from rootBlockHash(lora) for an adapter; read only,
   * saves rehashing per pod.
   */
  blockHashes?: readonly number[];
  /** Emit a "token" event per output token (live streaming). Off by default to keep simulations light. */
  streamTokens?: boolean;
  /** LoRA adapter name, reported in vllm:lora_requests_info. */
  lora?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export type FinishReason = "length" | "stop" | "abort";

export interface FirstTokenEvent {
  type: "first_token";
  id: RequestId;
  time: number;
  ttftMs: number;
  cachedTokens: number;
  promptTokens: number;
}

export interface TokenEvent {
  type: "token";
  id: RequestId;
  time: number;
  /** 0-based position in the output. */
  index: number;
  tokenId: number;
}

export interface FinishedEvent {
  type: "finished";
  id: RequestId;
  time: number;
  finishReason: Exclude<FinishReason, "abort">;
  usage: Usage;
  ttftMs: number;
  e2eMs: number;
  /** Arrival to first scheduling. */
  queuedMs: number;
  preemptions: number;
}

export type EngineEvent = FirstTokenEvent | TokenEvent | FinishedEvent;

export class EngineRequestError extends Error {}

export interface EngineMetrics {
  numRequestsRunning: number;
  numRequestsWaiting: number;
  /** Referenced KV blocks / all blocks, 0..1. */
  kvCacheUsage: number;
  prefixCacheQueries: number;
  prefixCacheHits: number;
  blockSize: number;
  numGpuBlocks: number;
  promptTokensTotal: number;
  generationTokensTotal: number;
  preemptionsTotal: number;
  requestSuccess: Record<FinishReason, number>;
  timeToFirstTokenSeconds: HistogramSnapshot;
  runningLoraAdapters: string[];
  waitingLoraAdapters: string[];
  /** Every adapter state seen at a step's end, first seen first, with how long ago (ms) it was last current. */
  loraStates?: LoraState[];
}

export interface LoraState {
  /** Adapter names joined by commas, as vllm:lora_requests_info labels them. */
  running: string;
  waiting: string;
  ageMs: number;
}

const WAITING = 0;
const RUNNING = 1;
const DONE = 2;

class Sequence {
  outputs: number[] = [];
  numComputed = 0;
  blocks: number[] = [];
  hashes: number[];
  /** Leading blocks already registered in the cache. */
  committedBlocks = 0;
  firstTokenTime = -1;
  firstScheduledTime = -1;
  cachedTokens = 0;
  preemptions = 0;
  state = WAITING;
  aborted = false;
  stepTokens = 0;
  readonly promptLen: number;
  readonly rootHash: number;

  constructor(
    readonly id: RequestId,
    readonly serial: number,
    readonly prompt: ArrayLike<number>,
    readonly maxTokens: number,
    readonly given: ArrayLike<number> | undefined,
    readonly stream: boolean,
    readonly lora: string | undefined,
    readonly arrival: number,
    hashes: readonly number[] | undefined,
  ) {
    this.promptLen = prompt.length;
    this.rootHash = rootBlockHash(lora);
    this.hashes = hashes ? hashes.slice() : [];
  }

  get numTokens(): number {
    return this.promptLen + this.outputs.length;
  }
}

export class Engine {
  readonly config: EngineConfig;
  readonly cache: PrefixCache;

  private readonly waiting = new RequestQueue<Sequence>();
  private running: Sequence[] = [];
  private readonly byId = new Map<RequestId, Sequence>();
  private pending: EngineEvent[] = [];
  private scheduled: Sequence[] = [];
  private inStep = false;
  private stepEnd = Infinity;
  /** Time the next step starts when not in a step; NaN when idle. */
  private startAt = NaN;
  private lastTime = -Infinity;
  /** No step starts before this time (stall). */
  private stalledUntil = -Infinity;
  private serial = 0;
  private readonly scratch: number[];
  /** Hashes first cached by the step in flight: vLLM publishes their KV events after its forward pass. */
  private readonly unannounced = new Set<number>();

  /**
   * The scheduler's gauges and counters as /metrics shows them: vLLM publishes them once per step, at its end
   * (Scheduler.update_from_output calls make_stats), so requests that arrived since, or during a hung step, do not
   * show yet.
   */
  private readonly published = {
    running: 0, waiting: 0, kvUsage: 0, prefixCacheQueries: 0, prefixCacheHits: 0, preemptions: 0, promptTokens: 0,
  };
  private promptTokensTotal = 0;
  private generationTokensTotal = 0;
  private preemptionsTotal = 0;
  private readonly requestSuccess: Record<FinishReason, number> = { length: 0, stop: 0, abort: 0 };
  private readonly ttft = new Histogram(TTFT_BUCKETS_SECONDS);
  private readonly runningLoras = new Map<string, number>();
  private readonly waitingLoras = new Map<string, number>();
  /** Adapter states by "running\nwaiting", with the end of the last step that had them (engine ms). */
  private readonly loraStates = new Map<string, { running: string; waiting: string; atMs: number }>();
  private currentLoraState: { running: string; waiting: string; atMs: number } | null = null;
  /** Adapters kept loaded (maxLoras > 0), least recently used first. */
  private readonly loadedLoras = new Set<string>();
  private loraLoadsTotal = 0;

  constructor(config: EngineConfigInput = {}) {
    this.config = resolveEngineConfig(config);
    this.cache = new PrefixCache({ numBlocks: this.config.numGpuBlocks, blockSize: this.config.blockSize });
    this.scratch = new Array(this.config.blockSize).fill(0);
  }

  get numWaiting(): number {
    return this.waiting.length;
  }

  get numRunning(): number {
    return this.running.length;
  }

  kvUsage(): number {
    return this.cache.usage();
  }

  /** Whether `lora` is kept loaded: a step using it pays no load (maxLoras > 0). */
  isLoraLoaded(lora: string): boolean {
    return this.loadedLoras.has(lora);
  }

  /** Adapter loads so far (maxLoras > 0). */
  get loraLoads(): number {
    return this.loraLoadsTotal;
  }

  /** Waiting requests as /metrics reports them (at the last step's end). */
  get reportedWaiting(): number {
    return this.published.waiting;
  }

  /** KV usage as /metrics reports it (at the last step's end). */
  reportedKvUsage(): number {
    return this.published.kvUsage;
  }

  /** Throws EngineRequestError when the request can never be served (vLLM answers 400). */
  validate(req: EngineRequest): void {
    const promptLen = req.promptTokens.length;
    if (promptLen < 1) throw new EngineRequestError("the prompt must contain at least one token");
    if (!Number.isInteger(req.maxTokens) || req.maxTokens < 1) {
      throw new EngineRequestError("max_tokens must be a positive integer");
    }
    if (promptLen + req.maxTokens > this.config.maxModelLen) {
      throw new EngineRequestError(
        `This model's maximum context length is ${this.config.maxModelLen} tokens. However, you requested ` +
          `${promptLen + req.maxTokens} tokens (${promptLen} in the messages, ${req.maxTokens} in the completion).`,
      );
    }
    if (req.outputTokens !== undefined && req.outputTokens.length < 1) {
      throw new EngineRequestError("outputTokens must not be empty");
    }
  }

  /** Queues a request arriving at `now`. Requests arriving at the same time share the next step. */
  submit(req: EngineRequest, now: number): void {
    this.validate(req);
    if (this.byId.has(req.id)) throw new EngineRequestError(`duplicate request id ${String(req.id)}`);
    this.run(now, false);
    const seq = new Sequence(
      req.id, this.serial++, req.promptTokens, req.maxTokens, req.outputTokens, req.streamTokens === true,
      req.lora, this.lastTime, req.blockHashes,
    );
    this.byId.set(req.id, seq);
    this.waiting.push(seq);
    this.countLora(this.waitingLoras, seq.lora, 1);
    if (!this.inStep && Number.isNaN(this.startAt)) this.startAt = Math.max(this.lastTime, this.stalledUntil);
  }

  /**
   * A hung engine: from `now` until `untilMs` it makes no progress (the step in flight ends that much later, no step
   * starts before `untilMs`), while requests still queue and the metrics still answer.
   */
  stall(now: number, untilMs: number): void {
    this.run(now, false);
    if (!(untilMs > this.lastTime)) return;
    if (this.inStep) this.stepEnd += untilMs - this.lastTime;
    else if (!Number.isNaN(this.startAt)) this.startAt = Math.max(this.startAt, untilMs);
    this.stalledUntil = untilMs;
  }

  /** Drops a request (client went away). Its blocks are released; no further events. */
  abort(id: RequestId, now: number): boolean {
    this.run(now, false);
    const seq = this.byId.get(id);
    if (seq === undefined || seq.aborted) return false;
    seq.aborted = true;
    this.requestSuccess.abort++;
    this.byId.delete(id);
    if (seq.state === WAITING) {
      this.waiting.remove(seq);
      this.countLora(this.waitingLoras, seq.lora, -1);
      seq.state = DONE;
    } else if (!this.inStep || !this.scheduled.includes(seq)) {
      this.retire(seq);
      this.running = this.running.filter((s) => s !== seq);
    }
    return true;
  }

  /** When the engine next changes state on its own; Infinity when idle. */
  nextEventTime(): number {
    if (this.inStep) return this.stepEnd;
    return Number.isNaN(this.startAt) ? Infinity : this.startAt;
  }

  /**
   * Runs every step boundary up to and including `now` and returns the events produced since the last
   * call (each stamped with its own time). Pass `out` to collect into a reused array instead.
   */
  advance(now: number, out?: EngineEvent[]): EngineEvent[] {
    this.run(now, true);
    if (out === undefined) {
      const events = this.pending;
      this.pending = [];
      return events;
    }
    for (let i = 0; i < this.pending.length; i++) out.push(this.pending[i]);
    this.pending.length = 0;
    return out;
  }

  /** What /metrics reports: the gauges and scheduler counters as of the last step's end. */
  metrics(): EngineMetrics {
    const p = this.published;
    return {
      numRequestsRunning: p.running,
      numRequestsWaiting: p.waiting,
      kvCacheUsage: p.kvUsage,
      prefixCacheQueries: p.prefixCacheQueries,
      prefixCacheHits: p.prefixCacheHits,
      blockSize: this.config.blockSize,
      numGpuBlocks: this.config.numGpuBlocks,
      promptTokensTotal: p.promptTokens,
      generationTokensTotal: this.generationTokensTotal,
      preemptionsTotal: p.preemptions,
      requestSuccess: { ...this.requestSuccess },
      timeToFirstTokenSeconds: this.ttft.snapshot(),
      runningLoraAdapters: [...this.runningLoras.keys()],
      waitingLoraAdapters: [...this.waitingLoras.keys()],
      loraStates: [...this.loraStates.values()].map((s) => ({ running: s.running, waiting: s.waiting, ageMs: this.lastTime - s.atMs })),
    };
  }

  private run(now: number, inclusiveStart: boolean): void {
    if (Number.isNaN(now)) throw new RangeError("time must be a number");
    if (now < this.lastTime) now = this.lastTime;
    for (;;) {
      if (this.inStep) {
        if (this.stepEnd > now) break;
        this.completeStep();
      } else if (!Number.isNaN(this.startAt) && (this.startAt < now || (inclusiveStart && this.startAt <= now))) {
        this.beginStep(this.startAt);
      } else {
        break;
      }
    }
    this.lastTime = now;
  }

  private beginStep(at: number): void {
    this.startAt = NaN;
    const cfg = this.config;
    const cache = this.cache;
    const scheduled = this.scheduled;
    scheduled.length = 0;
    let budget = cfg.maxBatchTokens;
    let prefillTokens = 0;
    let attentionPairs = 0;
    let decodeSeqs = 0;
    let decodeContextTokens = 0;
    let preempted = false;

    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const seq = this.running[i];
      const n = Math.min(seq.numTokens - seq.numComputed, budget);
      let selfPreempted = false;
      while (!cache.grow(seq.blocks, seq.numComputed + n)) {
        const victim = this.running.pop()!;
        this.preempt(victim);
        preempted = true;
        if (victim === seq) {
          selfPreempted = true;
          break;
        }
      }
      if (selfPreempted) break;
      seq.stepTokens = n;
      budget -= n;
      scheduled.push(seq);
      this.cacheScheduledBlocks(seq);
      if (n === 1 && seq.outputs.length > 0 && seq.numComputed === seq.numTokens - 1) {
        decodeSeqs++;
        decodeContextTokens += seq.numTokens;
      } else {
        prefillTokens += n;
        attentionPairs += prefillPairs(seq.numComputed, n);
      }
    }

    // vLLM v1 Scheduler.schedule: the adapters of the running requests scheduled this step, then of each admitted one.
    const batchLoras = cfg.maxLoras > 0 ? this.scheduledLoras(scheduled) : null;
    let skipped: Sequence[] | null = null;
    if (!preempted || scheduled.length === 0) {
      while (this.waiting.length > 0 && this.running.length < cfg.maxNumSeqs && budget > 0) {
        const seq = this.waiting.peek()!;
        if (batchLoras !== null && seq.lora !== undefined && batchLoras.size === cfg.maxLoras && !batchLoras.has(seq.lora)) {
          // "Scheduling would exceed max_loras, skip": skipped requests go back to the queue's head, in order.
          (skipped ??= []).push(this.waiting.shift()!);
          continue;
        }
        const numTokens = seq.numTokens;
        this.extendHashes(seq, numTokens);
        const firstAdmission = seq.firstScheduledTime < 0;
        // Lookups of preempted requests go to vLLM's separate preempted counters, which /metrics leaves out.
        const hit = cache.admit(seq.hashes, numTokens, budget, seq.blocks, seq.preemptions === 0);
        if (hit < 0) break;
        this.waiting.shift();
        this.countLora(this.waitingLoras, seq.lora, -1);
        this.countLora(this.runningLoras, seq.lora, 1);
        seq.state = RUNNING;
        if (batchLoras !== null && seq.lora !== undefined) batchLoras.add(seq.lora);
        seq.numComputed = hit;
        seq.committedBlocks = hit / cfg.blockSize;
        if (firstAdmission) {
          seq.firstScheduledTime = at;
          seq.cachedTokens = hit;
        }
        const n = Math.min(numTokens - hit, budget);
        seq.stepTokens = n;
        budget -= n;
        prefillTokens += n;
        attentionPairs += prefillPairs(hit, n);
        this.running.push(seq);
        scheduled.push(seq);
        this.cacheScheduledBlocks(seq);
      }
    }
    if (skipped !== null) for (let i = skipped.length - 1; i >= 0; i--) this.waiting.unshift(skipped[i]);

    if (scheduled.length === 0) {
      // Every request was aborted before this step: go idle, the next submit wakes the engine.
      if (this.running.length > 0 || this.waiting.length > 0) {
        throw new Error("engine invariant broken: requests present but none schedulable");
      }
      return;
    }
    const ms =
      cfg.stepOverheadMs + cfg.decodePerSeqMs * decodeSeqs + (prefillTokens * 1000) / cfg.prefillTokensPerSec +
      (cfg.attentionMsPerMTokenPairs * attentionPairs) / 1e6 + (cfg.decodeMsPerKContextTokens * decodeContextTokens) / 1000 +
      (batchLoras !== null ? this.loadLoras(batchLoras) * cfg.loraLoadMs : 0);
    this.inStep = true;
    this.stepEnd = at + ms / cfg.speed;
  }

  private completeStep(): void {
    const now = this.stepEnd;
    this.unannounced.clear();
    this.inStep = false;
    this.stepEnd = Infinity;
    let anyRetired = false;
    for (const seq of this.scheduled) {
      if (seq.aborted) {
        this.retire(seq);
        anyRetired = true;
        continue;
      }
      seq.numComputed += seq.stepTokens;
      if (seq.numComputed < seq.numTokens) continue;
      const k = seq.outputs.length;
      const token = seq.given !== undefined ? seq.given[k] : pseudoToken(this.config.seed, seq.serial, k);
      seq.outputs.push(token);
      this.generationTokensTotal++;
      if (k === 0) {
        seq.firstTokenTime = now;
        // vLLM counts the prompt with its first token (IterationStats.update_from_output), as it does the TTFT.
        this.promptTokensTotal += seq.promptLen;
        this.ttft.observe((now - seq.arrival) / 1000);
        this.pending.push({
          type: "first_token", id: seq.id, time: now, ttftMs: now - seq.arrival,
          cachedTokens: seq.cachedTokens, promptTokens: seq.promptLen,
        });
      }
      if (seq.stream) this.pending.push({ type: "token", id: seq.id, time: now, index: k, tokenId: token });
      const produced = k + 1;
      const reason = produced >= seq.maxTokens ? "length" : seq.given !== undefined && produced >= seq.given.length ? "stop" : null;
      if (reason !== null) {
        this.requestSuccess[reason]++;
        this.byId.delete(seq.id);
        this.retire(seq);
        anyRetired = true;
        this.pending.push({
          type: "finished", id: seq.id, time: now, finishReason: reason,
          usage: { promptTokens: seq.promptLen, completionTokens: produced, cachedTokens: seq.cachedTokens },
          ttftMs: seq.firstTokenTime - seq.arrival, e2eMs: now - seq.arrival,
          queuedMs: seq.firstScheduledTime - seq.arrival, preemptions: seq.preemptions,
        });
      }
    }
    this.scheduled.length = 0;
    if (anyRetired) this.running = this.running.filter((s) => s.state === RUNNING);
    if (this.running.length > 0 || this.waiting.length > 0) this.startAt = now;
    this.publish(now);
  }

  private publish(now: number): void {
    const p = this.published;
    p.running = this.running.length;
    p.waiting = this.waiting.length;
    p.kvUsage = this.cache.usage();
    p.prefixCacheQueries = this.cache.queriesTotal;
    p.prefixCacheHits = this.cache.hitsTotal;
    p.preemptions = this.preemptionsTotal;
    p.promptTokens = this.promptTokensTotal;
    // vLLM sets vllm:lora_requests_info through labels(running, waiting).set_to_current_time() at every step, so each
    // state seen keeps a series valued the time it was last current (v1/metrics/loggers.py PrometheusStatLogger.record).
    if (this.currentLoraState === null) this.currentLoraState = this.loraState();
    this.currentLoraState.atMs = now;
  }

  private loraState(): { running: string; waiting: string; atMs: number } {
    const running = [...this.runningLoras.keys()].join(",");
    const waiting = [...this.waitingLoras.keys()].join(",");
    const key = `${running}\n${waiting}`;
    let state = this.loraStates.get(key);
    if (state === undefined) this.loraStates.set(key, (state = { running, waiting, atMs: 0 }));
    return state;
  }

  /** Releases a running sequence's blocks and marks it done; the caller drops it from `running`. */
  private retire(seq: Sequence): void {
    this.cache.release(seq.blocks);
    seq.blocks = [];
    if (seq.state === RUNNING) this.countLora(this.runningLoras, seq.lora, -1);
    seq.state = DONE;
  }

  private preempt(seq: Sequence): void {
    this.cache.release(seq.blocks);
    seq.blocks = [];
    seq.numComputed = 0;
    seq.committedBlocks = 0;
    seq.preemptions++;
    seq.state = WAITING;
    this.preemptionsTotal++;
    this.countLora(this.runningLoras, seq.lora, -1);
    this.countLora(this.waitingLoras, seq.lora, 1);
    this.waiting.unshift(seq);
  }

  /**
   * Caches the full blocks this step fills for the sequence as it is scheduled, not when the step ends: a request
   * admitted later in the same step hits them (each layer writes the batch's KV before attending over it).
   */
  private cacheScheduledBlocks(seq: Sequence): void {
    const full = Math.floor((seq.numComputed + seq.stepTokens) / this.config.blockSize);
    if (seq.committedBlocks >= full) return;
    this.extendHashes(seq, full * this.config.blockSize);
    for (let b = seq.committedBlocks; b < full; b++) {
      const h = seq.hashes[b];
      if (!this.cache.isCached(h)) this.unannounced.add(h);
      this.cache.cacheBlock(seq.blocks[b], h);
    }
    seq.committedBlocks = full;
  }

  /**
   * Cached tokens of a sequence as an index fed by vLLM's KV events knows them: the blocks first cached by the step
   * in flight are left out until it ends. No side effects, no stats.
   */
  announcedCachedTokens(hashes: ArrayLike<number>, numTokens: number): number {
    const n = this.cache.countHitBlocks(hashes, numTokens);
    let k = 0;
    if (this.unannounced.size === 0) k = n;
    else while (k < n && !this.unannounced.has(hashes[k])) k++;
    return k * this.config.blockSize;
  }

  /** Extends the sequence's hash chain to cover the full blocks of its first `numTokens` tokens. */
  private extendHashes(seq: Sequence, numTokens: number): void {
    const bs = this.config.blockSize;
    const full = Math.floor(numTokens / bs);
    const promptBlocks = Math.floor(seq.promptLen / bs);
    if (seq.hashes.length < Math.min(full, promptBlocks)) {
      computeBlockHashes(seq.prompt, bs, seq.hashes, Math.min(full, promptBlocks) * bs, seq.rootHash);
    }
    let parent = seq.hashes.length > 0 ? seq.hashes[seq.hashes.length - 1] : seq.rootHash;
    const scratch = this.scratch;
    for (let b = seq.hashes.length; b < full; b++) {
      const start = b * bs;
      for (let i = 0; i < bs; i++) {
        const pos = start + i;
        scratch[i] = pos < seq.promptLen ? seq.prompt[pos] : seq.outputs[pos - seq.promptLen];
      }
      parent = hashBlock(parent, scratch, 0, bs);
      seq.hashes.push(parent);
    }
  }

  private scheduledLoras(scheduled: readonly Sequence[]): Set<string> {
    const loras = new Set<string>();
    for (const seq of scheduled) if (seq.lora !== undefined) loras.add(seq.lora);
    return loras;
  }

  /**
   * Makes the batch's adapters loaded, least recently used out, and returns how many had to be loaded: vLLM's worker
   * loads an adapter it does not keep before the forward pass that uses it (lora/worker_manager.py
   * LRUCacheWorkerLoRAManager._apply_adapters, add_adapter: _load_adapter, then the oldest out past max_cpu_loras).
   */
  private loadLoras(batch: ReadonlySet<string>): number {
    const loaded = this.loadedLoras;
    let loads = 0;
    for (const lora of batch) {
      if (!loaded.delete(lora)) loads++;
      loaded.add(lora);
    }
    for (const oldest of loaded) {
      if (loaded.size <= this.config.maxCpuLoras) break;
      loaded.delete(oldest);
    }
    this.loraLoadsTotal += loads;
    return loads;
  }

  private countLora(map: Map<string, number>, lora: string | undefined, delta: number): void {
    if (lora === undefined) return;
    this.currentLoraState = null;
    const n = (map.get(lora) ?? 0) + delta;
    if (n > 0) map.set(lora, n);
    else map.delete(lora);
  }
}

/** (query, context) pairs a causal prefill chunk of n tokens atop `computedBefore` computed ones attends. */
function prefillPairs(computedBefore: number, n: number): number {
  return n * computedBefore + (n * (n + 1)) / 2;
}

/** Deterministic stand-in token id for output position k of the request with this serial. */
function pseudoToken(seed: number, serial: number, k: number): number {
  let h = Math.imul(serial ^ 0x5bd1_e995, 0x9e37_79b1) ^ Math.imul(k + 1, 0x85eb_ca77) ^ seed;
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b_3c6d);
  h ^= h >>> 12;
  return 1000 + ((h >>> 0) % 150_000);
}
