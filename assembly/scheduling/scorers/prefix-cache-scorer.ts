// Cached prefix (normalizePrefix): the matched share of the request's chain plus a credit for matched length.
import { Candidates } from "../candidates";
import { Scorer, ScorerParam, ScoringRequest } from "../scorer";
import { normalizePrefix } from "../normalize";

export class PrefixCacheScorer extends Scorer {
  constructor(capacity: i32) {
    super(capacity, "prefixCache", "p", 3, true, true,
      [
        new ScorerParam("prefix.lambda", 0.5, 0, 1,
          "prefix score = `lambda × matched/total + (1 - lambda) × max(0, 1 - (bestMatchedChars - matchedChars) / lengthCreditChars)`; the second term is 0 for everyone when all candidates match the same length"),
        new ScorerParam("prefix.lengthCreditChars", 8192, 1, 1e9,
          "matched characters behind the best candidate that cost the whole second term of the prefix score"),
        new ScorerParam("prefix.creditOfBestMatch", 2, 0, 1e9,
          "with k > 0, the deficit behind the best candidate is charged against the shorter of `lengthCreditChars` and k × `bestMatchedChars`: a candidate lacking all of a short best match (a group's system prompt) loses the whole second term; 0 disables"),
      ],
      "weight of the prefix-cache match");
  }

  scoreAll(c: Candidates, request: ScoringRequest): void {
    normalizePrefix(c, request.chainLength, request.chunkChars, unchecked(this.values[0]), unchecked(this.values[1]), this.score,
      request.ranges, unchecked(this.values[2]));
  }
}

export function newPrefixCacheScorer(capacity: i32): Scorer {
  return new PrefixCacheScorer(capacity);
}
