// The failure score where no endpoint has failed lately: the tracker says when every rate has faded, the scorer then
// gives every healthy candidate the same score (a constant term for the scheduler's fused pass) and keeps it while
// the snapshot holds, and scores again as soon as a rate is not 0.
import { Candidates } from "../../assembly/scheduling/candidates";
import { FailureTracker } from "../../assembly/core/failure-tracker";
import { FADE_HALF_LIVES, decayedEwma } from "../../assembly/scheduling/failure-ewma";
import { normalizeFailure } from "../../assembly/scheduling/normalize";
import { newFailureScorer } from "../../assembly/scheduling/scorers/failure-scorer";
import { ScoringRequest } from "../../assembly/scheduling/scorer";

const HALF_LIFE: f64 = 30000;

describe("FailureTracker.anyRate", () => {
  it("is false until a failure is recorded, successes alone leave it false", () => {
    const t = new FailureTracker(4);
    expect<bool>(t.anyRate(0, HALF_LIFE)).toBe(false);
    t.record(1, 1, false, 0.2, 1000, HALF_LIFE);
    expect<bool>(t.anyRate(1000, HALF_LIFE)).toBe(false);
  });

  it("is true after a failure until every rate has faded to none", () => {
    const t = new FailureTracker(4);
    t.record(2, 1, true, 1, 1000, HALF_LIFE); // alpha 1: the highest rate there can be
    expect<bool>(t.anyRate(1000, HALF_LIFE)).toBe(true);
    expect<bool>(t.anyRate(1000 + 10 * HALF_LIFE, HALF_LIFE)).toBe(true);
    const faded = 1000 + FADE_HALF_LIVES * HALF_LIFE;
    expect<bool>(t.anyRate(faded, HALF_LIFE)).toBe(false);
    // What the candidate fill would read there is 0 too.
    expect<f64>(decayedEwma(t.ewmaBySlot[2], faded - t.updatedMsBySlot[2], HALF_LIFE)).toBe(0.0);
    // Without a half-life a rate never fades.
    expect<bool>(t.anyRate(faded * 100, 0)).toBe(true);
  });

  it("keeps the latest failure when the clock went back before another one", () => {
    const t = new FailureTracker(4);
    // Slot 0 fails at 100 half-lives; the clock then steps back 50 half-lives and slot 1 fails there.
    const late = 100 * HALF_LIFE;
    const early = 50 * HALF_LIFE;
    t.record(0, 1, true, 1, late, HALF_LIFE);
    t.record(1, 1, true, 1, early, HALF_LIFE);
    // FADE_HALF_LIVES after the earlier failure slot 0's rate has not faded at all (its failure is still ahead).
    const now = early + FADE_HALF_LIVES * HALF_LIFE;
    expect<f64>(decayedEwma(t.ewmaBySlot[0], now - t.updatedMsBySlot[0], HALF_LIFE)).toBe(1.0);
    expect<bool>(t.anyRate(now, HALF_LIFE)).toBe(true);
  });
});

describe("normalizeFailure's uniform score", () => {
  it("is the score of every healthy candidate when they agree, NaN when they differ", () => {
    const c = new Candidates(4);
    const out = new StaticArray<f64>(4);
    c.addSlot(0);
    c.addSlot(1);
    c.healthy[c.addSlot(2)] = false;
    expect<f64>(normalizeFailure(c, out)).toBe(1.0);
    expect<f64>(out[2]).toBe(0.0);
    c.failureEwma[1] = 0.25;
    expect<bool>(isNaN(normalizeFailure(c, out))).toBe(true);
    expect<f64>(out[1]).toBe(0.75);
  });
});

describe("FailureScorer without failures", () => {
  it("keeps its scores for the snapshot while every rate is 0 and scores again when one is not", () => {
    const c = new Candidates(4);
    const scorer = newFailureScorer(4);
    const request = new ScoringRequest();
    c.addSlot(0);
    c.addSlot(1);
    c.healthy[c.addSlot(2)] = false;
    c.markSnapshot();
    c.noFailureRates = true;
    scorer.scoreAll(c, request);
    expect<f64>(scorer.uniformScore).toBe(1.0);
    expect<f64>(scorer.score[0]).toBe(1.0);
    expect<f64>(scorer.score[2]).toBe(0.0);
    // A failure on the same snapshot: the fill reads the rates again.
    c.noFailureRates = false;
    c.failureEwma[1] = 0.5;
    scorer.scoreAll(c, request);
    expect<bool>(isNaN(scorer.uniformScore)).toBe(true);
    expect<f64>(scorer.score[1]).toBe(0.5);
    // Faded again: the same scores on every healthy candidate.
    c.noFailureRates = true;
    c.failureEwma[1] = 0;
    scorer.scoreAll(c, request);
    expect<f64>(scorer.uniformScore).toBe(1.0);
    expect<f64>(scorer.score[1]).toBe(1.0);
    // A filter excluding a candidate ends the snapshot: its score follows.
    c.exclude(0);
    scorer.scoreAll(c, request);
    expect<f64>(scorer.score[0]).toBe(0.0);
  });
});
