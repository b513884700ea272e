// Prefix-index cost by fill level: one operation is what a request does to the index (match a chain against
// the active endpoints, then record it for the chosen one), looped inside wasm by src-host/guest/bench-prefix-index.ts
// on a default-sized index. Fill levels run in interleaved rounds; the cost at 100% against 1% shows whether
// it stays O(1). What remains is the memory hierarchy (a full index no longer fits in the CPU caches), which the
// in-cache control shows: a full index small enough for the caches, at the same load factor and probe work.
// Rounds are timed in CPU time: on a shared machine, wall time also counts the time other processes held the core.
import { compileAs } from "../wasm/compile-as.ts";
import { INDEX_HARNESS_ENTRY } from "../wasm/guest-entries.ts";
import { interleavedRounds, medianRatio, type Contender } from "./interleaved-rounds.ts";
import { indexOpCount, type IndexOpCountResult } from "./index-op-count.ts";

export interface IndexHarness {
  defaultMaxEndpoints(): number;
  defaultCapacityPerEndpoint(): number;
  bytesFor(maxEndpoints: number, capacityPerEndpoint: number): number;
  createFilled(fill: number, chainLength: number, activeCount: number, capacityPerEndpoint: number): number;
  run(id: number, ops: number, chainLength: number, activeCount: number): number;
  totalEntries(id: number): number;
  poolEntries(id: number): number;
  bytesPerEntry(id: number): number;
  maxDisplacement(id: number): number;
  isConsistent(id: number): number;
}

export async function loadIndexHarness(): Promise<IndexHarness> {
  const binary = (await compileAs(INDEX_HARNESS_ENTRY, "standalone")) as Uint8Array<ArrayBuffer>;
  const { instance } = await WebAssembly.instantiate(binary, {
    env: {
      abort() {
        throw new Error("prefix-index harness aborted");
      },
    },
  });
  return instance.exports as unknown as IndexHarness;
}

export interface IndexCostOptions {
  /** Fill levels, as fractions of the default capacity; must include 0.01 and 1. */
  fills: number[];
  rounds: number;
  targetMs: number;
  /** Chain hashes per operation: half a prefix shared by all requests, half new. */
  chainLength: number;
  /** Endpoints each chain is matched against. */
  activeEndpoints: number;
  /** Operations counted (not timed) at 1% and 100% fill, after as many warm-up operations as the timed runs have. */
  countedOps: number;
  /** Size of the least-recently-used cache the counts model. */
  modeledCacheBytes: number;
}

export interface IndexFillRow {
  fill: number;
  entries: number;
  /** Machine-specific median nanoseconds per operation (one match + one record). */
  nsPerOp: number;
  /** Mean matched length for the chosen endpoint: the same at every fill, so the work per operation is too. */
  matchedPerOp: number;
  /** Longest probe distance in the table (load factor stays <= 0.25). */
  maxDisplacement: number;
  consistent: boolean;
}

/** Entries per endpoint of the in-cache control (64 endpoints x 64: 4,096 entries, about 150 KB). */
const CONTROL_CAPACITY = 64;

export interface IndexCostResult {
  maxEndpoints: number;
  capacityPerEndpoint: number;
  chainLength: number;
  activeEndpoints: number;
  rows: IndexFillRow[];
  /** Median over rounds of (cost at 100% fill) / (cost at 1% fill). */
  ratioFullToOnePercent: number;
  /** A full index of maxEndpoints x capacityPerEndpoint entries that fits in the CPU caches, in the same rounds. */
  inCacheControl: { capacityPerEndpoint: number; entries: number; nsPerOp: number; maxDisplacement: number; ratioToOnePercent: number };
  /** The same operation at 1% and 100% fill, counted: wasm operations, probe lengths, cache lines. */
  counts: IndexOpCountResult;
}

export async function indexCost(options: IndexCostOptions): Promise<IndexCostResult> {
  const harness = await loadIndexHarness();
  const { chainLength, activeEndpoints } = options;
  const capacity = harness.defaultCapacityPerEndpoint();
  const ids = options.fills.map((fill) => harness.createFilled(fill, chainLength, activeEndpoints, capacity));
  const controlId = harness.createFilled(1, chainLength, activeEndpoints, CONTROL_CAPACITY);
  const matchedSum = new Map<number, { matched: number; ops: number }>();
  const contenders: Contender[] = options.fills.map((fill, i) => {
    const tally = { matched: 0, ops: 0 };
    matchedSum.set(fill, tally);
    return {
      name: `fill${fill}`,
      run(n) {
        tally.matched += harness.run(ids[i], n, chainLength, activeEndpoints);
        tally.ops += n;
      },
    };
  });
  contenders.push({ name: "control", run: (n) => void harness.run(controlId, n, chainLength, activeEndpoints) });
  // Until every slot has seen the shared prefix, early operations match less; warm that up untimed.
  const warmupOps = 50 * harness.defaultMaxEndpoints();
  for (const id of [...ids, controlId]) harness.run(id, warmupOps, chainLength, activeEndpoints);
  for (const t of matchedSum.values()) t.matched = t.ops = 0;

  const result = interleavedRounds(contenders, { rounds: options.rounds, targetMs: options.targetMs, minIterations: 100, clock: "cpu" });
  const rows = options.fills.map((fill, i): IndexFillRow => {
    const tally = matchedSum.get(fill)!;
    return {
      fill,
      entries: harness.totalEntries(ids[i]),
      nsPerOp: result.medianUs[`fill${fill}`] * 1000,
      matchedPerOp: tally.matched / tally.ops,
      maxDisplacement: harness.maxDisplacement(ids[i]),
      consistent: Boolean(harness.isConsistent(ids[i])),
    };
  });
  const counts = await indexOpCount({
    fills: [0.01, 1], chainLength, activeEndpoints, ops: options.countedOps, warmupOps, cacheBytes: options.modeledCacheBytes,
  });
  return {
    maxEndpoints: harness.defaultMaxEndpoints(),
    capacityPerEndpoint: harness.defaultCapacityPerEndpoint(),
    chainLength,
    activeEndpoints,
    rows,
    ratioFullToOnePercent: medianRatio(result.samplesUs.fill1, result.samplesUs["fill0.01"]),
    inCacheControl: {
      capacityPerEndpoint: CONTROL_CAPACITY,
      entries: harness.totalEntries(controlId),
      nsPerOp: result.medianUs.control * 1000,
      maxDisplacement: harness.maxDisplacement(controlId),
      ratioToOnePercent: medianRatio(result.samplesUs.control, result.samplesUs["fill0.01"]),
    },
    counts,
  };
}
