// Queue pressure (normalizeQueue): waiting requests; lower is better.
import { Candidates } from "../candidates";
import { Scorer, ScorerParam, ScoringRequest } from "../scorer";
import { normalizeQueue } from "../normalize";

export class QueueScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "queue", "q", 2, true, false,
      [new ScorerParam("scoring.queueSpan", 4, 0, 1e6,
        "the queue score is `1 - (waiting - min) / max(max - min, queueSpan)`: a spread smaller than this many waiting requests costs only its share of the weight; 0 is plain min-max"),
       new ScorerParam("scoring.queueRelativeSpan", 16, 0, 1e6,
        "the spread must also reach this many times the shortest queue to count in full: when every endpoint queues, a difference counts relative to the wait all requests face (0: off)")],
      "weight of the queue signal (`num_requests_waiting`, lower is better, min-max across endpoints)");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizeQueue(c, this.score, unchecked(this.values[0]), unchecked(this.values[1]), request.ranges);
  }
}

export function newQueueScorer(capacity: i32): Scorer {
  return new QueueScorer(capacity);
}
