// What one index operation (match a chain against the active endpoints, then record it for one: the operation
// src-host/bench/index-cost.ts times) does at each fill level, counted, not timed, so that the comparison of 100% and
// 1% fill does not rest on a noisy clock: wasm operations (src-host/bench/wasm-op-count.ts), the probe lengths of
// the chain's lookups, and the memory it touches (src-host/bench/wasm-memory-trace.ts) as 64-byte cache lines, by
// structure, and how many of them a least-recently-used cache of a given size would not hold (a modeled miss: what a
// full, preallocated index costs over a nearly empty one is its lines gone cold). Each fill level runs in its own
// instance of the harness (src-host/guest/bench-prefix-index.ts), the same operation sequence as the timed bench.
import { compileAs } from "../wasm/compile-as.ts";
import { INDEX_HARNESS_ENTRY } from "../wasm/guest-entries.ts";
import { instrumentOpCount, opsCounted } from "./wasm-op-count.ts";
import { instrumentMemoryTrace, memoryTraceImports } from "./wasm-memory-trace.ts";

interface StepHarness {
  defaultMaxEndpoints(): number;
  defaultCapacityPerEndpoint(): number;
  createFilled(fill: number, chainLength: number, activeCount: number, capacityPerEndpoint: number): number;
  run(id: number, ops: number, chainLength: number, activeCount: number): number;
  step(id: number, chainLength: number, activeCount: number): number;
  stepMatch(id: number, chainLength: number, activeCount: number): number;
  stepRecord(id: number, chainLength: number): void;
  stepProbe(id: number, position: number): number;
  memoryRegion(id: number, k: number): number;
}

/** The structures memoryRegions() gives, in its order; "other" is the rest (slot arrays, the harness's buffers). */
export const INDEX_REGIONS = ["table", "records", "stamps", "headCounts", "headFlags", "other"] as const;
export type IndexRegion = (typeof INDEX_REGIONS)[number];

export interface PhaseCounts {
  /** Wasm operations per index operation. */
  ops: number;
  /** Loads and stores per index operation. */
  accesses: number;
  /** Distinct 64-byte lines touched per index operation, by structure. */
  lines: Record<IndexRegion, number>;
  /** Of those, lines a least-recently-used cache of `cacheBytes` would not hold, by structure. */
  coldLines: Record<IndexRegion, number>;
}

export interface IndexFillCounts {
  fill: number;
  match: PhaseCounts;
  record: PhaseCounts;
  /** Mean buckets read by a lookup of the chain's hashes in the chosen slot that finds its hash / that does not. */
  probeHit: number;
  probeMiss: number;
  /** Share of those lookups that miss. */
  missShare: number;
}

export interface IndexOpCountResult {
  ops: number;
  cacheBytes: number;
  rows: IndexFillCounts[];
  /** Wasm operations of match + record at 100% fill / at 1% fill. */
  opsRatioFullToOnePercent: number;
  /** Modeled cold lines of match + record at 100% fill / at 1% fill. */
  coldLinesRatioFullToOnePercent: number;
}

export interface IndexOpCountOptions {
  fills: number[];
  chainLength: number;
  activeEndpoints: number;
  /** Operations counted per fill level, after `warmupOps`. */
  ops: number;
  warmupOps: number;
  /** Size of the modeled cache. */
  cacheBytes: number;
}

const LINE_SHIFT = 6;

/** Lines touched, in least-recently-used order (a Map keeps insertion order). */
class LruLines {
  private readonly lines = new Map<number, true>();
  constructor(private readonly capacity: number) {}
  /** Touches a line; whether it was absent (a modeled miss). */
  touch(line: number): boolean {
    const held = this.lines.delete(line);
    this.lines.set(line, true);
    if (!held && this.lines.size > this.capacity) this.lines.delete(this.lines.keys().next().value!);
    return !held;
  }
}

function emptyByRegion(): Record<IndexRegion, number> {
  return Object.fromEntries(INDEX_REGIONS.map((r) => [r, 0])) as Record<IndexRegion, number>;
}

async function instantiate(binary: Uint8Array<ArrayBuffer>, env: Record<string, unknown>): Promise<WebAssembly.Instance> {
  const { instance } = await WebAssembly.instantiate(binary, { env } as WebAssembly.Imports);
  return instance;
}

const abort = () => {
  throw new Error("prefix-index harness aborted");
};

export async function indexOpCount(options: IndexOpCountOptions): Promise<IndexOpCountResult> {
  const binary = await compileAs(INDEX_HARNESS_ENTRY, "standalone");
  const counted = await instrumentOpCount(binary);
  const traced = await instrumentMemoryTrace(binary);
  const { chainLength, activeEndpoints: active } = options;
  const rows: IndexFillCounts[] = [];
  for (const fill of options.fills) {
    // Operation counts.
    const opsInstance = await instantiate(counted, { abort });
    const h = opsInstance.exports as unknown as StepHarness;
    const id = h.createFilled(fill, chainLength, active, h.defaultCapacityPerEndpoint());
    h.run(id, options.warmupOps, chainLength, active);
    let matchOps = 0n;
    let recordOps = 0n;
    let probeHit = 0, hits = 0, probeMiss = 0, misses = 0;
    for (let op = 0; op < options.ops; op++) {
      h.step(id, chainLength, active);
      for (let i = 0; i < chainLength; i++) {
        const probe = h.stepProbe(id, i);
        if (probe > 0) (probeHit += probe), hits++;
        else (probeMiss -= probe), misses++;
      }
      const before = opsCounted(opsInstance);
      h.stepMatch(id, chainLength, active);
      const between = opsCounted(opsInstance);
      h.stepRecord(id, chainLength);
      matchOps += between - before;
      recordOps += opsCounted(opsInstance) - between;
    }

    // Memory touched.
    let tracing = false;
    let phaseLines = new Set<number>();
    let accesses = 0;
    const onAccess = (address: number, bytes: number) => {
      if (!tracing) return;
      accesses++;
      phaseLines.add(address >>> LINE_SHIFT);
      const last = (address + bytes - 1) >>> LINE_SHIFT;
      if (last !== address >>> LINE_SHIFT) phaseLines.add(last);
    };
    const traceInstance = await instantiate(traced, memoryTraceImports(onAccess, { abort }) as Record<string, unknown>);
    const t = traceInstance.exports as unknown as StepHarness;
    const tid = t.createFilled(fill, chainLength, active, t.defaultCapacityPerEndpoint());
    const bounds: number[] = [];
    for (let k = 0; t.memoryRegion(tid, k) >= 0; k++) bounds.push(t.memoryRegion(tid, k));
    const regionOf = (line: number): IndexRegion => {
      const address = line << LINE_SHIFT;
      for (let r = 0; r * 2 < bounds.length; r++) {
        // A line that straddles two structures counts for the one it starts in, or the one it ends in.
        if (address + (1 << LINE_SHIFT) > bounds[2 * r] && address < bounds[2 * r + 1]) return INDEX_REGIONS[r];
      }
      return "other";
    };
    const cache = new LruLines(options.cacheBytes >> LINE_SHIFT);
    const phases = { match: newPhase(), record: newPhase() };
    const finishPhase = (phase: ReturnType<typeof newPhase>, counting: boolean) => {
      for (const line of phaseLines) {
        const cold = cache.touch(line);
        if (!counting) continue;
        const region = regionOf(line);
        phase.lines[region]++;
        if (cold) phase.coldLines[region]++;
      }
      if (counting) phase.accesses += accesses;
      phaseLines = new Set();
      accesses = 0;
    };
    const total = options.warmupOps + options.ops;
    for (let op = 0; op < total; op++) {
      const counting = op >= options.warmupOps;
      t.step(tid, chainLength, active);
      tracing = true;
      t.stepMatch(tid, chainLength, active);
      tracing = false;
      finishPhase(phases.match, counting);
      tracing = true;
      t.stepRecord(tid, chainLength);
      tracing = false;
      finishPhase(phases.record, counting);
    }
    const perOp = (phase: ReturnType<typeof newPhase>, ops: bigint): PhaseCounts => ({
      ops: Number(ops) / options.ops,
      accesses: phase.accesses / options.ops,
      lines: scale(phase.lines, 1 / options.ops),
      coldLines: scale(phase.coldLines, 1 / options.ops),
    });
    rows.push({
      fill,
      match: perOp(phases.match, matchOps),
      record: perOp(phases.record, recordOps),
      probeHit: hits ? probeHit / hits : 0,
      probeMiss: misses ? probeMiss / misses : 0,
      missShare: misses / Math.max(1, hits + misses),
    });
  }
  const at = (fill: number) => rows.find((r) => r.fill === fill)!;
  const opsOf = (r: IndexFillCounts) => r.match.ops + r.record.ops;
  const coldOf = (r: IndexFillCounts) => sum(r.match.coldLines) + sum(r.record.coldLines);
  return {
    ops: options.ops,
    cacheBytes: options.cacheBytes,
    rows,
    opsRatioFullToOnePercent: opsOf(at(1)) / opsOf(at(0.01)),
    coldLinesRatioFullToOnePercent: coldOf(at(1)) / Math.max(1e-9, coldOf(at(0.01))),
  };
}

function newPhase() {
  return { accesses: 0, lines: emptyByRegion(), coldLines: emptyByRegion() };
}

function scale(byRegion: Record<IndexRegion, number>, factor: number): Record<IndexRegion, number> {
  const out = emptyByRegion();
  for (const r of INDEX_REGIONS) out[r] = byRegion[r] * factor;
  return out;
}

export function sum(byRegion: Record<IndexRegion, number>): number {
  return INDEX_REGIONS.reduce((total, r) => total + byRegion[r], 0);
}
