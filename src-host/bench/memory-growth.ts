// Linear memory over many requests at the default configuration: small chat bodies through the host with the
// release build and a virtual clock (1 ms per request, so metrics snapshots refresh and time-based state moves
// as in a busy worker). Half the requests repeat one of 64 popular conversations, half start a new one, so
// the prefix index fills up and then evicts. Memory is sampled after a warm-up and at checkpoints; after the
// warm-up it must stay flat. Also reports the index's preallocated bytes per entry.
import { BenchGateway } from "./bench-gateway.ts";
import { readBuiltPlugin } from "../wasm/built-plugin.ts";
import { BENCH_MODEL, prose } from "./chat-body.ts";
import { loadIndexHarness } from "./index-cost.ts";

export interface MemoryGrowthOptions {
  requests: number;
  warmupRequests: number;
  /** Request counts (after the warm-up is included) at which memory is sampled, besides the end. */
  checkpoints: number[];
}

export interface MemoryCheckpoint {
  requests: number;
  linearMemoryBytes: number;
}

export interface MemoryGrowthResult {
  requests: number;
  warmupRequests: number;
  bodyBytes: number;
  afterStartBytes: number;
  afterWarmupBytes: number;
  finalBytes: number;
  /** finalBytes - afterWarmupBytes: 0 when memory stopped growing after the warm-up. */
  growthAfterWarmupBytes: number;
  checkpoints: MemoryCheckpoint[];
  decisions: number;
  prefixHits: number;
  /** Wall time of the run, seconds (machine-specific). */
  seconds: number;
  index: {
    maxEndpoints: number;
    capacityPerEndpoint: number;
    /** PrefixIndex.bytesPerEntry() at the default size. */
    bytesPerEntry: number;
    /** PrefixIndex.bytesFor(maxEndpoints, capacityPerEndpoint): the whole preallocation at the default size. */
    bytesForDefault: number;
  };
}

const MARKER = "000000000";

/** A small chat body whose first characters carry a 9-digit conversation number, rewritten in place. */
function conversationTemplate(): { bytes: Uint8Array; digitsAt: number } {
  const body = {
    model: BENCH_MODEL,
    messages: [
      { role: "system", content: `Conversation ${MARKER}. ${prose(11, 500)}` },
      { role: "user", content: prose(12, 300) },
    ],
    stream: true,
  };
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const digitsAt = Buffer.from(bytes).indexOf(MARKER);
  return { bytes, digitsAt };
}

function writeDigits(bytes: Uint8Array, at: number, value: number): void {
  for (let i = MARKER.length - 1; i >= 0; i--) {
    bytes[at + i] = 48 + (value % 10);
    value = Math.floor(value / 10);
  }
}

export async function memoryGrowth(options: MemoryGrowthOptions): Promise<MemoryGrowthResult> {
  const started = performance.now();
  const gateway = new BenchGateway(readBuiltPlugin("higress"), "{}");
  const { bytes, digitsAt } = conversationTemplate();
  const afterStartBytes = gateway.memoryBytes();
  const marks = [...new Set([...options.checkpoints, options.requests])].filter((n) => n > options.warmupRequests && n <= options.requests).sort((a, b) => a - b);
  const checkpoints: MemoryCheckpoint[] = [];
  let afterWarmupBytes = NaN;
  let next = 0;
  for (let i = 1; i <= options.requests; i++) {
    const conversation = i % 2 === 0 ? i % 64 : 1_000 + i;
    writeDigits(bytes, digitsAt, conversation % 1e9);
    gateway.clock.advanceTo(gateway.clock.nowMs() + 1);
    const stream = gateway.request(bytes);
    if (stream.overrideHost === null) throw new Error(`request ${i} got no decision: ${gateway.warnings.join(" | ")}`);
    if (i === options.warmupRequests) afterWarmupBytes = gateway.memoryBytes();
    if (i === marks[next]) {
      checkpoints.push({ requests: i, linearMemoryBytes: gateway.memoryBytes() });
      next++;
    }
  }
  const finalBytes = gateway.memoryBytes();
  const decisions = gateway.counter("decisions");
  const prefixHits = gateway.counter("prefix_hits");
  gateway.host.close();

  const harness = await loadIndexHarness();
  const maxEndpoints = harness.defaultMaxEndpoints();
  const capacityPerEndpoint = harness.defaultCapacityPerEndpoint();
  const id = harness.createFilled(0.01, 1, 1, capacityPerEndpoint);
  return {
    requests: options.requests,
    warmupRequests: options.warmupRequests,
    bodyBytes: bytes.length,
    afterStartBytes,
    afterWarmupBytes,
    finalBytes,
    growthAfterWarmupBytes: finalBytes - afterWarmupBytes,
    checkpoints,
    decisions,
    prefixHits,
    seconds: (performance.now() - started) / 1000,
    index: {
      maxEndpoints,
      capacityPerEndpoint,
      bytesPerEntry: harness.bytesPerEntry(id),
      bytesForDefault: harness.bytesFor(maxEndpoints, capacityPerEndpoint),
    },
  };
}
