// One line per request of a run, for reading a policy's tail request by request (`sim --request-log PREFIX`):
// when it arrived and was decided, where it went and what that pod looked like then, what it cost.
// Diagnostic only: nothing here feeds back into a decision.
import type { SimPod } from "./sim-pod.ts";

export interface RequestLogRecord {
  id: number;
  /** Traffic generator index and the request's session, conversation or document key. */
  gen: number;
  session: string;
  /** Messages in the request (a later turn has more). */
  messages: number;
  /** Virtual seconds since the run's start: arrival, and the pick (later when the policy deferred it). */
  arrivalS: number;
  decidedS: number;
  /** Seconds the arrival waited in the backlog for a session ready to send (a closed-loop wait outside TTFT). */
  backlogS: number;
  /** Chosen pod id (-1: none). */
  pod: number;
  /** The chosen pod at the pick: engine waiting and running, the gateway's requests in flight there. */
  podWaiting: number;
  podRunning: number;
  podInflight: number;
  /** Fewest waiting on any candidate at the pick, and the mean. */
  minWaiting: number;
  meanWaiting: number;
  promptTokens: number;
  /** Prompt tokens the chosen pod held, and the most any candidate held. */
  cachedOnPod: number;
  cachedBest: number;
  /** Time to first token (ms, with any gateway wait); null when it never came. */
  ttftMs: number | null;
  /** Prompt tokens the pod found cached when it admitted the request (less than `cachedOnPod` when evicted meanwhile). */
  hitTokens: number | null;
  /** From the pod's receipt to its first scheduling (ms), and preemptions: known once the request finished. */
  queuedMs: number | null;
  preemptions: number | null;
  /** Why it failed, when it did: no-candidates (no pod was up at the send), no-pod, sent-to-down-pod, rejected,
   *  in-flight-when-pod-went. */
  failed: string | null;
}

export function decisionRecord(
  id: number, gen: number, session: string, messages: number, arrivalS: number, decidedS: number,
  pod: SimPod | null, candidates: readonly SimPod[], blockHashes: readonly number[], promptTokens: number,
): RequestLogRecord {
  let minWaiting = Infinity;
  let sumWaiting = 0;
  let cachedBest = 0;
  for (const c of candidates) {
    minWaiting = Math.min(minWaiting, c.numWaiting);
    sumWaiting += c.numWaiting;
    cachedBest = Math.max(cachedBest, c.cachedTokens(blockHashes, promptTokens));
  }
  const up = pod !== null && pod.up;
  return {
    id, gen, session, messages, arrivalS, decidedS, backlogS: 0,
    pod: pod?.id ?? -1,
    podWaiting: up ? pod.numWaiting : -1,
    podRunning: up ? pod.numRunning : -1,
    podInflight: pod?.inflight ?? -1,
    minWaiting: candidates.length > 0 ? minWaiting : -1,
    meanWaiting: candidates.length > 0 ? sumWaiting / candidates.length : -1,
    promptTokens,
    cachedOnPod: up ? pod.cachedTokens(blockHashes, promptTokens) : 0,
    cachedBest,
    ttftMs: null,
    hitTokens: null,
    queuedMs: null,
    preemptions: null,
    failed: null,
  };
}
