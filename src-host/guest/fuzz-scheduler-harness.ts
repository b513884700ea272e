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
  queueSpan: f64, inflightSpan: f64, queueRelativeSpan: f64, inflightRelativeSpan: f64, creditOfBestMatch: f64,
): void {
  // Every signal is compared with the model, so the unweighted ones are scored too.
  scheduler.scoreUnweighted = true;
  scheduler.scorer("queue")!.weight = queue;
  scheduler.scorer("kvCache")!.weight = kvCache;
  scheduler.scorer("prefixCache")!.weight = prefixCache;
  scheduler.scorer("inflight")!.weight = inflight;
  scheduler.scorer("loraAffinity")!.weight = lora;
  scheduler.scorer("failure")!.weight = failure;
  scheduler.scorer("session")!.weight = session;
  scheduler.scorer("prefixCache")!.setParam("prefix.lambda", lambda);
  scheduler.scorer("prefixCache")!.setParam("prefix.lengthCreditChars", lengthCreditChars);
  scheduler.scorer("prefixCache")!.setParam("prefix.creditOfBestMatch", creditOfBestMatch);
  scheduler.request.chunkChars = chunkChars;
  scheduler.guardFactor = guardFactor;
  scheduler.guardSlack = guardSlack;
  scheduler.scorer("queue")!.setParam("scoring.queueSpan", queueSpan);
  scheduler.scorer("inflight")!.setParam("scoring.inflightSpan", inflightSpan);
  scheduler.scorer("queue")!.setParam("scoring.queueRelativeSpan", queueRelativeSpan);
  scheduler.scorer("inflight")!.setParam("scoring.inflightRelativeSpan", inflightRelativeSpan);
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
  // The scorer list's order is the signal numbering.
  return signal >= 0 && signal < scheduler.scorers.length ? scheduler.scorers[signal].score[i] : scheduler.total[i];
}

export function guarded(i: i32): bool {
  return i >= 0 && i < CAPACITY && scheduler.guarded[i];
}
