// A simulated vLLM pod: the backend Engine plus what the cluster knows about it (address, up/down) and
// the gateway-side counters some policies read (requests in flight, prefill work not yet started).
import { Engine, type EngineConfigInput } from "../backend/engine.ts";
import type { PodsSpec } from "./workload.ts";

export function podAddress(id: number): string {
  const n = id + 1;
  return `10.0.${n >> 8}.${n & 255}:8000`;
}

/** Pod `podId`'s engine: the pool's spec, with its variant's KV capacity and speed when it has one. */
export function engineConfig(spec: PodsSpec, seed: number, podId = -1): EngineConfigInput {
  const variant = spec.variants?.find((v) => v.pods.includes(podId));
  return {
    blockSize: spec.blockTokens,
    kvTokens: variant?.kvTokens ?? spec.kvTokens,
    speed: variant?.speed ?? 1,
    maxNumSeqs: spec.maxNumSeqs,
    maxBatchTokens: spec.maxBatchTokens,
    maxModelLen: Number.MAX_SAFE_INTEGER,
    prefillTokensPerSec: spec.prefillTokensPerSec,
    stepOverheadMs: spec.decodeStepMs.baseMs,
    decodePerSeqMs: spec.decodeStepMs.perSequenceMs,
    attentionMsPerMTokenPairs: spec.attentionMsPerMTokenPairs,
    decodeMsPerKContextTokens: spec.decodeStepMs.perKContextTokensMs,
    seed,
    maxLoras: spec.lora?.maxLoras,
    maxCpuLoras: spec.lora?.maxCpuLoras,
    loraLoadMs: spec.lora?.loadMs,
  };
}

export class SimPod {
  engine: Engine;
  readonly address: string;
  /** False while restarting, and once removed (a removed pod also leaves the pod list). */
  up = true;
  /** Requests sent to this pod and not finished (the gateway's view). */
  inflight = 0;
  /** Uncached prompt tokens of requests sent and not yet at their first token. */
  pendingPrefillTokens = 0;
  /** Position in the simulator's pod heap (-1 when absent). */
  heapIndex = -1;
  /** Creation time (ms), for the metrics' _created series. */
  createdMs: number;

  constructor(
    readonly id: number,
    private readonly config: EngineConfigInput,
    nowMs: number,
  ) {
    this.address = podAddress(id);
    this.engine = new Engine(config);
    this.createdMs = nowMs;
  }

  /** Adapter loads of the engines before the last restart. */
  private earlierLoraLoads = 0;

  /** A restart loses the KV cache, the adapters loaded and every request on the pod. */
  restart(nowMs: number): void {
    this.earlierLoraLoads += this.engine.loraLoads;
    this.engine = new Engine(this.config);
    this.inflight = 0;
    this.pendingPrefillTokens = 0;
    this.createdMs = nowMs;
  }

  /**
   * Steps that start from now on take `factor` times as long (1: the pod's own speed again). The step in flight
   * keeps its length; a restart brings the pod's own speed back.
   */
  slowDown(factor: number): void {
    this.engine.config.speed = (this.config.speed ?? 1) / factor;
  }

  get numWaiting(): number {
    return this.engine.numWaiting;
  }

  get numRunning(): number {
    return this.engine.numRunning;
  }

  kvUsage(): number {
    return this.engine.kvUsage();
  }

  /** Waiting requests as a scrape of the pod's /metrics reads them (as of its last step's end). */
  get reportedWaiting(): number {
    return this.engine.reportedWaiting;
  }

  /** KV usage as a scrape of the pod's /metrics reads it. */
  reportedKvUsage(): number {
    return this.engine.reportedKvUsage();
  }

  /** LoRA adapters this pod has loaded, over restarts. */
  get loraLoads(): number {
    return this.earlierLoraLoads + this.engine.loraLoads;
  }

  /** vllm:lora_requests_info's max_lora label when the pod serves adapters (vLLM exposes the series only then). */
  get metricsLora(): { maxLoras: number } | undefined {
    const maxLoras = this.engine.config.maxLoras;
    return maxLoras > 0 ? { maxLoras } : undefined;
  }

  /**
   * Tokens of this prompt the pod's prefix cache holds (never the whole prompt), as its KV events have announced
   * them: the precise index of llm-d sees blocks when vLLM publishes them, after the step that fills them.
   */
  cachedTokens(blockHashes: readonly number[], promptLen: number): number {
    return this.engine.announcedCachedTokens(blockHashes, promptLen);
  }
}
