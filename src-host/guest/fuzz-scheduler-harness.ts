// Exposes the plugin's Scheduler to the differential fuzz test (src-host/fuzz/scheduler-target.ts), which fills
// random candidate sets and compares every score and the pick with src-host/fuzz/reference-scoring.ts.
import { Candidates } from "../../assembly/scheduling/candidates";
import { Scheduler } from "../../assembly/scheduling/scheduler";

const CAPACITY: i32 = 64;
const scheduler = new Scheduler(CAPACITY);
const candidates = new Candidates(CAPACITY);

export function capacity(): i32 {
  return CAPACITY;
}

export function configure(
  queue: f64, kvCache: f64, prefixCache: f64, inflight: f64, lora: f64, failure: f64, session: f64,
  lambda: f64, lengthCreditChars: f64, chunkChars: i32, guardFactor: f64, guardSlack: f64, seed: u64,
  queueSpan: f64, inflightSpan: f64,
): void {
  const w = scheduler.weights;
  w.queue = queue;
  w.kvCache = kvCache;
  w.prefixCache = prefixCache;
  w.inflight = inflight;
  w.loraAffinity = lora;
  w.failure = failure;
  w.session = session;
  scheduler.lambda = lambda;
  scheduler.lengthCreditChars = lengthCreditChars;
  scheduler.chunkChars = chunkChars;
  scheduler.guardFactor = guardFactor;
  scheduler.guardSlack = guardSlack;
  scheduler.queueSpan = queueSpan;
  scheduler.inflightSpan = inflightSpan;
  scheduler.seed(seed);
  candidates.clear();
}

export function add(
  healthy: bool, hasMetrics: bool, waiting: f64, running: f64, kvUsage: f64, hasKv: bool, inflight: i32,
  prefixMatched: i32, loraState: i32, failureEwma: f64, sessionMatch: bool,
): i32 {
  return candidates.add(0, healthy, hasMetrics, waiting, running, kvUsage, hasKv, inflight, prefixMatched, loraState, failureEwma, sessionMatch);
}

export function pick(chainLength: i32): i32 {
  return scheduler.pick(candidates, chainLength);
}

/** Signal scores of candidate i after pick: 0 queue, 1 kv, 2 prefix, 3 inflight, 4 lora, 5 failure, 6 session, 7 total. */
export function score(signal: i32, i: i32): f64 {
  if (i < 0 || i >= CAPACITY) return -1;
  switch (signal) {
    case 0: return scheduler.queueScore[i];
    case 1: return scheduler.kvScore[i];
    case 2: return scheduler.prefixScore[i];
    case 3: return scheduler.inflightScore[i];
    case 4: return scheduler.loraScore[i];
    case 5: return scheduler.failureScore[i];
    case 6: return scheduler.sessionScore[i];
    default: return scheduler.total[i];
  }
}

export function guarded(i: i32): bool {
  return i >= 0 && i < CAPACITY && scheduler.guarded[i];
}
