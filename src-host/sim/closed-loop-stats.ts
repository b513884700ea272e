// The closed loop's view of a run. A traffic generator has a finite population of sessions: when all are busy, an
// arrival waits in the backlog until one is ready, and that wait is outside TTFT. A policy that finishes turns slower
// thus gets fewer requests at a peak (coordinated omission; wrk2 reports latency from the intended send time). These
// figures count TTFT from the scheduled arrival instead; TTFT stays the headline (it is what a user sees).
import { quantile } from "./quantile.ts";

export interface ClosedLoopSummary {
  /** Requests whose arrival waited in the backlog for a ready session, and their share of all requests. */
  backlogged: number;
  backlogged_share: number;
  /** Their wait in the backlog: summed, and the mean over them (0 when none waited). */
  backlog_wait_total_s: number;
  backlog_wait_mean_s: number;
  /** TTFT counted from the scheduled arrival (backlog wait + TTFT), over the requests that had a first token. */
  ttft_from_arrival_mean_s: number;
  ttft_from_arrival_p50_s: number;
  ttft_from_arrival_p90_s: number;
}

/** Only requests that waited are kept, so a run without a backlog holds nothing here. */
export class ClosedLoopStats {
  private backlogged = 0;
  private waitTotalMs = 0;
  /** TTFT (ms) of the first tokens of requests that waited, and the same counted from their scheduled arrival. */
  private readonly waitedTtftMs: number[] = [];
  private readonly waitedFromArrivalMs: number[] = [];

  /** A request is sent `backlogMs` after its scheduled arrival (0: it did not wait). */
  sent(backlogMs: number): void {
    if (backlogMs <= 0) return;
    this.backlogged++;
    this.waitTotalMs += backlogMs;
  }

  firstToken(ttftMs: number, backlogMs: number): void {
    if (backlogMs <= 0) return;
    this.waitedTtftMs.push(ttftMs);
    this.waitedFromArrivalMs.push(ttftMs + backlogMs);
  }

  /** `ttftMs`: every first token's TTFT of the run, sorted; `requests`: every request sent. */
  summary(ttftMs: Float64Array, requests: number): ClosedLoopSummary {
    const fromArrival = this.waitedTtftMs.length === 0 ? ttftMs : this.replaceWaited(ttftMs);
    let sum = 0;
    for (let i = 0; i < fromArrival.length; i++) sum += fromArrival[i];
    return {
      backlogged: this.backlogged,
      backlogged_share: requests > 0 ? this.backlogged / requests : 0,
      backlog_wait_total_s: this.waitTotalMs / 1000,
      backlog_wait_mean_s: this.backlogged > 0 ? this.waitTotalMs / this.backlogged / 1000 : 0,
      ttft_from_arrival_mean_s: fromArrival.length > 0 ? sum / fromArrival.length / 1000 : 0,
      ttft_from_arrival_p50_s: quantile(fromArrival, 0.5) / 1000,
      ttft_from_arrival_p90_s: quantile(fromArrival, 0.9) / 1000,
    };
  }

  /** The sorted TTFTs with each waited request's TTFT replaced by its TTFT from the scheduled arrival, sorted. */
  private replaceWaited(ttftMs: Float64Array): Float64Array {
    const removed = Float64Array.from(this.waitedTtftMs).sort();
    const added = Float64Array.from(this.waitedFromArrivalMs).sort();
    const kept = new Float64Array(ttftMs.length - removed.length);
    let k = 0;
    let r = 0;
    for (let i = 0; i < ttftMs.length; i++) {
      // Both are sorted and hold the very same numbers, so a multiset difference is one merge walk.
      if (r < removed.length && ttftMs[i] === removed[r]) r++;
      else kept[k++] = ttftMs[i];
    }
    if (r !== removed.length || k !== kept.length) throw new Error("closed-loop stats: a waited TTFT is missing from the run's TTFTs");
    const out = new Float64Array(ttftMs.length);
    let a = 0;
    let b = 0;
    for (let i = 0; i < out.length; i++) out[i] = b >= added.length || (a < kept.length && kept[a] <= added[b]) ? kept[a++] : added[b++];
    return out;
  }
}
