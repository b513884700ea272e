// A new signal is one Scorer file plus one line in the scorer list: registered here (this spec is its own module,
// so the shipped list elsewhere is unchanged), its weight and config keys are accepted, the debug header shows it
// and it changes the pick.
import { SCORER_FACTORIES } from "../../assembly/scheduling/scorer-list";
import { newWarmPoolScorer } from "./support/warm-pool-scorer";
SCORER_FACTORIES.push(newWarmPoolScorer); // the one list line

import { Candidates, LoraState } from "../../assembly/scheduling/candidates";
import { Scheduler } from "../../assembly/scheduling/scheduler";
import { PluginConfig } from "../../assembly/config/plugin-config";
import { candidateScores } from "../../assembly/picker/debug-header";
import { higress, expectMentions } from "./support/config-parse";

const c = new Candidates(4);

function twoEqualEndpoints(): void {
  c.clear();
  // Same load and cache; only the slot differs: slot 7 is outside a warm pool of size 5, slot 3 inside.
  c.add(7, true, true, 1, 2, 0.5, true, 0, 0, LoraState.Unknown, 0, false);
  c.add(3, true, true, 1, 2, 0.5, true, 0, 0, LoraState.Unknown, 0, false);
}

describe("an eighth signal registered in the scorer list", () => {
  it("has its weight and config keys accepted by the config parser", () => {
    const out = new PluginConfig();
    expect<string>(higress('{"weights": {"warmPool": 4}, "scoring": {"warmPoolSize": 5}}', out)).toBe("");
    expect<f64>(out.scoring.weight("warmPool")).toBe(4);
    expect<f64>(out.scoring.value("scoring.warmPoolSize")).toBe(5);
    expectMentions(higress('{"scoring": {"warmPoolSize": 5000}}'), "scoring.warmPoolSize: expected a number in [0, 4096], got 5000");
  });

  it("defaults to weight 0: the pick is the shipped scorers' and the header has no column for it", () => {
    const s = new Scheduler(4);
    twoEqualEndpoints();
    s.pick(c, 0);
    expect<f64>(s.total[0]).toBe(s.total[1]);
    expect<bool>(candidateScores(s, c, 1).includes(" w=")).toBe(false);
  });

  it("changes the pick and shows in the debug header once weighted", () => {
    const out = new PluginConfig();
    expect<string>(higress('{"weights": {"warmPool": 4}, "scoring": {"warmPoolSize": 5}}', out)).toBe("");
    const s = new Scheduler(4);
    s.configure(out.scoring);
    twoEqualEndpoints();
    for (let k = 0; k < 20; k++) expect<i32>(s.pick(c, 0)).toBe(1);
    expect<bool>(candidateScores(s, c, 1).endsWith(" m=0 l=0.000 w=1.000")).toBe(true, candidateScores(s, c, 1));
    expect<bool>(candidateScores(s, c, 0).endsWith(" m=0 l=0.000 w=0.000")).toBe(true, candidateScores(s, c, 0));
  });
});
