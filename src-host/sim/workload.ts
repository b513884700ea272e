// The workload file: pods, arrival process, weighted traffic generators and faults. Parsing is strict:
// unknown keys, wrong types and out-of-range values are errors that name the JSON path.

export class WorkloadError extends Error {}

export interface PodsSpec {
  count: number;
  /** KV capacity of one pod, in tokens. */
  kvTokens: number;
  blockTokens: number;
  prefillTokensPerSec: number;
  /**
   * Prefill attention, ms per 10^6 (query, context) token pairs (the engine's attentionMsPerMTokenPairs). Absent:
   * derived from prefillTokensPerSec.
   */
  attentionMsPerMTokenPairs?: number;
  /**
   * Step time = baseMs + perSequenceMs × decoding sequences + perKContextTokensMs × their context tokens / 1000
   * (+ prefill time). perKContextTokensMs absent: derived from baseMs (the engine's decodeMsPerKContextTokens).
   */
  decodeStepMs: { baseMs: number; perSequenceMs: number; perKContextTokensMs?: number };
  maxBatchTokens: number;
  maxNumSeqs: number;
  /** Pods that differ from the rest (a heterogeneous pool): each variant names its pods by id. */
  variants: PodVariant[];
  /** LoRA serving (vLLM --enable-lora): absent, requests name the base model and pods report no adapters. */
  lora?: PodLoraSpec;
}

/** vLLM's LoRA limits: adapters in one batch (max_loras), adapters kept loaded (max_cpu_loras) and a load's cost. */
export interface PodLoraSpec {
  maxLoras: number;
  /** Default maxLoras, as vLLM's. */
  maxCpuLoras?: number;
  /** Time to load an adapter the pod does not keep loaded (from disk), ms. */
  loadMs: number;
}

/** Pods, by id, with their own KV capacity and/or GPU speed (steps take 1 / speed as long). */
export interface PodVariant {
  pods: number[];
  kvTokens?: number;
  speed?: number;
}

export interface ArrivalStage {
  qps: number;
  durationS: number;
}

export interface ArrivalSpec {
  /** Poisson arrivals, stage after stage (a single qps + durationS is one stage). */
  stages: ArrivalStage[];
}

export interface SharedPrefixSpec {
  type: "shared-prefix";
  weight: number;
  groups: number;
  promptsPerGroup: number;
  systemTokens: number;
  questionTokens: number;
  outputTokens: number;
  /** Zipf exponent of group popularity; 0 = uniform. */
  groupSkew: number;
}

export interface MultiTurnSpec {
  type: "multi-turn";
  weight: number;
  /** Conversations open at once; a finished conversation is replaced by a new one. */
  conversations: number;
  turns: [number, number];
  systemTokens: number;
  userTokens: [number, number];
  /** The first user message (an agent's task) when it differs from the later ones (tool outputs). */
  firstUserTokens?: [number, number];
  /** Distinct system prompts (agents' tool prompts); each conversation draws one. */
  systemPrompts: number;
  /** Zipf exponent of system-prompt popularity; 0 = uniform. */
  systemSkew: number;
  assistantTokens: [number, number];
  thinkTimeS: [number, number];
  /** LoRA adapters the conversations use (each draws one; its requests name it as `model`); absent or 0: the base model. */
  adapters?: number;
  /** Zipf exponent of adapter popularity; absent or 0 = uniform. */
  adapterSkew?: number;
}

export interface LongDocQaSpec {
  type: "long-doc-qa";
  weight: number;
  documents: number;
  docTokens: number;
  questionsPerDoc: number;
  questionTokens: number;
  outputTokens: number;
}

export type TrafficSpec = SharedPrefixSpec | MultiTurnSpec | LongDocQaSpec;

export type FaultSpec =
  | { type: "restart"; atS: number; pod: number; downS: number }
  | { type: "add"; atS: number }
  | { type: "remove"; atS: number; pod: number }
  /**
   * The pod's engine hangs for durationS: its queue stops moving, its metrics still answer (with the gauges of its
   * last step's end, as vLLM publishes them), requests still go in.
   * Meanwhile other clients (not the gateway) send it externalQps requests per second, which queue there too.
   */
  | { type: "wedge"; atS: number; pod: number; durationS: number; externalQps: number }
  /** The pod's engine runs `factor` times slower for durationS (thermal throttling, a noisy neighbour); nothing restarts. */
  | { type: "slow"; atS: number; pod: number; durationS: number; factor: number };

export interface Workload {
  name: string;
  description: string;
  seed: number;
  model: string;
  pods: PodsSpec;
  arrival: ArrivalSpec;
  traffic: TrafficSpec[];
  faults: FaultSpec[];
}

type Field =
  | { kind: "int"; min?: number; max?: number; optional?: boolean; default?: number }
  | { kind: "number"; min?: number; max?: number; exclusiveMin?: boolean; optional?: boolean; default?: number }
  | { kind: "string"; optional?: boolean; default?: string }
  | { kind: "intRange"; min?: number; optional?: boolean }
  | { kind: "numberRange"; min?: number };

type Fields = Record<string, Field>;

function fail(path: string, message: string): never {
  throw new WorkloadError(`${path}: ${message}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function checkNumber(v: unknown, path: string, f: { min?: number; max?: number; exclusiveMin?: boolean }, integer: boolean): number {
  if (typeof v !== "number" || !Number.isFinite(v)) fail(path, "must be a finite number");
  if (integer && !Number.isInteger(v)) fail(path, "must be an integer");
  if (f.min !== undefined && (f.exclusiveMin ? v <= f.min : v < f.min)) fail(path, `must be ${f.exclusiveMin ? ">" : ">="} ${f.min}`);
  if (f.max !== undefined && v > f.max) fail(path, `must be <= ${f.max}`);
  return v;
}

function checkRange(v: unknown, path: string, min: number, integer: boolean): [number, number] {
  if (!Array.isArray(v) || v.length !== 2) fail(path, "must be a [min, max] pair");
  const lo = checkNumber(v[0], `${path}[0]`, { min }, integer);
  const hi = checkNumber(v[1], `${path}[1]`, { min }, integer);
  if (hi < lo) fail(path, "max must be >= min");
  return [lo, hi];
}

/** Checks an object against its fields (no unknown keys, required keys present) and returns the typed copy. */
function checkObject(v: unknown, path: string, fields: Fields, extra: Record<string, unknown> = {}): Record<string, unknown> {
  if (!isObject(v)) fail(path, "must be an object");
  for (const key of Object.keys(v)) {
    if (!(key in fields) && !(key in extra)) fail(`${path}.${key}`, `unknown key (allowed: ${[...Object.keys(extra), ...Object.keys(fields)].join(", ")})`);
  }
  const out: Record<string, unknown> = { ...extra };
  for (const [key, f] of Object.entries(fields)) {
    const p = `${path}.${key}`;
    const value = v[key];
    if (value === undefined) {
      if ((f.kind === "int" || f.kind === "number" || f.kind === "string") && (f.optional || f.default !== undefined)) {
        if (f.default !== undefined) out[key] = f.default;
        continue;
      }
      if (f.kind === "intRange" && f.optional) continue;
      fail(p, "is required");
    }
    switch (f.kind) {
      case "int":
        out[key] = checkNumber(value, p, f, true);
        break;
      case "number":
        out[key] = checkNumber(value, p, f, false);
        break;
      case "string":
        if (typeof value !== "string") fail(p, "must be a string");
        out[key] = value;
        break;
      case "intRange":
        out[key] = checkRange(value, p, f.min ?? 0, true);
        break;
      case "numberRange":
        out[key] = checkRange(value, p, f.min ?? 0, false);
        break;
    }
  }
  return out;
}

const POD_FIELDS: Fields = {
  count: { kind: "int", min: 1, max: 4096 },
  kvTokens: { kind: "int", min: 1 },
  blockTokens: { kind: "int", min: 1, max: 1024, default: 16 },
  prefillTokensPerSec: { kind: "number", min: 0, exclusiveMin: true },
  attentionMsPerMTokenPairs: { kind: "number", min: 0, optional: true },
  maxBatchTokens: { kind: "int", min: 1, default: 8192 },
  maxNumSeqs: { kind: "int", min: 1, default: 256 },
};

const TRAFFIC_FIELDS: Record<TrafficSpec["type"], Fields> = {
  "shared-prefix": {
    weight: { kind: "number", min: 0, exclusiveMin: true, default: 1 },
    groups: { kind: "int", min: 1 },
    promptsPerGroup: { kind: "int", min: 1 },
    systemTokens: { kind: "int", min: 0 },
    questionTokens: { kind: "int", min: 1 },
    outputTokens: { kind: "int", min: 1 },
    groupSkew: { kind: "number", min: 0, default: 0 },
  },
  "multi-turn": {
    weight: { kind: "number", min: 0, exclusiveMin: true, default: 1 },
    conversations: { kind: "int", min: 1 },
    turns: { kind: "intRange", min: 1 },
    systemTokens: { kind: "int", min: 0 },
    userTokens: { kind: "intRange", min: 1 },
    firstUserTokens: { kind: "intRange", min: 1, optional: true },
    systemPrompts: { kind: "int", min: 1, default: 1 },
    systemSkew: { kind: "number", min: 0, default: 0 },
    assistantTokens: { kind: "intRange", min: 1 },
    thinkTimeS: { kind: "numberRange", min: 0 },
    adapters: { kind: "int", min: 0, max: 100_000, optional: true },
    adapterSkew: { kind: "number", min: 0, optional: true },
  },
  "long-doc-qa": {
    weight: { kind: "number", min: 0, exclusiveMin: true, default: 1 },
    documents: { kind: "int", min: 1 },
    docTokens: { kind: "int", min: 1 },
    questionsPerDoc: { kind: "int", min: 1 },
    questionTokens: { kind: "int", min: 1 },
    outputTokens: { kind: "int", min: 1 },
  },
};

const FAULT_FIELDS: Record<FaultSpec["type"], Fields> = {
  restart: { atS: { kind: "number", min: 0 }, pod: { kind: "int", min: 0 }, downS: { kind: "number", min: 0 } },
  add: { atS: { kind: "number", min: 0 } },
  remove: { atS: { kind: "number", min: 0 }, pod: { kind: "int", min: 0 } },
  wedge: {
    atS: { kind: "number", min: 0 }, pod: { kind: "int", min: 0 }, durationS: { kind: "number", min: 0 },
    externalQps: { kind: "number", min: 0, default: 0 },
  },
  slow: {
    atS: { kind: "number", min: 0 }, pod: { kind: "int", min: 0 }, durationS: { kind: "number", min: 0 },
    factor: { kind: "number", min: 1 },
  },
};

const VARIANT_FIELDS: Fields = {
  kvTokens: { kind: "int", min: 1, optional: true },
  speed: { kind: "number", min: 0, exclusiveMin: true, optional: true },
};

function parseVariants(v: unknown, path: string, count: number): PodVariant[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(path, "must be an array");
  const seen = new Set<number>();
  return v.map((item, i) => {
    const p = `${path}[${i}]`;
    if (!isObject(item)) fail(p, "must be an object");
    const { pods, ...rest } = item;
    if (!Array.isArray(pods) || pods.length === 0) fail(`${p}.pods`, "must be a non-empty array of pod ids");
    const ids = pods.map((id, k) => checkNumber(id, `${p}.pods[${k}]`, { min: 0, max: count - 1 }, true));
    for (const id of ids) {
      if (seen.has(id)) fail(`${p}.pods`, `pod ${id} is in two variants`);
      seen.add(id);
    }
    const fields = checkObject(rest, p, VARIANT_FIELDS) as Omit<PodVariant, "pods">;
    return { pods: ids, ...fields };
  });
}

const LORA_FIELDS: Fields = {
  maxLoras: { kind: "int", min: 1, max: 1024 },
  maxCpuLoras: { kind: "int", min: 1, optional: true },
  loadMs: { kind: "number", min: 0 },
};

function parseLora(v: unknown, path: string): PodLoraSpec | undefined {
  if (v === undefined) return undefined;
  const lora = checkObject(v, path, LORA_FIELDS) as unknown as PodLoraSpec;
  if (lora.maxCpuLoras !== undefined && lora.maxCpuLoras < lora.maxLoras) fail(`${path}.maxCpuLoras`, "must be >= maxLoras");
  return lora;
}

function parsePods(v: unknown, path: string): PodsSpec {
  if (!isObject(v)) fail(path, "must be an object");
  const { decodeStepMs, variants, lora, ...rest } = v;
  const pods = checkObject(rest, path, POD_FIELDS) as Omit<PodsSpec, "decodeStepMs" | "variants">;
  if (decodeStepMs === undefined) fail(`${path}.decodeStepMs`, "is required");
  const step = checkObject(decodeStepMs, `${path}.decodeStepMs`, {
    baseMs: { kind: "number", min: 0 },
    perSequenceMs: { kind: "number", min: 0 },
    perKContextTokensMs: { kind: "number", min: 0, optional: true },
  }) as PodsSpec["decodeStepMs"];
  const spec: PodsSpec = { ...pods, decodeStepMs: step, variants: parseVariants(variants, `${path}.variants`, pods.count) };
  const loraSpec = parseLora(lora, `${path}.lora`);
  if (loraSpec !== undefined) spec.lora = loraSpec;
  return spec;
}

function parseArrival(v: unknown, path: string): ArrivalSpec {
  if (!isObject(v)) fail(path, "must be an object");
  if ("stages" in v) {
    checkObject(v, path, {}, { stages: true });
    if (!Array.isArray(v.stages) || v.stages.length === 0) fail(`${path}.stages`, "must be a non-empty array");
    const stages = v.stages.map((s, i) => checkObject(s, `${path}.stages[${i}]`, STAGE_FIELDS) as unknown as ArrivalStage);
    return { stages };
  }
  return { stages: [checkObject(v, path, STAGE_FIELDS) as unknown as ArrivalStage] };
}

const STAGE_FIELDS: Fields = {
  qps: { kind: "number", min: 0 },
  durationS: { kind: "number", min: 0, exclusiveMin: true },
};

function parseTyped<T extends { type: string }>(v: unknown, path: string, table: Record<string, Fields>): T {
  if (!isObject(v)) fail(path, "must be an object");
  const type = v.type;
  if (typeof type !== "string" || !(type in table)) fail(`${path}.type`, `must be one of ${Object.keys(table).join(", ")}`);
  const { type: _t, ...rest } = v;
  return checkObject(rest, path, table[type], { type }) as unknown as T;
}

/** Validates a parsed JSON workload. Throws WorkloadError naming the offending path. */
export function parseWorkload(json: unknown, path = "workload"): Workload {
  if (!isObject(json)) fail(path, "must be an object");
  const top = checkObject(json, path, {
    name: { kind: "string", default: "workload" },
    description: { kind: "string", default: "" },
    seed: { kind: "int", min: 0 },
    model: { kind: "string", default: "sim-model" },
  }, { pods: null, arrival: null, traffic: null, faults: null });
  for (const key of ["pods", "arrival", "traffic"]) if (json[key] === undefined) fail(`${path}.${key}`, "is required");
  const pods = parsePods(json.pods, `${path}.pods`);
  const arrival = parseArrival(json.arrival, `${path}.arrival`);
  if (!Array.isArray(json.traffic) || json.traffic.length === 0) fail(`${path}.traffic`, "must be a non-empty array");
  const traffic = json.traffic.map((t, i) => parseTyped<TrafficSpec>(t, `${path}.traffic[${i}]`, TRAFFIC_FIELDS));
  traffic.forEach((t, i) => {
    if (t.type === "multi-turn" && (t.adapters ?? 0) > 0 && pods.lora === undefined) {
      fail(`${path}.traffic[${i}].adapters`, "needs pods.lora (the pods' max_loras and load time)");
    }
  });
  let faults: FaultSpec[] = [];
  if (json.faults !== undefined) {
    if (!Array.isArray(json.faults)) fail(`${path}.faults`, "must be an array");
    faults = json.faults.map((f, i) => parseTyped<FaultSpec>(f, `${path}.faults[${i}]`, FAULT_FIELDS));
  }
  return {
    name: top.name as string,
    description: top.description as string,
    seed: top.seed as number,
    model: top.model as string,
    pods,
    arrival,
    traffic,
    faults,
  };
}

/**
 * Arrival stages and fault times (a wedge's or slowdown's end too, so it covers the same share of the run) multiplied by `factor`
 * (quick runs); token sizes, pods and a restart's downtime are unchanged.
 */
export function scaleWorkload(w: Workload, factor: number): Workload {
  if (!(factor > 0)) throw new WorkloadError(`scale must be > 0, got ${factor}`);
  return {
    ...w,
    arrival: { stages: w.arrival.stages.map((s) => ({ ...s, durationS: s.durationS * factor })) },
    faults: w.faults.map((f) => (f.type === "wedge" || f.type === "slow"
      ? { ...f, atS: f.atS * factor, durationS: f.durationS * factor }
      : { ...f, atS: f.atS * factor })),
  };
}
